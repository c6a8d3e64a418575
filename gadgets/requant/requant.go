package requant

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	npoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/protocol/requant"
)

// EvaluateAcc returns the MLE at point of the zero-padded accumulator that
// Out and Rem determine, Acc = (Out·2^k + Rem − 2^(k−1))·M⁻¹: the eq table
// of the point and one multiplication per element (the rest are constant
// linear combinations). paddedIndex maps each element to its index in the
// padded layout (poly.PaddedIndices of the native package).
func EvaluateAcc(api frontend.API, s *native.Spec, out, rem []frontend.Variable, paddedIndex []int, point []frontend.Variable) (frontend.Variable, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	_, total, _ := npoly.TensorVars(s.Shape)
	if len(out) != s.Size() || len(rem) != s.Size() || len(paddedIndex) != s.Size() || len(point) != total {
		return nil, fmt.Errorf("requant: tensors or point do not match shape %v", s.Shape)
	}
	inv := s.Inverses(api.Compiler().Field())
	pow := new(big.Int).Lsh(big.NewInt(1), s.Shift)
	half := new(big.Int).Lsh(big.NewInt(1), s.Shift-1)
	eq := poly.EqTable(api, point)
	terms := make([]frontend.Variable, len(out))
	for i := range out {
		acc := api.Mul(api.Sub(api.Add(api.Mul(out[i], pow), rem[i]), half), inv[i%len(inv)])
		terms[i] = api.Mul(eq[paddedIndex[i]], acc)
	}
	if len(terms) == 1 {
		return terms[0], nil
	}
	return api.Add(terms[0], terms[1], terms[2:]...), nil
}
