package model

import (
	"fmt"
	"slices"
)

// Cache is the KV cache of the integer pass: per layer, the keys (after
// RoPE) and values of the Len positions processed so far, row-major
// [Len, KVDim] of the head layout (Config.HeadLayout).
//
// Capacity, when above the positions a pass reaches, fixes the number
// of key rows its attention runs over: the tensors Keys and Values of
// [Attention] get zero rows up to Capacity, which every query row
// masks, and the cube of scores is [Heads, n, Capacity], so that every
// pass of n rows over a cache of that capacity has the same shapes
// whatever Len is (a conversation's turns). Zero keeps the pass's own
// T = Len + n.
type Cache struct {
	Len      int
	Keys     [][]int64
	Values   [][]int64
	Capacity int
}

// NewCache returns an empty cache for m.
func (m *Model) NewCache() *Cache {
	return &Cache{Keys: make([][]int64, m.Config.Layers), Values: make([][]int64, m.Config.Layers)}
}

// Clone returns a copy of the cache that shares no memory with c.
func (c *Cache) Clone() *Cache {
	out := &Cache{Len: c.Len, Capacity: c.Capacity, Keys: make([][]int64, len(c.Keys)), Values: make([][]int64, len(c.Values))}
	for l := range c.Keys {
		out.Keys[l] = append([]int64(nil), c.Keys[l]...)
	}
	for l := range c.Values {
		out.Values[l] = append([]int64(nil), c.Values[l]...)
	}
	return out
}

// Truncate keeps the first n positions of the cache (a turn's pass
// computes rows past the ones its conversation keeps).
func (c *Cache) Truncate(n int) error {
	if n < 0 || n > c.Len {
		return fmt.Errorf("model: cannot keep %d of the cache's %d positions", n, c.Len)
	}
	for l := range c.Keys {
		w := len(c.Keys[l]) / max(c.Len, 1)
		c.Keys[l] = c.Keys[l][: n*w : n*w]
		c.Values[l] = c.Values[l][: n*w : n*w]
	}
	c.Len = n
	return nil
}

func tensor(name string, shape []int, data []int64, frac int, lo, hi int64) Tensor {
	return Tensor{Name: name, Shape: shape, Data: data, Frac: frac, Min: lo, Max: hi}
}

// requant applies Requantize to every element of acc with the multiplier
// of its column (or mult[0]) and checks the outputs against [lo, hi].
func requant(name string, acc Tensor, mult []int64, shift uint, frac int, lo, hi int64) (Requant, error) {
	out := make([]int64, len(acc.Data))
	rem := make([]int64, len(acc.Data))
	cols := acc.Shape[len(acc.Shape)-1]
	perColumn := len(mult) == cols && len(mult) > 1
	for i, a := range acc.Data {
		m := mult[0]
		if perColumn {
			m = mult[i%cols]
		}
		y, r, ok := Requantize(a, m, shift)
		if !ok || y < lo || y > hi {
			return Requant{}, &BoundError{Tensor: name, Index: i, Value: y, Min: lo, Max: hi}
		}
		out[i], rem[i] = y, r
	}
	return Requant{
		Acc:        acc,
		Multiplier: mult,
		Shift:      shift,
		Out:        tensor(name, acc.Shape, out, frac, lo, hi),
		Rem:        tensor(name+".rem", acc.Shape, rem, 0, 0, int64(1)<<shift-1),
	}, nil
}

// linear runs one quantized projection on in ([rows, In]).
func linear(name string, q *QLinear, in Tensor, rows int) (MatMul, error) {
	out, inDim := q.Weight.Shape[0], q.Weight.Shape[1]
	acc := MatMulInt(in.Data, rows, inDim, q.Weight.Data, out, q.Bias)
	bound := int64(1) << accumulatorBits
	r, err := requant(name, tensor(name+".acc", []int{rows, out}, acc, q.InFrac, -bound, bound), q.Multiplier, q.Shift, q.OutFrac, q.OutLo, q.OutHi)
	if err != nil {
		return MatMul{}, err
	}
	return MatMul{Name: name, Input: in, Weight: &q.Weight, Bias: q.Bias, Requant: r}, nil
}

