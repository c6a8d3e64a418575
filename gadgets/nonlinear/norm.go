package nonlinear

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/model"
)

// NormSpec describes a LayerNorm (WithMean) or RMSNorm over Rows rows of N
// values (model doc, "Norms"): its constants and the checked ranges of
// its opened tensors.
type NormSpec struct {
	Rows, N     int
	WithMean    bool
	Epsilon     int64
	MaxExponent int
	RSqrt       *model.Table
	// Gamma ([N]) and Beta ([N], nil for RMSNorm) are the fixed weights.
	Gamma []int64
	Beta  []int64
	// Multiplier and Shift rescale the output into [OutLo, OutHi].
	Multiplier   int64
	Shift        uint
	OutLo, OutHi int64
	// InLo and InHi bound the input (the residual range): the mean lies
	// in it too.
	InLo, InHi int64
}

// NormTensors are the opened tensors of a norm: Input and Out, Rem are
// [Rows, N]; the others are [Rows] (Mean and MeanRem empty for RMSNorm).
type NormTensors struct {
	Input, Mean, MeanRem      []frontend.Variable
	Exponent, Small, SmallRem []frontend.Variable
	RSqrt                     []frontend.Variable
	Out, Rem                  []frontend.Variable
}

// Norm constrains the tensors of one norm. Per row: the mean and its
// remainder (LayerNorm), V = Σ cᵢ² + ε (N multiplications), the exponent e
// ∈ [0, Eₘₐₓ] and 4^e, 2^(Eₘₐₓ−e) by small lookups, v·4^e + r = V with
// r ∈ [0, 4^e), v ∈ [1, 2¹⁶) and v ≥ 2¹⁴ when e > 0 (minimality), T =
// RSQRT(v) by lookup; per element: uᵢ = cᵢ·(T·2^(Eₘₐₓ−e)) (one
// multiplication) and the requantization of uᵢ·γᵢ + βᵢ (one product check,
// two range checks).
func (c *Checker) Norm(sp NormSpec, t NormTensors) error {
	api := c.api
	rows, n := sp.Rows, sp.N
	if len(t.Input) != rows*n || len(t.Out) != rows*n || len(t.Rem) != rows*n || len(sp.Gamma) != n ||
		len(t.Exponent) != rows || len(t.Small) != rows || len(t.SmallRem) != rows || len(t.RSqrt) != rows ||
		(sp.Beta != nil && len(sp.Beta) != n) || (sp.WithMean && (len(t.Mean) != rows || len(t.MeanRem) != rows)) {
		return fmt.Errorf("nonlinear: norm tensors do not match %d rows of %d", rows, n)
	}
	e := sp.MaxExponent
	pow4 := make([]*big.Int, e+1)
	pow2 := make([]*big.Int, e+1)
	for k := range e + 1 {
		pow4[k] = new(big.Int).Lsh(big.NewInt(1), uint(2*k))
		pow2[k] = new(big.Int).Lsh(big.NewInt(1), uint(e-k))
	}
	p4 := c.smallTable(fmt.Sprintf("pow4/%d", e), pow4)
	p2 := c.smallTable(fmt.Sprintf("pow2/%d", e), pow2)
	remBits := max(2*e, 1)
	for r := range rows {
		h := t.Input[r*n : (r+1)*n]
		var mu frontend.Variable = 0
		if sp.WithMean {
			var s frontend.Variable = 0
			for _, v := range h {
				s = api.Add(s, v)
			}
			mu = t.Mean[r]
			c.Range(t.MeanRem[r], 0, int64(n-1))
			c.Range(mu, sp.InLo, sp.InHi)
			api.AssertIsEqual(api.Add(api.Mul(mu, n), t.MeanRem[r]), s)
		}
		centered := make([]frontend.Variable, n)
		var v frontend.Variable = sp.Epsilon
		for i := range h {
			centered[i] = api.Sub(h[i], mu)
			v = api.Add(v, api.Mul(centered[i], centered[i]))
		}
		c.Range(t.Exponent[r], 0, int64(e))
		scale := p4.Lookup(t.Exponent[r])[0]
		c.rc.Check(t.SmallRem[r], remBits)
		c.rc.Check(api.Sub(api.Sub(scale, 1), t.SmallRem[r]), remBits)
		api.AssertIsEqual(api.Add(api.Mul(t.Small[r], scale), t.SmallRem[r]), v)
		// v ≥ 2¹⁴ when e > 0; v < 2¹⁶ and v ≥ 1 by the 1/√ lookup.
		positive := api.Sub(1, api.IsZero(t.Exponent[r]))
		c.rc.Check(api.Sub(t.Small[r], api.Mul(positive, 1<<14)), 16)
		api.AssertIsEqual(c.lookupOut(sp.RSqrt, t.Small[r:r+1])[0], t.RSqrt[r])
		g := api.Mul(t.RSqrt[r], p2.Lookup(t.Exponent[r])[0])
		for i := range h {
			acc := api.Mul(api.Mul(centered[i], g), sp.Gamma[i])
			if sp.Beta != nil {
				acc = api.Add(acc, sp.Beta[i])
			}
			k := r*n + i
			c.requant(acc, sp.Multiplier, sp.Shift, t.Out[k], t.Rem[k], sp.OutLo, sp.OutHi)
		}
	}
	return nil
}
