package nonlinear

import (
	"fmt"

	"github.com/veriformer/veriformer/model"
)

// CheckLookup verifies Out[i] = Table(In[i]) for every element.
func CheckLookup(l *model.Lookup) error {
	if len(l.In.Data) != len(l.Out.Data) {
		return fmt.Errorf("nonlinear: %s: %d inputs and %d outputs", l.Table.Name, len(l.In.Data), len(l.Out.Data))
	}
	for i, x := range l.In.Data {
		y, ok := l.Table.Eval(x)
		if !ok {
			lo, hi := l.Table.Domain()
			return fmt.Errorf("nonlinear: %s: input %d = %d outside the domain [%d, %d]", l.Table.Name, i, x, lo, hi)
		}
		if y != l.Out.Data[i] {
			return fmt.Errorf("nonlinear: %s: output %d is %d, the table gives %d", l.Table.Name, i, l.Out.Data[i], y)
		}
	}
	return nil
}

// checkRequant verifies out·2^k + rem = acc·M + 2^(k−1) with rem ∈ [0, 2^k)
// for one element whose accumulator the caller computed.
func checkRequant(what string, i int, acc, m int64, k uint, out, rem int64) error {
	if rem < 0 || uint64(rem)>>k != 0 {
		return fmt.Errorf("nonlinear: %s: remainder %d = %d outside [0, 2^%d)", what, i, rem, k)
	}
	y, r, ok := model.Requantize(acc, m, k)
	if !ok || y != out || r != rem {
		return fmt.Errorf("nonlinear: %s: element %d is (%d, %d), the rounding of %d gives (%d, %d)", what, i, out, rem, acc, y, r)
	}
	return nil
}

// checkRange verifies lo ≤ v ≤ hi for every element.
func checkRange(t *model.Tensor, lo, hi int64) error {
	for i, v := range t.Data {
		if v < lo || v > hi {
			return fmt.Errorf("nonlinear: %s[%d] = %d outside [%d, %d]", t.Name, i, v, lo, hi)
		}
	}
	return nil
}

// CheckSoftmax verifies the softmax of an attention layer from its opened
// tensors — Scores.Out, RowMax, ExpHigh.In (the high limbs), Probs and
// ProbRem — and the exp table (model doc, "Attention"): for every row
// (h, i) over its unmasked entries j ≤ Start + i, with s = Scores.Out,
//
//	m = RowMax ≥ s_j, with equality for some j
//	z_j = m − s_j = lo_j + 2¹⁶·hi_j,  lo_j ∈ [0, 2¹⁶), hi_j ∈ [0, 2¹⁵)
//	x_j = EXP(lo_j)·[hi_j = 0],  Σ = Σ_j x_j
//	p_j·2Σ + ρ_j = 2·x_j·2^P + Σ,  ρ_j ∈ [0, 2Σ)
//
// and p_j = hi_j = 0 on masked entries. The derived tensors of the trace
// (Shifted, ExpLow.In, Exp, RowSum) are not read: they follow from these.
func CheckSoftmax(a *model.Attention) error {
	cube := a.Scores.Out.Shape
	if len(cube) != 3 {
		return fmt.Errorf("nonlinear: softmax over a tensor of shape %v", cube)
	}
	heads, n, total := cube[0], cube[1], cube[2]
	if a.Start+n != total {
		return fmt.Errorf("nonlinear: softmax: %d new rows from position %d over %d columns", n, a.Start, total)
	}
	size := heads * n * total
	for _, t := range []*model.Tensor{&a.Scores.Out, &a.ExpHigh.In, &a.Probs, &a.ProbRem} {
		if len(t.Data) != size {
			return fmt.Errorf("nonlinear: softmax: %s has %d entries, want %d", t.Name, len(t.Data), size)
		}
	}
	if len(a.RowMax.Data) != heads*n {
		return fmt.Errorf("nonlinear: softmax: row maxima of %d entries, want %d", len(a.RowMax.Data), heads*n)
	}
	const limb = 16
	s, p, rho, hi := a.Scores.Out.Data, a.Probs.Data, a.ProbRem.Data, a.ExpHigh.In.Data
	xs := make([]int64, total)
	for row := range heads * n {
		i := row % n
		m := a.RowMax.Data[row]
		base := row * total
		attained := false
		var sum int64
		clear(xs)
		for j := 0; j <= a.Start+i; j++ {
			k := base + j
			z := m - s[k]
			if z < 0 {
				return fmt.Errorf("nonlinear: softmax row %d: score %d exceeds the row maximum %d", row, s[k], m)
			}
			attained = attained || z == 0
			lo := z - hi[k]<<limb
			if hi[k] < 0 || hi[k] >= 1<<15 || lo < 0 || lo >= 1<<limb {
				return fmt.Errorf("nonlinear: softmax row %d column %d: shifted score %d does not split with high limb %d", row, j, z, hi[k])
			}
			e, ok := a.ExpLow.Table.Eval(lo)
			if !ok {
				return fmt.Errorf("nonlinear: softmax row %d column %d: exp input %d outside the table", row, j, lo)
			}
			if hi[k] != 0 {
				e = 0
			}
			xs[j] = e
			sum += e
		}
		if !attained {
			return fmt.Errorf("nonlinear: softmax row %d: the row maximum %d is not a score", row, m)
		}
		for j := range total {
			k := base + j
			if j > a.Start+i && (p[k] != 0 || hi[k] != 0) {
				return fmt.Errorf("nonlinear: softmax row %d column %d: masked entry with probability %d and high limb %d", row, j, p[k], hi[k])
			}
			if rho[k] < 0 || rho[k] >= 2*sum || p[k]*2*sum+rho[k] != 2*xs[j]<<model.ProbFrac+sum {
				return fmt.Errorf("nonlinear: softmax row %d column %d: (%d, %d) is not the rounded quotient of %d by %d", row, j, p[k], rho[k], 2*xs[j]<<model.ProbFrac+sum, 2*sum)
			}
		}
	}
	return nil
}