func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// norm runs a quantized LayerNorm (withMean) or RMSNorm on in ([rows, n]).
func (m *Model) norm(name string, q *QNorm, in Tensor, rows int) (Norm, error) {
	n := m.Config.Hidden
	withMean := m.Config.Family == GPT2
	t := m.Quant.Tables.RSqrt
	out := Norm{Name: name, Input: in, Epsilon: q.Epsilon, MaxExponent: q.MaxExponent, Gamma: &q.Gamma, Beta: q.Beta}
	sum := make([]int64, 0, rows)
	mean := make([]int64, 0, rows)
	meanRem := make([]int64, 0, rows)
	centered := in.Data
	if withMean {
		centered = make([]int64, rows*n)
	}
	sumSq := make([]int64, rows)
	exponent := make([]int64, rows)
	rsIn := make([]int64, rows)
	rsOut := make([]int64, rows)
	rsRem := make([]int64, rows)
	scaled := make([]int64, rows*n)
	acc := make([]int64, rows*n)
	for r := range rows {
		row := in.Data[r*n : (r+1)*n]
		c := centered[r*n : (r+1)*n]
		if withMean {
			var s int64
			for _, v := range row {
				s += v
			}
			mu, rem := floorDiv(s, int64(n))
			sum, mean, meanRem = append(sum, s), append(mean, mu), append(meanRem, rem)
			for i, v := range row {
				c[i] = v - mu
			}
		}
		v := q.Epsilon
		for _, x := range c {
			v += x * x
		}
		e := normExponentFor(v)
		small := v >> (2 * e)
		tv, ok := t.Eval(small)
		if !ok {
			return Norm{}, fmt.Errorf("model: %s: %w", name, &BoundError{Tensor: name + ".rsqrt.in", Index: r, Value: small, Min: 1, Max: 1<<tableBits - 1})
		}
		sumSq[r], exponent[r], rsIn[r], rsOut[r], rsRem[r] = v, int64(e), small, tv, v-small<<(2*e)
		shift := q.MaxExponent - e
		for i, x := range c {
			u := x * tv << shift
			scaled[r*n+i] = u
			a := u * int64(q.Gamma.Data[i])
			if q.Beta != nil {
				a += q.Beta[i]
			}
			acc[r*n+i] = a
		}
	}
	resLo, resHi := rangeOf(ResidualBits)
	bound := int64(1) << accumulatorBits
	rowShape := []int{rows}
	if withMean {
		out.Sum = tensor(name+".sum", rowShape, sum, q.InFrac, int64(n)*resLo, int64(n)*resHi)
		out.Mean = tensor(name+".mean", rowShape, mean, q.InFrac, resLo, resHi)
		out.MeanRem = tensor(name+".mean_rem", rowShape, meanRem, 0, 0, int64(n)-1)
		out.Centered = tensor(name+".centered", in.Shape, centered, q.InFrac, 2*resLo, 2*resHi)
	} else {
		out.Centered = in
	}
	out.SumSquares = tensor(name+".sum_squares", rowShape, sumSq, 0, 1, bound)
	out.Exponent = tensor(name+".exponent", rowShape, exponent, 0, 0, int64(q.MaxExponent))
	rsLo, rsHi := t.OutputRange()
	out.RSqrt = Lookup{Table: t, In: tensor(name+".rsqrt.in", rowShape, rsIn, 0, 1, 1<<tableBits-1), Out: tensor(name+".rsqrt", rowShape, rsOut, RSqrtFrac, rsLo, rsHi)}
	out.RSqrtRem = tensor(name+".rsqrt_rem", rowShape, rsRem, 0, 0, int64(1)<<(2*q.MaxExponent)-1)
	uBound := int64(1) << (RSqrtFrac + q.MaxExponent + 1)
	out.Scaled = tensor(name+".scaled", in.Shape, scaled, RSqrtFrac+q.MaxExponent, -uBound, uBound)
	lo, hi := rangeOf(ActivationBits)
	req, err := requant(name, tensor(name+".acc", in.Shape, acc, 0, -bound, bound), []int64{q.Multiplier}, q.Shift, q.OutFrac, lo, hi)
	if err != nil {
		return Norm{}, err
	}
	out.Requant = req
	return out, nil
}

