package model

import (
	"fmt"
	"math/big"
	"slices"
	"testing"
)

// traceChecker re-derives every relation documented on the trace types
// from the trace alone, the way a prover reads it.
type traceChecker struct {
	t   *testing.T
	m   *Model
	err []string
}

func (c *traceChecker) fail(format string, args ...any) {
	if len(c.err) < 20 {
		c.err = append(c.err, fmt.Sprintf(format, args...))
	}
}

func (c *traceChecker) tensor(x *Tensor, shape ...int) {
	if !slices.Equal(x.Shape, shape) {
		c.fail("%s: shape %v, want %v", x.Name, x.Shape, shape)
		return
	}
	n := 1
	for _, s := range shape {
		n *= s
	}
	if len(x.Data) != n {
		c.fail("%s: %d values for shape %v", x.Name, len(x.Data), shape)
		return
	}
	if x.Min > x.Max {
		c.fail("%s: empty range [%d, %d]", x.Name, x.Min, x.Max)
	}
	for i, v := range x.Data {
		if v < x.Min || v > x.Max {
			c.fail("%s[%d] = %d outside [%d, %d]", x.Name, i, v, x.Min, x.Max)
			return
		}
	}
}

func (c *traceChecker) equal(name string, got, want []int64) {
	if !slices.Equal(got, want) {
		c.fail("%s: values differ", name)
	}
}

// requant checks Acc·M + 2^(k−1) = Out·2^k + Rem with Rem ∈ [0, 2^k).
func (c *traceChecker) requant(r *Requant, shape ...int) {
	c.tensor(&r.Acc, shape...)
	c.tensor(&r.Out, shape...)
	c.tensor(&r.Rem, shape...)
	cols := shape[len(shape)-1]
	if len(r.Multiplier) != 1 && len(r.Multiplier) != cols {
		c.fail("%s: %d multipliers for %d columns", r.Out.Name, len(r.Multiplier), cols)
		return
	}
	if r.Shift < 1 || r.Shift > MaxShift {
		c.fail("%s: shift %d", r.Out.Name, r.Shift)
		return
	}
	pow := new(big.Int).Lsh(big.NewInt(1), r.Shift)
	half := new(big.Int).Rsh(pow, 1)
	lhs, rhs := new(big.Int), new(big.Int)
	for i, a := range r.Acc.Data {
		m := r.Multiplier[0]
		if len(r.Multiplier) == cols {
			m = r.Multiplier[i%cols]
		}
		if m <= 0 {
			c.fail("%s: multiplier %d", r.Out.Name, m)
			return
		}
		lhs.Mul(big.NewInt(a), big.NewInt(m))
		lhs.Add(lhs, half)
		rhs.Mul(big.NewInt(r.Out.Data[i]), pow)
		rhs.Add(rhs, big.NewInt(r.Rem.Data[i]))
		if lhs.Cmp(rhs) != 0 || r.Rem.Data[i] < 0 || big.NewInt(r.Rem.Data[i]).Cmp(pow) >= 0 {
			c.fail("%s[%d]: acc %d, multiplier %d, shift %d, out %d, rem %d", r.Out.Name, i, a, m, r.Shift, r.Out.Data[i], r.Rem.Data[i])
			return
		}
	}
}

func (c *traceChecker) lookup(l *Lookup, shape ...int) {
	c.tensor(&l.In, shape...)
	c.tensor(&l.Out, shape...)
	for i, x := range l.In.Data {
		y, ok := l.Table.Eval(x)
		if !ok || y != l.Out.Data[i] {
			c.fail("%s[%d]: %s(%d) = %d, trace says %d", l.Out.Name, i, l.Table.Name, x, y, l.Out.Data[i])
			return
		}
	}
}

