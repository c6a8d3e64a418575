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
	lo, hi int64 `gnark:"-"`
	exact  bool  `gnark:"-"`
	Values []frontend.Variable
	State  frontend.Variable `gnark:",public"`
}

func (c *packedCircuit) Define(api frontend.API) error {
	tr, err := New(api, "packed")
	if err != nil {
		return err
	}
	absorb := tr.AbsorbPacked
	if c.exact {
		absorb = tr.AbsorbPackedExact
	}
	if err := absorb(c.Values, c.lo, c.hi); err != nil {
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

// TestAbsorbPackedExact: a value above hi but inside the packing window
// [lo, lo + 2^b) passes AbsorbPacked and fails AbsorbPackedExact, which
// accepts hi itself, on ranges whose window exceeds them by one value, two
// values (excluded one by one) and 47 values (a second range check); the
// states are the native ones.
func TestAbsorbPackedExact(t *testing.T) {
	type E = bn254fr.Element
	type tc struct {
		values []int64
		exact  bool
		ok     bool
	}
	for _, r := range []struct{ lo, hi int64 }{{-1023, 1023}, {-1023, 1022}, {-1000, 1000}} {
		lo, hi := r.lo, r.hi
		top := lo + 1<<11 - 1 // the window's last value (b = 11 for the three ranges)
		for _, c := range []tc{
			{[]int64{lo, 0, hi}, true, true},
			{[]int64{hi, lo, hi}, true, true},
			{[]int64{lo, 0, hi + 1}, false, true},
			{[]int64{lo, 0, hi + 1}, true, false},
			{[]int64{top, 0, hi}, true, false},
			{[]int64{lo, hi + 1, top}, true, false},
		} {
			placeholder := &packedCircuit{lo: lo, hi: hi, exact: c.exact, Values: make([]frontend.Variable, len(c.values))}
			assignment := &packedCircuit{lo: lo, hi: hi, exact: c.exact, State: nativeState[E](t, c.values, lo, hi)}
			for _, v := range c.values {
				assignment.Values = append(assignment.Values, v)
			}
			err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField())
			if (err == nil) != c.ok {
				t.Errorf("[%d, %d], values %v, exact %v: solved = %v, want %v", lo, hi, c.values, c.exact, err == nil, c.ok)
			}
		}
	}
}
