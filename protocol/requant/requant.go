package requant

import (
	"fmt"
	"math/big"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// Check verifies the element-wise ranges of the opened tensors: every Rem in
// [0, 2^Shift) and every Out in [OutLo, OutHi].
func Check(s *Spec, out, rem []int64) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if len(out) != s.Size() || len(rem) != s.Size() {
		return fmt.Errorf("requant: %d outputs and %d remainders for %d elements", len(out), len(rem), s.Size())
	}
	for i := range out {
		if rem[i] < 0 || uint64(rem[i])>>s.Shift != 0 {
			return fmt.Errorf("requant: remainder %d = %d outside [0, 2^%d)", i, rem[i], s.Shift)
		}
		if out[i] < s.OutLo || out[i] > s.OutHi {
			return fmt.Errorf("requant: output %d = %d outside [%d, %d]", i, out[i], s.OutLo, s.OutHi)
		}
	}
	return nil
}

// EvaluateAcc returns the MLE at point of the (zero-padded) accumulator
// that Out and Rem determine: Acc = (Out·2^k + Rem − 2^(k−1))·M⁻¹ in the
// field, which is the integer accumulator when Check passes.
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