// CheckNorm verifies a LayerNorm (withMean) or RMSNorm from its opened
// input to its opened output (model doc, "Norms"): the row statistics,
// the normalisation exponent and its minimality, the 1/√ lookup, and the
// final requantization of (c·T·2^(Eₘₐₓ−e))·γ + β.
func CheckNorm(nm *model.Norm, withMean bool) error {
	shape := nm.Input.Shape
	if len(shape) != 2 {
		return fmt.Errorf("nonlinear: %s: input of shape %v", nm.Name, shape)
	}
	rows, n := shape[0], shape[1]
	if len(nm.Gamma.Data) != n || (nm.Beta != nil && len(nm.Beta) != n) || len(nm.Multiplier) != 1 {
		return fmt.Errorf("nonlinear: %s: weights do not match a row of %d", nm.Name, n)
	}
	if len(nm.Out.Data) != rows*n || len(nm.Rem.Data) != rows*n || len(nm.Exponent.Data) != rows || len(nm.RSqrt.In.Data) != rows || len(nm.RSqrt.Out.Data) != rows || len(nm.RSqrtRem.Data) != rows {
		return fmt.Errorf("nonlinear: %s: tensors do not match %d rows of %d", nm.Name, rows, n)
	}
	if withMean && (len(nm.Mean.Data) != rows || len(nm.MeanRem.Data) != rows) {
		return fmt.Errorf("nonlinear: %s: mean tensors do not match %d rows", nm.Name, rows)
	}
	if err := CheckLookup(&nm.RSqrt); err != nil {
		return err
	}
	for r := range rows {
		h := nm.Input.Data[r*n : (r+1)*n]
		var mu int64
		if withMean {
			var s int64
			for _, v := range h {
				s += v
			}
			mu = nm.Mean.Data[r]
			rem := nm.MeanRem.Data[r]
			if rem < 0 || rem >= int64(n) || mu*int64(n)+rem != s {
				return fmt.Errorf("nonlinear: %s row %d: mean %d and remainder %d do not divide the sum %d by %d", nm.Name, r, mu, rem, s, n)
			}
		}
		v := nm.Epsilon
		for _, x := range h {
			v += (x - mu) * (x - mu)
		}
		e := nm.Exponent.Data[r]
		small, vRem := nm.RSqrt.In.Data[r], nm.RSqrtRem.Data[r]
		if e < 0 || e > int64(nm.MaxExponent) {
			return fmt.Errorf("nonlinear: %s row %d: exponent %d outside [0, %d]", nm.Name, r, e, nm.MaxExponent)
		}
		if vRem < 0 || vRem >= 1<<(2*e) || small<<(2*e)+vRem != v {
			return fmt.Errorf("nonlinear: %s row %d: (%d, %d) is not the division of %d by 4^%d", nm.Name, r, small, vRem, v, e)
		}
		if small >= 1<<16 || (e > 0 && small < 1<<14) {
			return fmt.Errorf("nonlinear: %s row %d: exponent %d is not the smallest for %d", nm.Name, r, e, v)
		}
		t := nm.RSqrt.Out.Data[r]
		shift := int64(nm.MaxExponent) - e
		for i, x := range h {
			acc := (x - mu) * t << shift * int64(nm.Gamma.Data[i])
			if nm.Beta != nil {
				acc += nm.Beta[i]
			}
			k := r*n + i
			if err := checkRequant(nm.Name, k, acc, nm.Multiplier[0], nm.Shift, nm.Out.Data[k], nm.Rem.Data[k]); err != nil {
				return err
			}
		}
	}
	return checkRange(&nm.Out, nm.Out.Min, nm.Out.Max)
}