// rope rotates in ([rows, heads·hd], hd the head layout's) at positions
// start…start+rows−1, or with begins at start + r − begins[r] for row r.
func (m *Model) rope(name string, in Tensor, rows, heads, start int, begins []int) (*Rope, error) {
	hd := m.Config.HeadLayout().HeadDim
	half := hd / 2
	tc, ts := m.Quant.Tables.RopeCos, m.Quant.Tables.RopeSin
	idx := make([]int64, rows*half)
	for r := range rows {
		for j := range half {
			idx[r*half+j] = int64(position(start, r, begins)*half + j)
		}
	}
	cos, err := tc.apply(name+".cos.in", idx)
	if err != nil {
		return nil, err
	}
	sin, err := ts.apply(name+".sin.in", idx)
	if err != nil {
		return nil, err
	}
	width := heads * hd
	acc := make([]int64, rows*width)
	for r := range rows {
		for h := range heads {
			base := r*width + h*hd
			for j := range half {
				c, s := cos[r*half+j], sin[r*half+j]
				a, b := in.Data[base+j], in.Data[base+j+half]
				acc[base+j] = a*c - b*s
				acc[base+j+half] = b*c + a*s
			}
		}
	}
	tableShape := []int{rows, half}
	inT := tensor(name+".index", tableShape, idx, 0, 0, int64(tc.Len()-1))
	one := int64(1) << RopeFrac
	lo, hi := rangeOf(ActivationBits)
	req, err := requant(name, tensor(name+".acc", in.Shape, acc, in.Frac+RopeFrac, -(2*hi+1)*one, (2*hi+1)*one), []int64{1}, RopeFrac, in.Frac, lo, hi)
	if err != nil {
		return nil, err
	}
	return &Rope{
		Input:   in,
		Cos:     Lookup{Table: tc, In: inT, Out: tensor(name+".cos", tableShape, cos, RopeFrac, -one, one)},
		Sin:     Lookup{Table: ts, In: inT, Out: tensor(name+".sin", tableShape, sin, RopeFrac, -one, one)},
		Requant: req,
	}, nil
}

// position is row r's position: start + r, or start + r − begins[r] in
// a stacked pass.
func position(start, r int, begins []int) int {
	if begins == nil {
		return start + r
	}
	return start + r - begins[r]
}

// positions returns one past the last position of n rows from start (a
// stacked pass's rows may exceed the context: each request's positions
// may not).
func positions(start, n int, begins []int) int {
	if begins == nil {
		return start + n
	}
	last := 0
	for r := range n {
		last = max(last, position(start, r, begins)+1)
	}
	return last
}

// first is the first key row query row i attends to: 0, or begins[i] in a
// stacked pass (the first row of its request).
func first(i int, begins []int) int {
	if begins == nil {
		return 0
	}
	return begins[i]
}

