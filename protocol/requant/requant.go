package requant

import (
	"fmt"
	"math/big"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// EvaluateAcc returns the MLE at point of the (zero-padded) accumulator
// that Out and Rem determine: Acc = (Out·2^k + Rem − 2^(k−1))·M⁻¹ in the
// field, which is the integer accumulator when Out and Rem lie in their
// ranges (the package documentation, "Ranges").
func EvaluateAcc[E field.Scalar, P field.Ptr[E]](s *Spec, out, rem []int64, point []E) (E, error) {
	var res E
	if err := s.Validate(); err != nil {
		return res, err
	}
	_, total, _ := poly.TensorVars(s.Shape)
	if len(point) != total {
		return res, fmt.Errorf("requant: point of %d variables for shape %v", len(point), s.Shape)
	}
	idx, _ := poly.PaddedIndices(s.Shape)
	return EvaluateAccIndexed[E, P](s, out, rem, idx, point)
}

// EvaluateAccIndexed is EvaluateAcc for a tensor laid out by another
// padding rule: element i sits at index[i] of a table of 2^len(point)
// entries.
func EvaluateAccIndexed[E field.Scalar, P field.Ptr[E]](s *Spec, out, rem []int64, idx []int, point []E) (E, error) {
	var res E
	if err := s.Validate(); err != nil {
		return res, err
	}
	if len(out) != s.Size() || len(rem) != s.Size() || len(idx) != s.Size() {
		return res, fmt.Errorf("requant: %d outputs, %d remainders and %d indices for %d elements", len(out), len(rem), len(idx), s.Size())
	}
	for _, i := range idx {
		if i < 0 || i >= 1<<len(point) {
			return res, fmt.Errorf("requant: index %d outside a table of 2^%d entries", i, len(point))
		}
	}
	inverses := s.Inverses(field.Modulus[E]())
	eq := poly.EqTable[E, P](point)
	var pow, half, t, acc E
	P(&pow).SetBigInt(new(big.Int).Lsh(big.NewInt(1), s.Shift))
	P(&half).SetBigInt(new(big.Int).Lsh(big.NewInt(1), s.Shift-1))
	invs := make([]E, len(inverses))
	for c := range inverses {
		P(&invs[c]).SetBigInt(inverses[c])
	}
	for i := range out {
		P(&acc).SetInt64(out[i])
		P(&acc).Mul(&acc, &pow)
		P(&t).SetInt64(rem[i])
		P(&acc).Add(&acc, &t)
		P(&acc).Sub(&acc, &half)
		P(&acc).Mul(&acc, &invs[i%len(invs)])
		P(&acc).Mul(&acc, &eq[idx[i]])
		P(&res).Add(&res, &acc)
	}
	return res, nil
}
