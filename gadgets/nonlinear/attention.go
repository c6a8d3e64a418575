package nonlinear

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/model"
)

// SoftmaxShape is the shape of causal attention scores: Heads × Rows ×
// Columns, where the Rows new rows sit at positions Start…Start+Rows−1 and
// Columns = Start + Rows; entry (h, i, j) is masked when j > Start + i.
type SoftmaxShape struct {
	Heads, Rows, Start int
}

// Columns returns Start + Rows.
func (s SoftmaxShape) Columns() int { return s.Start + s.Rows }

// Softmax constrains the probabilities of causal attention from the
// opened scores (model doc, "Attention"). Opened tensors: Scores (the
// requantized scores, [Heads, Rows, Columns]), RowMax ([Heads, Rows]),
// High (the high 16-bit limb of each shifted score) and Probs, ProbRem
// (all [Heads, Rows, Columns]). Per row over its unmasked entries j:
//
//	z_j = m − s_j,  lo_j = z_j − 2¹⁶·hi_j,  hi_j ∈ [0, 2¹⁵),  lo_j ∈ [0, 2¹⁶) (by the exp lookup)
//	Π_j z_j = 0     (the maximum is a score)
//	x_j = EXP(lo_j)·[hi_j = 0],  Σ = Σ_j x_j
//	p_j·2Σ + ρ_j = 2·x_j·2^P + Σ,  ρ_j ∈ [0, 2Σ),  p_j ∈ [0, 2^(P+1))
//
// and p_j = hi_j = 0 on masked entries. Cost per unmasked entry: an exp lookup,
// an equality test, about four multiplications and four range checks.
func (c *Checker) Softmax(sh SoftmaxShape, exp *model.Table, scores, rowMax, high, probs, probRem []frontend.Variable) error {
	api := c.api
	total := sh.Columns()
	size := sh.Heads * sh.Rows * total
	if len(scores) != size || len(high) != size || len(probs) != size || len(probRem) != size || len(rowMax) != sh.Heads*sh.Rows {
		return fmt.Errorf("nonlinear: softmax tensors do not match %d×%d×%d", sh.Heads, sh.Rows, total)
	}
	const limb = 16
	limbBase := big.NewInt(1 << limb)
	two := new(big.Int).Lsh(big.NewInt(2), model.ProbFrac)
	// ρ < 2Σ ≤ 2·Columns·2^ExpFrac.
	remBits := bits.Len64(uint64(2*total) << model.ExpFrac)
	for row := range sh.Heads * sh.Rows {
		i := row % sh.Rows
		base := row * total
		unmasked := sh.Start + i + 1
		m := rowMax[row]
		zs := make([]frontend.Variable, unmasked)
		lows := make([]frontend.Variable, unmasked)
		for j := range unmasked {
			zs[j] = api.Sub(m, scores[base+j])
			c.rc.Check(high[base+j], 15)
			lows[j] = api.Sub(zs[j], api.Mul(high[base+j], limbBase))
		}
		var prod frontend.Variable = 1
		for _, z := range zs {
			prod = api.Mul(prod, z)
		}
		api.AssertIsEqual(prod, 0)
		expLow := c.lookupOut(exp, lows)
		xs := make([]frontend.Variable, unmasked)
		var sum frontend.Variable = 0
		for j := range unmasked {
			xs[j] = api.Mul(expLow[j], api.IsZero(high[base+j]))
			sum = api.Add(sum, xs[j])
		}
		twoSum := api.Mul(sum, 2)
		for j := range total {
			k := base + j
			var x frontend.Variable = 0
			if j < unmasked {
				x = xs[j]
				c.rc.Check(probs[k], model.ProbFrac+1)
			} else {
				api.AssertIsEqual(probs[k], 0)
				api.AssertIsEqual(high[k], 0)
			}
			api.AssertIsEqual(api.Add(api.Mul(probs[k], twoSum), probRem[k]), api.Add(api.Mul(x, two), sum))
			c.rc.Check(probRem[k], remBits)
			c.rc.Check(api.Sub(api.Sub(twoSum, 1), probRem[k]), remBits)
		}
	}
	return nil
}

// lookupOut returns T(in[i]) by lookup, constraining in[i] to T's domain.
func (c *Checker) lookupOut(t *model.Table, in []frontend.Variable) []frontend.Variable {
	idx := make([]frontend.Variable, len(in))
	for i := range in {
		idx[i] = c.api.Sub(in[i], t.Lo)
	}
	return c.table(t).Lookup(idx...)
}

// RopeSpec describes a rotary embedding of Rows rows at positions
// Start…Start+Rows−1, Heads heads of dimension HeadDim, with the model's
// cos/sin tables, rescaled by (Multiplier, Shift) into [OutLo, OutHi].
type RopeSpec struct {
	Rows, Start, Heads, HeadDim int
	Cos, Sin                    *model.Table
	Multiplier                  int64
	Shift                       uint
	OutLo, OutHi                int64
}

// Rope constrains out, rem ([Rows, Heads·HeadDim]) to be the rotation of
// in: positions are known when the circuit is built, so the cos and sin
// values are constants and the rotated accumulator is a linear form; each
// element costs one product check and two range checks.
func (c *Checker) Rope(sp RopeSpec, in, out, rem []frontend.Variable) error {
	width := sp.Heads * sp.HeadDim
	half := sp.HeadDim / 2
	if sp.HeadDim%2 != 0 || len(in) != sp.Rows*width || len(out) != len(in) || len(rem) != len(in) {
		return fmt.Errorf("nonlinear: rope tensors do not match %d rows of %d×%d", sp.Rows, sp.Heads, sp.HeadDim)
	}
	for r := range sp.Rows {
		for j := range half {
			idx := int64((sp.Start+r)*half + j)
			cos, ok1 := sp.Cos.Eval(idx)
			sin, ok2 := sp.Sin.Eval(idx)
			if !ok1 || !ok2 {
				return fmt.Errorf("nonlinear: rope position %d outside the tables", sp.Start+r)
			}
			for h := range sp.Heads {
				base := r*width + h*sp.HeadDim
				a, b := in[base+j], in[base+j+half]
				first := c.api.Sub(c.api.Mul(a, cos), c.api.Mul(b, sin))
				second := c.api.Add(c.api.Mul(b, cos), c.api.Mul(a, sin))
				c.requant(first, sp.Multiplier, sp.Shift, out[base+j], rem[base+j], sp.OutLo, sp.OutHi)
				c.requant(second, sp.Multiplier, sp.Shift, out[base+j+half], rem[base+j+half], sp.OutLo, sp.OutHi)
			}
		}
	}
	return nil
}