// attention runs causal attention of q ([n, Heads·hd]) against keys and
// values ([T, KVHeads·hd]), in the head layout: query row i attends to
// the key rows first(i) … start + i.
func (m *Model) attention(name string, q, keys, values Tensor, n, start int, begins []int) (Attention, error) {
	hl := m.Config.HeadLayout()
	heads, hd, kvd, d := hl.Heads, hl.HeadDim, hl.KVDim(), hl.QueryDim()
	group := hl.Group
	total := keys.Shape[0]
	size := heads * n * total
	scoreAcc := make([]int64, size)
	for h := range heads {
		g := h / group
		for i := range n {
			qi := q.Data[i*d+h*hd : i*d+(h+1)*hd]
			for j := first(i, begins); j <= start+i; j++ {
				kj := keys.Data[j*kvd+g*hd : j*kvd+(g+1)*hd]
				var s int64
				for x, qv := range qi {
					s += qv * kj[x]
				}
				scoreAcc[(h*n+i)*total+j] = s
			}
		}
	}
	cube := []int{heads, n, total}
	rows := []int{heads, n}
	_, actHi := rangeOf(ActivationBits)
	accBound := int64(hd) * actHi * actHi
	scoreLo, scoreHi := rangeOf(ScoreBits)
	scores, err := requant(name+".scores", tensor(name+".scores.acc", cube, scoreAcc, 2*q.Frac, -accBound, accBound), []int64{m.Quant.Score.Multiplier}, m.Quant.Score.Shift, ScoreFrac, scoreLo, scoreHi)
	if err != nil {
		return Attention{}, err
	}
	rowMax := make([]int64, heads*n)
	shifted := make([]int64, size)
	low := make([]int64, size)
	high := make([]int64, size)
	for h := range heads {
		for i := range n {
			row := scores.Out.Data[(h*n+i)*total : (h*n+i+1)*total]
			lo := first(i, begins)
			best := row[lo]
			for j := lo + 1; j <= start+i; j++ {
				best = max(best, row[j])
			}
			rowMax[h*n+i] = best
			for j := lo; j <= start+i; j++ {
				z := best - row[j]
				k := (h*n+i)*total + j
				shifted[k], low[k], high[k] = z, z&(1<<tableBits-1), z>>tableBits
			}
		}
	}
	tables := &m.Quant.Tables
	expLow, err := tables.Exp.apply(name+".exp_low.in", low)
	if err != nil {
		return Attention{}, err
	}
	expHigh, err := tables.ExpHigh.apply(name+".exp_high.in", high)
	if err != nil {
		return Attention{}, err
	}
	exp := make([]int64, size)
	rowSum := make([]int64, heads*n)
	probs := make([]int64, size)
	probRem := make([]int64, size)
	for h := range heads {
		for i := range n {
			base := (h*n + i) * total
			var sum int64
			for j := first(i, begins); j <= start+i; j++ {
				exp[base+j] = expLow[base+j] * expHigh[base+j]
				sum += exp[base+j]
			}
			rowSum[h*n+i] = sum
			for j := range total {
				p, r := floorDiv(2*exp[base+j]<<ProbFrac+sum, 2*sum)
				probs[base+j], probRem[base+j] = p, r
			}
		}
	}
	ctxAcc := make([]int64, n*d)
	for h := range heads {
		g := h / group
		for i := range n {
			o := ctxAcc[i*d+h*hd : i*d+(h+1)*hd]
			for j := first(i, begins); j <= start+i; j++ {
				p := probs[(h*n+i)*total+j]
				vj := values.Data[j*kvd+g*hd : j*kvd+(g+1)*hd]
				for x, v := range vj {
					o[x] += p * v
				}
			}
		}
	}
	one := int64(1) << ExpFrac
	sumHi := int64(total) * one
	ctxBound := (int64(1)<<ProbFrac + int64(total)) * actHi
	lo, hi := rangeOf(ActivationBits)
	ctx, err := requant(name+".context", tensor(name+".context.acc", []int{n, d}, ctxAcc, ProbFrac+values.Frac, -ctxBound, ctxBound), []int64{m.Quant.Context.Multiplier}, m.Quant.Context.Shift, m.Quant.Formats.Context, lo, hi)
	if err != nil {
		return Attention{}, err
	}
	expLowLo, expLowHi := tables.Exp.OutputRange()
	return Attention{
		Start:   start,
		Begins:  begins,
		Query:   q,
		Keys:    keys,
		Values:  values,
		Scores:  scores,
		RowMax:  tensor(name+".row_max", rows, rowMax, ScoreFrac, scoreLo, scoreHi),
		Shifted: tensor(name+".shifted", cube, shifted, ScoreFrac, 0, 2*scoreHi),
		ExpLow: Lookup{Table: tables.Exp,
			In:  tensor(name+".exp_low.in", cube, low, 0, 0, 1<<tableBits-1),
			Out: tensor(name+".exp_low", cube, expLow, ExpFrac, expLowLo, expLowHi)},
		ExpHigh: Lookup{Table: tables.ExpHigh,
			In:  tensor(name+".exp_high.in", cube, high, 0, 0, 1<<(ScoreBits+1-tableBits)-1),
			Out: tensor(name+".exp_high", cube, expHigh, 0, 0, 1)},
		Exp:     tensor(name+".exp", cube, exp, ExpFrac, 0, one),
		RowSum:  tensor(name+".row_sum", rows, rowSum, ExpFrac, one, sumHi),
		Probs:   tensor(name+".probs", cube, probs, ProbFrac, 0, int64(1)<<ProbFrac),
		ProbRem: tensor(name+".prob_rem", cube, probRem, 0, 0, 2*sumHi-1),
		Context: ctx,
	}, nil
}