// CheckRope verifies a rotary embedding from its opened input to its
// opened output: for the row at position p = start + r and pair j the
// table values C, S at index p·hd/2 + j and
//
//	out_j·2^k + rem_j = x_j·C − x_{j+hd/2}·S + 2^(k−1)
//	out_{j+hd/2}·2^k + rem_{j+hd/2} = x_{j+hd/2}·C + x_j·S + 2^(k−1)
func CheckRope(rp *model.Rope, start, heads int) error {
	shape := rp.Input.Shape
	if len(shape) != 2 || shape[1]%heads != 0 || (shape[1]/heads)%2 != 0 {
		return fmt.Errorf("nonlinear: rope over shape %v with %d heads", shape, heads)
	}
	rows, width := shape[0], shape[1]
	hd := width / heads
	half := hd / 2
	if len(rp.Out.Data) != rows*width || len(rp.Rem.Data) != rows*width || len(rp.Multiplier) != 1 {
		return fmt.Errorf("nonlinear: rope: tensors do not match shape %v", shape)
	}
	for r := range rows {
		for j := range half {
			idx := int64((start+r)*half + j)
			c, ok1 := rp.Cos.Table.Eval(idx)
			s, ok2 := rp.Sin.Table.Eval(idx)
			if !ok1 || !ok2 {
				return fmt.Errorf("nonlinear: rope: position %d outside the tables", start+r)
			}
			for h := range heads {
				base := r*width + h*hd
				a, b := rp.Input.Data[base+j], rp.Input.Data[base+j+half]
				for _, e := range []struct {
					k   int
					acc int64
				}{{base + j, a*c - b*s}, {base + j + half, b*c + a*s}} {
					if err := checkRequant("rope", e.k, e.acc, rp.Multiplier[0], rp.Shift, rp.Out.Data[e.k], rp.Rem.Data[e.k]); err != nil {
						return err
					}
				}
			}
		}
	}
	return checkRange(&rp.Out, rp.Out.Min, rp.Out.Max)
}

// CheckArgmax verifies that next is the argmax of logits, ties broken by
// the smallest index: logits[next] ≥ logits[j] for all j, strictly for
// j < next.
func CheckArgmax(logits []int64, next int) error {
	if next < 0 || next >= len(logits) {
		return fmt.Errorf("nonlinear: token %d outside a vocabulary of %d", next, len(logits))
	}
	best := logits[next]
	for j, l := range logits {
		if l > best || (j < next && l == best) {
			return fmt.Errorf("nonlinear: token %d (logit %d) is not the first argmax: token %d has logit %d", next, best, j, l)
		}
	}
	return nil
}

// CheckSum verifies the residual add sum = a + b element-wise and its
// range.
func CheckSum(a, b, sum *model.Tensor) error {
	if len(a.Data) != len(sum.Data) || len(b.Data) != len(sum.Data) {
		return fmt.Errorf("nonlinear: %s: operands of %d and %d entries for %d", sum.Name, len(a.Data), len(b.Data), len(sum.Data))
	}
	for i := range sum.Data {
		if a.Data[i]+b.Data[i] != sum.Data[i] {
			return fmt.Errorf("nonlinear: %s[%d] = %d, not %d + %d", sum.Name, i, sum.Data[i], a.Data[i], b.Data[i])
		}
	}
	return checkRange(sum, sum.Min, sum.Max)
}

// CheckProduct verifies the gated product of a Llama MLP from its opened
// factors: out·2^k + rem = a·b·M + 2^(k−1) with rem ∈ [0, 2^k), element by
// element (a = SiLU(gate), b = up). Both factors are opened, so the
// product needs no sum-check.
func CheckProduct(a, b *model.Tensor, r *model.Requant) error {
	if len(a.Data) != len(b.Data) || len(r.Out.Data) != len(a.Data) || len(r.Rem.Data) != len(a.Data) || len(r.Multiplier) != 1 {
		return fmt.Errorf("nonlinear: product of %d and %d entries into %d", len(a.Data), len(b.Data), len(r.Out.Data))
	}
	for i := range a.Data {
		if err := checkRequant("product", i, a.Data[i]*b.Data[i], r.Multiplier[0], r.Shift, r.Out.Data[i], r.Rem.Data[i]); err != nil {
			return err
		}
	}
	return checkRange(&r.Out, r.Out.Min, r.Out.Max)
}
