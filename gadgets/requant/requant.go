package requant

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/veriformer/veriformer/gadgets/poly"
	npoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/protocol/requant"
)

// Checker range-checks the opened tensors of requantization steps; one
// Checker (one gnark range checker) serves a whole circuit.
type Checker struct {
	api frontend.API
	rc  frontend.Rangechecker
}

// New returns a Checker.
func New(api frontend.API) *Checker {
	return &Checker{api: api, rc: rangecheck.New(api)}
}

// Assert constrains every Rem to [0, 2^Shift) and every Out to its exact
// range [OutLo, OutHi]: out − OutLo and OutHi − out in b = bitlen(OutHi −
// OutLo) bits each (one check when OutHi − OutLo + 1 = 2^b; the window
// [OutLo, OutLo + 2^b) alone would admit outputs the model rejects). Cost:
// one range check of Shift bits and one or two of b bits per element.
func (c *Checker) Assert(s *native.Spec, out, rem []frontend.Variable) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if len(out) != s.Size() || len(rem) != s.Size() {
		return fmt.Errorf("requant: %d outputs and %d remainders for %d elements", len(out), len(rem), s.Size())
	}
	span := uint64(s.OutHi) - uint64(s.OutLo)
	outBits := max(bits.Len64(span), 1)
	for i := range out {
		c.rc.Check(rem[i], int(s.Shift))
		c.rc.Check(c.api.Sub(out[i], s.OutLo), outBits)
		if span+1 != 1<<outBits {
			c.rc.Check(c.api.Sub(s.OutHi, out[i]), outBits)
		}
	}
	return nil
}

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