func (c *traceChecker) matmul(mm *MatMul, input *Tensor, rows int) {
	out, in := mm.Weight.Shape[0], mm.Weight.Shape[1]
	c.equal(mm.Name+" input", mm.Input.Data, input.Data)
	c.tensor(&mm.Input, rows, in)
	for _, w := range mm.Weight.Data {
		if w < -WeightMax || w > WeightMax {
			c.fail("%s: weight %d", mm.Weight.Name, w)
			return
		}
	}
	if (mm.Bias != nil && c.m.Config.Family == Llama) || (mm.Bias != nil && len(mm.Bias) != out) {
		c.fail("%s: bias of length %d", mm.Name, len(mm.Bias))
		return
	}
	for r := range rows {
		for j := range out {
			var s int64
			for i := range in {
				s += mm.Input.Data[r*in+i] * int64(mm.Weight.Data[j*in+i])
			}
			if mm.Bias != nil {
				s += mm.Bias[j]
			}
			if mm.Acc.Data[r*out+j] != s {
				c.fail("%s: acc[%d][%d] = %d, want %d", mm.Name, r, j, mm.Acc.Data[r*out+j], s)
				return
			}
		}
	}
	c.requant(&mm.Requant, rows, out)
}

func (c *traceChecker) norm(nm *Norm, input *Tensor, rows int) {
	n := c.m.Config.Hidden
	c.equal(nm.Name+" input", nm.Input.Data, input.Data)
	c.tensor(&nm.Input, rows, n)
	layer := c.m.Config.Family == GPT2
	if layer {
		c.tensor(&nm.Sum, rows)
		c.tensor(&nm.Mean, rows)
		c.tensor(&nm.MeanRem, rows)
	}
	c.tensor(&nm.Centered, rows, n)
	c.tensor(&nm.SumSquares, rows)
	c.tensor(&nm.Exponent, rows)
	c.lookup(&nm.RSqrt, rows)
	c.tensor(&nm.RSqrtRem, rows)
	c.tensor(&nm.Scaled, rows, n)
	if len(c.err) > 0 {
		return
	}
	for r := range rows {
		row := nm.Input.Data[r*n : (r+1)*n]
		cen := nm.Centered.Data[r*n : (r+1)*n]
		if layer {
			var s int64
			for _, v := range row {
				s += v
			}
			if s != nm.Sum.Data[r] || s != nm.Mean.Data[r]*int64(n)+nm.MeanRem.Data[r] {
				c.fail("%s: mean of row %d", nm.Name, r)
			}
			for i, v := range row {
				if cen[i] != v-nm.Mean.Data[r] {
					c.fail("%s: centered[%d][%d]", nm.Name, r, i)
				}
			}
		} else if !slices.Equal(cen, row) {
			c.fail("%s: RMSNorm centered differs from its input", nm.Name)
		}
		v := nm.Epsilon
		for _, x := range cen {
			v += x * x
		}
		e := nm.Exponent.Data[r]
		small := nm.RSqrt.In.Data[r]
		if v != nm.SumSquares.Data[r] || v>>(2*e) != small || v-small<<(2*e) != nm.RSqrtRem.Data[r] {
			c.fail("%s: sum of squares of row %d", nm.Name, r)
		}
		if v >= int64(1)<<(tableBits+2*e) || (e > 0 && v < int64(1)<<(tableBits+2*e-2)) {
			c.fail("%s: exponent %d of row %d is not minimal for V = %d", nm.Name, e, r, v)
		}
		for i, x := range cen {
			u := x * nm.RSqrt.Out.Data[r] << (int64(nm.MaxExponent) - e)
			a := u * int64(nm.Gamma.Data[i])
			if nm.Beta != nil {
				a += nm.Beta[i]
			}
			if nm.Scaled.Data[r*n+i] != u || nm.Requant.Acc.Data[r*n+i] != a {
				c.fail("%s: scaled or acc [%d][%d]", nm.Name, r, i)
				return
			}
		}
	}
	c.requant(&nm.Requant, rows, n)
}