// add returns a + b checked against the residual range.
func add(name string, a, b Tensor) (Tensor, error) {
	lo, hi := rangeOf(ResidualBits)
	out := make([]int64, len(a.Data))
	for i := range out {
		out[i] = a.Data[i] + b.Data[i]
	}
	if err := checkRange(name, out, lo, hi); err != nil {
		return Tensor{}, err
	}
	return tensor(name, a.Shape, out, a.Frac, lo, hi), nil
}

// Forward runs the integer pass over tokens at positions cache.Len…, appends
// their keys and values to cache and returns the trace. On error the
// cache is unchanged.
func (m *Model) Forward(cache *Cache, tokens []int) (*Trace, error) {
	return m.forward(cache, tokens, nil)
}

// ForwardStacked runs the integer pass over requests stacked in rows,
// from position 0 and without a cache: row i holds tokens[i] and belongs
// to the request whose first row is begins[i]. Each request's rows are
// computed as its own pass would compute them: a row attends to the rows
// of its request up to itself (the causal mask is block-diagonal), and a
// row's position is its row less its request's first (positions restart
// per request). begins must be non-decreasing, with begins[0] = 0 and
// begins[i] either begins[i−1] or i.
func (m *Model) ForwardStacked(tokens, begins []int) (*Trace, error) {
	if err := CheckBegins(begins, len(tokens)); err != nil {
		return nil, err
	}
	return m.forward(m.NewCache(), tokens, slices.Clone(begins))
}

// CheckBegins checks the layout of a stacked pass of n rows: begins[i] is
// the first row of row i's request, so begins[0] = 0 and each begins[i]
// is begins[i−1] (the same request) or i (a new one).
func CheckBegins(begins []int, n int) error {
	if len(begins) != n {
		return fmt.Errorf("model: %d request starts for %d rows", len(begins), n)
	}
	for i, b := range begins {
		prev := 0
		if i > 0 {
			prev = begins[i-1]
		}
		if b != prev && b != i {
			return fmt.Errorf("model: row %d starts its request at row %d: want %d (the row before's) or %d (a new request)", i, b, prev, i)
		}
	}
	return nil
}

