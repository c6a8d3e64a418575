package transcript

import (
	"math/big"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

	native "github.com/veriformer/veriformer/transcript"
)

// AbsorbPacked is the twin of the native AbsorbPacked: it range-checks
// each value to [lo, lo + 2^b) with b = bitlen(hi − lo) — the packing is
// then injective — packs them as the native layout does (a linear
// combination, free in R1CS) and absorbs the count and the packed
// elements. A tensor of N values of b bits costs N range checks of b bits
// and N/⌊(bits(p)−1)/b⌋ + 1 permutations.
//
// The check is v − lo < 2^b, slightly wider than [lo, hi] when hi − lo + 1
// is not a power of two; callers that need the exact range check it apart.
func (t *Transcript) AbsorbPacked(values []frontend.Variable, lo, hi int64) error {
	layout, err := native.Layout(lo, hi, t.api.Compiler().FieldBitLen())
	if err != nil {
		return err
	}
	rc := rangecheck.New(t.api)
	shifted := make([]frontend.Variable, len(values))
	for i, v := range values {
		shifted[i] = t.api.Sub(v, lo)
		rc.Check(shifted[i], layout.Bits)
	}
	t.Absorb(len(values))
	base := new(big.Int).Lsh(big.NewInt(1), uint(layout.Bits))
	for i := 0; i < len(values); i += layout.PerElement {
		var acc frontend.Variable = 0
		for j := min(len(values), i+layout.PerElement) - 1; j >= i; j-- {
			acc = t.api.Add(t.api.Mul(acc, base), shifted[j])
		}
		t.Absorb(acc)
	}
	return nil
}
