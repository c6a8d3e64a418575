package transcript

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/veriformer/veriformer/field"
)

// PackedLayout describes how AbsorbPacked packs integers in [Lo, Hi]: each
// value v becomes v − Lo ∈ [0, 2^Bits) and PerElement of them go into one
// field element, the first in the least significant bits.
type PackedLayout struct {
	Lo, Hi     int64
	Bits       int
	PerElement int
}

// Layout returns the packing of values in [lo, hi] for a field of
// fieldBits bits: ⌊(fieldBits − 1)/b⌋ values of b = bitlen(hi − lo) bits
// per element, so a packed element is below 2^(fieldBits−1) and never
// wraps.
func Layout(lo, hi int64, fieldBits int) (PackedLayout, error) {
	if hi < lo {
		return PackedLayout{}, fmt.Errorf("transcript: empty range [%d, %d]", lo, hi)
	}
	span := uint64(hi) - uint64(lo)
	b := max(bits.Len64(span), 1)
	if b > 62 {
		return PackedLayout{}, fmt.Errorf("transcript: range [%d, %d] wider than 2^62", lo, hi)
	}
	return PackedLayout{Lo: lo, Hi: hi, Bits: b, PerElement: (fieldBits - 1) / b}, nil
}

// Pack returns the field elements of values under the layout, or an error
// if a value is outside [Lo, Lo + 2^Bits) — the range the circuit checks,
// which contains [Lo, Hi].
func Pack[E field.Scalar, P field.Ptr[E]](layout PackedLayout, values []int64) ([]E, error) {
	out := make([]E, (len(values)+layout.PerElement-1)/layout.PerElement)
	acc := new(big.Int)
	for i := range out {
		acc.SetUint64(0)
		end := min(len(values), (i+1)*layout.PerElement)
		for j := end - 1; j >= i*layout.PerElement; j-- {
			v := values[j]
			if v < layout.Lo || (uint64(v)-uint64(layout.Lo))>>layout.Bits != 0 {
				return nil, fmt.Errorf("transcript: value %d = %d outside [%d, %d + 2^%d)", j, v, layout.Lo, layout.Lo, layout.Bits)
			}
			acc.Lsh(acc, uint(layout.Bits))
			acc.Add(acc, new(big.Int).SetUint64(uint64(v)-uint64(layout.Lo)))
		}
		P(&out[i]).SetBigInt(acc)
	}
	return out, nil
}

// AbsorbPacked binds a tensor of integers in [lo, hi] to the transcript:
// it absorbs the number of values, then the values packed by [Layout].
// The in-circuit twin range-checks each value, so the packing is
// injective and the digest binds the tensor itself.
func (t *Transcript[E, P]) AbsorbPacked(values []int64, lo, hi int64) error {
	layout, err := Layout(lo, hi, field.Bits[E]())
	if err != nil {
		return err
	}
	packed, err := Pack[E, P](layout, values)
	if err != nil {
		return err
	}
	var n E
	P(&n).SetUint64(uint64(len(values)))
	t.Absorb(n)
	t.Absorb(packed...)
	return nil
}