// forward is Forward; with begins, the stacked pass of ForwardStacked
// (cache empty).
func (m *Model) forward(cache *Cache, tokens, begins []int) (*Trace, error) {
	c := &m.Config
	q := m.Quant
	if cache == nil || len(cache.Keys) != c.Layers || len(cache.Values) != c.Layers {
		return nil, fmt.Errorf("model: forward needs a cache from NewCache")
	}
	hl := c.HeadLayout()
	start, n, d, kvd := cache.Len, len(tokens), c.Hidden, hl.KVDim()
	for l := range c.Layers {
		if start < 0 || len(cache.Keys[l]) != start*kvd || len(cache.Values[l]) != start*kvd {
			return nil, fmt.Errorf("model: forward: cache layer %d does not hold %d positions of width %d", l, start, kvd)
		}
	}
	last := positions(start, n, begins)
	if err := checkTokens(c, tokens, last-n); err != nil {
		return nil, err
	}
	if c.Family == Llama && last > q.RopePositions {
		return nil, fmt.Errorf("model: %d positions exceed the %d positions of the RoPE tables", last, q.RopePositions)
	}
	total := max(start+n, cache.Capacity)
	if total > c.MaxPositions && begins == nil {
		return nil, fmt.Errorf("model: a cache of capacity %d exceeds the context length %d", cache.Capacity, c.MaxPositions)
	}
	lo, hi := rangeOf(ResidualBits)
	emb := make([]int64, n*d)
	for r, tok := range tokens {
		copy(emb[r*d:(r+1)*d], q.TokenEmbedding[tok*d:(tok+1)*d])
		if c.Family == GPT2 {
			pos := position(start, r, begins)
			for i, p := range q.PositionEmbedding[pos*d : (pos+1)*d] {
				emb[r*d+i] += p
			}
		}
	}
	if err := checkRange("embedding", emb, lo, hi); err != nil {
		return nil, err
	}
	tr := &Trace{Family: c.Family, Tokens: append([]int(nil), tokens...), Start: start, Begins: begins}
	tr.Embedding = tensor("embedding", []int{n, d}, emb, q.Formats.Residual, lo, hi)
	h := tr.Embedding
	newKeys := make([][]int64, c.Layers)
	newValues := make([][]int64, c.Layers)
	for li := range q.Layers {
		ql := &q.Layers[li]
		p := fmt.Sprintf("layer.%d.", li)
		l := Layer{Index: li, Input: h}
		var err error
		if l.AttnNorm, err = m.norm(p+"attn_norm", &ql.AttnNorm, h, n); err != nil {
			return nil, err
		}
		x := l.AttnNorm.Out
		if l.Q, err = linear(p+"q", &ql.Q, x, n); err != nil {
			return nil, err
		}
		if l.K, err = linear(p+"k", &ql.K, x, n); err != nil {
			return nil, err
		}
		if l.V, err = linear(p+"v", &ql.V, x, n); err != nil {
			return nil, err
		}
		query, key := l.Q.Out, l.K.Out
		if c.Family == Llama {
			if l.RopeQ, err = m.rope(p+"rope_q", query, n, hl.Heads, start, begins); err != nil {
				return nil, err
			}
			if l.RopeK, err = m.rope(p+"rope_k", key, n, hl.KVHeads, start, begins); err != nil {
				return nil, err
			}
			query, key = l.RopeQ.Out, l.RopeK.Out
		}
		keys := append(cache.Keys[li][:start*kvd:start*kvd], key.Data...)
		values := append(cache.Values[li][:start*kvd:start*kvd], l.V.Out.Data...)
		newKeys[li], newValues[li] = keys, values
		kvShape := []int{total, kvd}
		pad := make([]int64, (total-start-n)*kvd)
		keysT := tensor(p+"keys", kvShape, append(keys[:len(keys):len(keys)], pad...), key.Frac, key.Min, key.Max)
		valuesT := tensor(p+"values", kvShape, append(values[:len(values):len(values)], pad...), l.V.Out.Frac, l.V.Out.Min, l.V.Out.Max)
		if l.Attention, err = m.attention(p+"attn", query, keysT, valuesT, n, start, begins); err != nil {
			return nil, err
		}
		if l.O, err = linear(p+"o", &ql.O, l.Attention.Context.Out, n); err != nil {
			return nil, err
		}
		if l.Mid, err = add(p+"mid", h, l.O.Out); err != nil {
			return nil, err
		}
		if l.MLPNorm, err = m.norm(p+"mlp_norm", &ql.MLPNorm, l.Mid, n); err != nil {
			return nil, err
		}
		x = l.MLPNorm.Out
		if l.Up, err = linear(p+"up", &ql.Up, x, n); err != nil {
			return nil, err
		}
		act := m.Quant.Tables.Activation
		actIn := l.Up.Out
		if c.Family == Llama {
			gate, err := linear(p+"gate", ql.Gate, x, n)
			if err != nil {
				return nil, err
			}
			l.Gate = &gate
			actIn = gate.Out
		}
		actOut, err := act.apply(p+"act.in", actIn.Data)
		if err != nil {
			return nil, err
		}
		actLo, actHi := rangeOf(ActivationBits)
		l.Activation = Lookup{Table: act, In: actIn, Out: tensor(p+"act", actIn.Shape, actOut, actIn.Frac, actLo, actHi)}
		hidden := l.Activation.Out
		if c.Family == Llama {
			prod := make([]int64, len(actOut))
			for i, a := range actOut {
				prod[i] = a * l.Up.Out.Data[i]
			}
			pb := actHi * actHi
			r, err := requant(p+"product", tensor(p+"product.acc", actIn.Shape, prod, actIn.Frac+l.Up.Out.Frac, -pb, pb), []int64{q.Product.Multiplier}, q.Product.Shift, q.Formats.Hidden, actLo, actHi)
			if err != nil {
				return nil, err
			}
			l.Product = &r
			hidden = r.Out
		}
		if l.Down, err = linear(p+"down", &ql.Down, hidden, n); err != nil {
			return nil, err
		}
		if l.Output, err = add(p+"output", l.Mid, l.Down.Out); err != nil {
			return nil, err
		}
		h = l.Output
		tr.Layers = append(tr.Layers, l)
	}
	var err error
	if tr.FinalNorm, err = m.norm("final_norm", &q.FinalNorm, h, n); err != nil {
		return nil, err
	}
	if tr.LMHead, err = linear("lm_head", &q.LMHead, tr.FinalNorm.Out, n); err != nil {
		return nil, err
	}
	tr.Next = Argmax(tr.LMHead.Out.Data[(n-1)*c.Vocab:])
	cache.Len = start + n
	copy(cache.Keys, newKeys)
	copy(cache.Values, newValues)
	return tr, nil
}