func (c *traceChecker) rope(rp *Rope, input *Tensor, rows, heads, start int) {
	hd := c.m.Config.HeadLayout().HeadDim
	half := hd / 2
	c.equal("rope input", rp.Input.Data, input.Data)
	c.lookup(&rp.Cos, rows, half)
	c.lookup(&rp.Sin, rows, half)
	for r := range rows {
		for j := range half {
			if rp.Cos.In.Data[r*half+j] != int64((start+r)*half+j) {
				c.fail("rope index [%d][%d]", r, j)
				return
			}
			cs, sn := rp.Cos.Out.Data[r*half+j], rp.Sin.Out.Data[r*half+j]
			for h := range heads {
				base := r*heads*hd + h*hd
				a, b := rp.Input.Data[base+j], rp.Input.Data[base+j+half]
				if rp.Acc.Data[base+j] != a*cs-b*sn || rp.Acc.Data[base+j+half] != b*cs+a*sn {
					c.fail("rope acc [%d][%d][%d]", r, h, j)
					return
				}
			}
		}
	}
	if len(rp.Multiplier) != 1 || rp.Multiplier[0] != 1 || rp.Shift != RopeFrac {
		c.fail("rope rescale %v >> %d", rp.Multiplier, rp.Shift)
	}
	c.requant(&rp.Requant, rows, heads*hd)
}

func (c *traceChecker) attention(a *Attention, query, key, value *Tensor, n int) {
	hl := c.m.Config.HeadLayout()
	heads, hd, kvd, d := hl.Heads, hl.HeadDim, hl.KVDim(), hl.QueryDim()
	group := hl.Group
	total := a.Start + n
	c.equal("attention query", a.Query.Data, query.Data)
	c.tensor(&a.Keys, total, kvd)
	c.tensor(&a.Values, total, kvd)
	if len(c.err) > 0 {
		return
	}
	c.equal("new keys", a.Keys.Data[a.Start*kvd:], key.Data)
	c.equal("new values", a.Values.Data[a.Start*kvd:], value.Data)
	c.requant(&a.Scores, heads, n, total)
	c.tensor(&a.RowMax, heads, n)
	c.tensor(&a.Shifted, heads, n, total)
	c.lookup(&a.ExpLow, heads, n, total)
	c.lookup(&a.ExpHigh, heads, n, total)
	c.tensor(&a.Exp, heads, n, total)
	c.tensor(&a.RowSum, heads, n)
	c.tensor(&a.Probs, heads, n, total)
	c.tensor(&a.ProbRem, heads, n, total)
	if len(c.err) > 0 {
		return
	}
	for h := range heads {
		g := h / group
		for i := range n {
			row := h*n + i
			var best int64 = -1 << 62
			var sum int64
			for j := range total {
				k := row*total + j
				masked := j > a.Start+i
				var s int64
				if !masked {
					for x := range hd {
						s += a.Query.Data[i*d+h*hd+x] * a.Keys.Data[j*kvd+g*hd+x]
					}
					best = max(best, a.Scores.Out.Data[k])
				}
				if a.Scores.Acc.Data[k] != s {
					c.fail("score acc [%d][%d][%d]", h, i, j)
					return
				}
			}
			if best != a.RowMax.Data[row] {
				c.fail("row max [%d][%d]", h, i)
			}
			for j := range total {
				k := row*total + j
				masked := j > a.Start+i
				z := a.Shifted.Data[k]
				if (masked && z != 0) || (!masked && z != best-a.Scores.Out.Data[k]) || z != a.ExpLow.In.Data[k]+a.ExpHigh.In.Data[k]<<tableBits || a.ExpLow.In.Data[k] >= 1<<tableBits {
					c.fail("shifted [%d][%d][%d]", h, i, j)
					return
				}
				e := a.ExpLow.Out.Data[k] * a.ExpHigh.Out.Data[k]
				if masked {
					e = 0
				}
				if a.Exp.Data[k] != e {
					c.fail("exp [%d][%d][%d]", h, i, j)
				}
				sum += e
			}
			if sum != a.RowSum.Data[row] {
				c.fail("row sum [%d][%d]", h, i)
			}
			for j := range total {
				k := row*total + j
				lhs := 2*a.Exp.Data[k]<<ProbFrac + sum
				if lhs != a.Probs.Data[k]*2*sum+a.ProbRem.Data[k] || a.ProbRem.Data[k] < 0 || a.ProbRem.Data[k] >= 2*sum {
					c.fail("probability [%d][%d][%d]", h, i, j)
					return
				}
			}
			for x := range hd {
				var s int64
				for j := range total {
					s += a.Probs.Data[row*total+j] * a.Values.Data[j*kvd+g*hd+x]
				}
				if a.Context.Acc.Data[i*d+h*hd+x] != s {
					c.fail("context acc [%d][%d][%d]", i, h, x)
					return
				}
			}
		}
	}
	c.requant(&a.Context, n, d)
}

