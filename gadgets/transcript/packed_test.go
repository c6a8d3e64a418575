package transcript

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	native "github.com/veriformer/veriformer/transcript"
)

type packedCircuit struct {
	lo, hi int64
	Values []frontend.Variable
	State  frontend.Variable `gnark:",public"`
}

func (c *packedCircuit) Define(api frontend.API) error {
	tr, err := New(api, "packed")
	if err != nil {
		return err
	}
	if err := tr.AbsorbPacked(c.Values, c.lo, c.hi); err != nil {
		return err
	}
	api.AssertIsEqual(tr.State(), c.State)
	return nil
}

func nativeState[E field.Scalar, P field.Ptr[E]](t *testing.T, values []int64, lo, hi int64) string {
	tr := native.New[E, P]("packed")
	if err := tr.AbsorbPacked(values, lo, hi); err != nil {
		t.Fatal(err)
	}
	s := tr.State()
	return P(&s).String()
}

// TestAbsorbPacked: the circuit reaches the native state for the same
// tensor, and rejects a changed value and a value outside the range even
// when it packs to the same element (a carry into the next slot).
func TestAbsorbPacked(t *testing.T) {
	values := make([]int64, 40) // 3 packed elements of 16-bit values on both fields
	for i := range values {
		values[i] = int64(i*997%65535) - 32767
	}
	const lo, hi = -32767, 32767
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		var state string
		if curve == ecc.BN254 {
			state = nativeState[bn254fr.Element](t, values, lo, hi)
		} else {
			state = nativeState[bls12377fr.Element](t, values, lo, hi)
		}
		assign := func(vs []int64) *packedCircuit {
			c := &packedCircuit{lo: lo, hi: hi, State: state}
			for _, v := range vs {
				c.Values = append(c.Values, v)
			}
			return c
		}
		changed := append([]int64(nil), values...)
		changed[7]++
		// Same packed element: slot 0 gets 2¹⁶ more, slot 1 one less.
		carry := append([]int64(nil), values...)
		carry[0] += 1 << 16
		carry[1]--
		test.NewAssert(t).CheckCircuit(&packedCircuit{lo: lo, hi: hi, Values: make([]frontend.Variable, len(values))},
			test.WithValidAssignment(assign(values)),
			test.WithInvalidAssignment(assign(changed)),
			test.WithInvalidAssignment(assign(carry)),
			test.WithCurves(curve), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
	}
}