// Argmax returns the index of the largest value, the smallest such index
// on ties.
func Argmax(x []int64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// Generation is the result of greedy decoding.
type Generation struct {
	Prompt []int
	// Tokens are the generated tokens.
	Tokens []int
	// Traces has one pass per generated token: the prompt first, then each
	// generated token but the last (whose successor is not computed).
	Traces []*Trace
}

// Generate greedily decodes n tokens after prompt with the integer pass
// and a KV cache.
func (m *Model) Generate(prompt []int, n int) (*Generation, error) {
	if n < 1 {
		return nil, fmt.Errorf("model: generate: want at least one new token, got %d", n)
	}
	if len(prompt)+n-1 > m.Config.MaxPositions {
		return nil, fmt.Errorf("model: generate: prompt of %d tokens plus %d new exceeds the context length %d", len(prompt), n, m.Config.MaxPositions)
	}
	g := &Generation{Prompt: append([]int(nil), prompt...)}
	cache := m.NewCache()
	input := prompt
	for i := range n {
		tr, err := m.Forward(cache, input)
		if err != nil {
			return nil, fmt.Errorf("model: generate token %d: %w", i, err)
		}
		g.Traces = append(g.Traces, tr)
		g.Tokens = append(g.Tokens, tr.Next)
		input = []int{tr.Next}
	}
	return g, nil
}

// Continue greedily decodes n tokens after prompt over a copy of cache
// (a conversation's history; cache itself is unchanged), as Generate does
// from an empty cache.
func (m *Model) Continue(cache *Cache, prompt []int, n int) ([]int, error) {
	if n < 1 {
		return nil, fmt.Errorf("model: continue: want at least one new token, got %d", n)
	}
	c := cache.Clone()
	c.Capacity = 0
	input := prompt
	var out []int
	for i := range n {
		tr, err := m.Forward(c, input)
		if err != nil {
			return nil, fmt.Errorf("model: continue, token %d: %w", i, err)
		}
		out = append(out, tr.Next)
		input = []int{tr.Next}
	}
	return out, nil
}