func (c *traceChecker) sum(name string, out, a, b *Tensor) {
	for i := range out.Data {
		if out.Data[i] != a.Data[i]+b.Data[i] {
			c.fail("%s[%d] is not the sum of its operands", name, i)
			return
		}
	}
}

// check verifies tr, a pass over tr.Tokens starting at tr.Start.
func (c *traceChecker) check(tr *Trace) {
	cfg := &c.m.Config
	q := c.m.Quant
	n, d := len(tr.Tokens), cfg.Hidden
	c.tensor(&tr.Embedding, n, d)
	for r, tok := range tr.Tokens {
		for i := range d {
			want := q.TokenEmbedding[tok*d+i]
			if cfg.Family == GPT2 {
				want += q.PositionEmbedding[(tr.Start+r)*d+i]
			}
			if tr.Embedding.Data[r*d+i] != want {
				c.fail("embedding [%d][%d]", r, i)
				return
			}
		}
	}
	h := &tr.Embedding
	for li := range tr.Layers {
		l := &tr.Layers[li]
		c.equal(fmt.Sprintf("layer %d input", li), l.Input.Data, h.Data)
		c.norm(&l.AttnNorm, h, n)
		c.matmul(&l.Q, &l.AttnNorm.Out, n)
		c.matmul(&l.K, &l.AttnNorm.Out, n)
		c.matmul(&l.V, &l.AttnNorm.Out, n)
		query, key := &l.Q.Out, &l.K.Out
		if cfg.Family == Llama {
			c.rope(l.RopeQ, query, n, cfg.HeadLayout().Heads, tr.Start)
			c.rope(l.RopeK, key, n, cfg.HeadLayout().KVHeads, tr.Start)
			query, key = &l.RopeQ.Out, &l.RopeK.Out
		}
		c.attention(&l.Attention, query, key, &l.V.Out, n)
		c.matmul(&l.O, &l.Attention.Context.Out, n)
		c.tensor(&l.Mid, n, d)
		c.sum("mid", &l.Mid, h, &l.O.Out)
		c.norm(&l.MLPNorm, &l.Mid, n)
		c.matmul(&l.Up, &l.MLPNorm.Out, n)
		f := cfg.Intermediate
		hidden := &l.Activation.Out
		if cfg.Family == GPT2 {
			c.equal("activation input", l.Activation.In.Data, l.Up.Out.Data)
		} else {
			c.matmul(l.Gate, &l.MLPNorm.Out, n)
			c.equal("activation input", l.Activation.In.Data, l.Gate.Out.Data)
			for i := range l.Product.Acc.Data {
				if l.Product.Acc.Data[i] != l.Activation.Out.Data[i]*l.Up.Out.Data[i] {
					c.fail("product acc [%d]", i)
					break
				}
			}
			c.requant(l.Product, n, f)
			hidden = &l.Product.Out
		}
		c.lookup(&l.Activation, n, f)
		c.matmul(&l.Down, hidden, n)
		c.tensor(&l.Output, n, d)
		c.sum("output", &l.Output, &l.Mid, &l.Down.Out)
		h = &l.Output
	}
	c.norm(&tr.FinalNorm, h, n)
	c.matmul(&tr.LMHead, &tr.FinalNorm.Out, n)
	if tr.Next != Argmax(tr.LMHead.Out.Data[(n-1)*cfg.Vocab:]) {
		c.fail("next token")
	}
	for _, e := range c.err {
		c.t.Error(e)
	}
}

func checkTrace(t *testing.T, m *Model, tr *Trace) {
	t.Helper()
	(&traceChecker{t: t, m: m}).check(tr)
}
