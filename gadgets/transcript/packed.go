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
// is not a power of two; [Transcript.AbsorbPackedExact] checks the exact
// range.
func (t *Transcript) AbsorbPacked(values []frontend.Variable, lo, hi int64) error {
	return t.absorbPacked(values, lo, hi, false)
}

// AbsorbPackedExact is [Transcript.AbsorbPacked] with the exact range
// lo ≤ v ≤ hi. The packing's check v − lo < 2^b leaves g = 2^b − (hi − lo +
// 1) values above hi in the window, and the cheapest exclusion of them is
// chosen per range:
//
//   - g = 0 (the window is the range, as for every range of the model's
//     kinds, [−2^k, 2^k − 1]): nothing is added;
//   - g ≤ 2: v ≠ hi + 1, …, hi + g, asserted as one non-zero product — g
//     constraints per value;
//   - otherwise hi − v is range-checked to b bits as well, which with
//     v − lo < 2^b pins v to [lo, hi] (the two differences sum to hi − lo,
//     far below the field's order).
func (t *Transcript) AbsorbPackedExact(values []frontend.Variable, lo, hi int64) error {
	return t.absorbPacked(values, lo, hi, true)
}

// maxExcluded is the largest number of window values above hi that
// [Transcript.AbsorbPackedExact] excludes one by one rather than with a
// second range check (about 3–5 constraints).
const maxExcluded = 2

func (t *Transcript) absorbPacked(values []frontend.Variable, lo, hi int64, exact bool) error {
	layout, err := native.Layout(lo, hi, t.api.Compiler().FieldBitLen())
	if err != nil {
		return err
	}
	gap := uint64(0)
	if exact {
		gap = 1<<layout.Bits - (uint64(hi) - uint64(lo) + 1)
	}
	rc := rangecheck.New(t.api)
	shifted := make([]frontend.Variable, len(values))
	for i, v := range values {
		shifted[i] = t.api.Sub(v, lo)
		rc.Check(shifted[i], layout.Bits)
		switch {
		case gap == 0:
		case gap <= maxExcluded:
			var product frontend.Variable = 1
			for k := range gap {
				product = t.api.Mul(product, t.api.Sub(v, hi+1+int64(k)))
			}
			t.api.AssertIsDifferent(product, 0)
		default:
			rc.Check(t.api.Sub(hi, v), layout.Bits)
		}
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
