package requant

import (
	"fmt"
	"math/big"

	"github.com/veriformer/veriformer/poly"
)

// Spec is one rescaling step applied element-wise to a tensor:
//
//	Out·2^Shift + Rem = Acc·M + 2^(Shift−1),  Rem ∈ [0, 2^Shift),  Out ∈ [OutLo, OutHi]
//
// with M = Multiplier[c] for an element of column c (last index) when
// len(Multiplier) is the last dimension, and M = Multiplier[0] when it has
// one entry. Out and Rem are opened tensors; Acc is not: its MLE follows
// from theirs ([EvaluateAcc]).
type Spec struct {
	Shape        []int
	Multiplier   []int64
	Shift        uint
	OutLo, OutHi int64
}

// MaxShift is the largest shift accepted.
const MaxShift = 62

// Validate checks the spec's shape, multipliers and shift.
func (s *Spec) Validate() error {
	if _, _, err := poly.TensorVars(s.Shape); err != nil {
		return fmt.Errorf("requant: %w", err)
	}
	last := s.Shape[len(s.Shape)-1]
	if len(s.Multiplier) != 1 && len(s.Multiplier) != last {
		return fmt.Errorf("requant: %d multipliers for a last dimension of %d", len(s.Multiplier), last)
	}
	for c, m := range s.Multiplier {
		if m <= 0 {
			return fmt.Errorf("requant: multiplier %d is %d, not positive", c, m)
		}
	}
	if s.Shift < 1 || s.Shift > MaxShift {
		return fmt.Errorf("requant: shift %d outside [1, %d]", s.Shift, MaxShift)
	}
	if s.OutHi < s.OutLo {
		return fmt.Errorf("requant: empty output range [%d, %d]", s.OutLo, s.OutHi)
	}
	return nil
}

// Size is the number of elements.
func (s *Spec) Size() int {
	n := 1
	for _, d := range s.Shape {
		n *= d
	}
	return n
}

// Inverses returns M⁻¹ modulo the given field order for each multiplier.
func (s *Spec) Inverses(modulus *big.Int) []*big.Int {
	out := make([]*big.Int, len(s.Multiplier))
	for c, m := range s.Multiplier {
		out[c] = new(big.Int).ModInverse(big.NewInt(m), modulus)
	}
	return out
}
