package poly

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	native "github.com/veriformer/veriformer/poly"
)

// shiftedCircuit evaluates ShiftedCausal with start a witness.
type shiftedCircuit struct {
	Rho, Gamma []frontend.Variable
	Start, Z   frontend.Variable
	rows, bits int
}

func (c *shiftedCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(ShiftedCausal(api, c.Rho, c.Gamma, c.rows, c.Start, c.bits), c.Z)
	return nil
}

func newShifted(nr, nk, rows, bits int) *shiftedCircuit {
	return &shiftedCircuit{Rho: make([]frontend.Variable, nr), Gamma: make([]frontend.Variable, nk), rows: rows, bits: bits}
}

// TestShiftedCausalVariableStart: one circuit per shape serves every
// start: at random points its value is the native automaton's for the
// assigned start (every start of startBits bits); the value of another
// start is refused, and so is a start of more bits.
func TestShiftedCausalVariableStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	scalar := ecc.BLS12_377.ScalarField()
	for _, c := range []struct{ nr, nk, rows, bits int }{{2, 3, 4, 3}, {3, 4, 5, 4}, {4, 6, 16, 5}, {0, 3, 1, 3}} {
		t.Run(fmt.Sprintf("rows=%d keys=2^%d start<2^%d", c.rows, c.nk, c.bits), func(t *testing.T) {
			rho := field.RandomVector[bls12377fr.Element](rng, c.nr)
			gamma := field.RandomVector[bls12377fr.Element](rng, c.nk)
			assign := func(start int, z bls12377fr.Element) *shiftedCircuit {
				a := newShifted(c.nr, c.nk, c.rows, c.bits)
				for i := range rho {
					a.Rho[i] = field.BigInt(&rho[i])
				}
				for i := range gamma {
					a.Gamma[i] = field.BigInt(&gamma[i])
				}
				a.Start, a.Z = start, field.BigInt(&z)
				return a
			}
			placeholder := newShifted(c.nr, c.nk, c.rows, c.bits)
			for start := range 1 << c.bits {
				want := native.ShiftedCausal[bls12377fr.Element](rho, gamma, c.rows, start)
				if err := test.IsSolved(placeholder, assign(start, want), scalar); err != nil {
					t.Fatalf("start %d: %v", start, err)
				}
				other := native.ShiftedCausal[bls12377fr.Element](rho, gamma, c.rows, start+1)
				if !other.Equal(&want) && test.IsSolved(placeholder, assign(start, other), scalar) == nil {
					t.Errorf("start %d: the value of start %d accepted", start, start+1)
				}
			}
			far := native.ShiftedCausal[bls12377fr.Element](rho, gamma, c.rows, 1<<c.bits)
			if test.IsSolved(placeholder, assign(1<<c.bits, far), scalar) == nil {
				t.Errorf("start 2^%d accepted", c.bits)
			}
		})
	}
}

// shiftedCounts compiles ShiftedCausal of a 16-row bucket against 2^10
// keys with a 10-bit variable start, and with a constant start.
func shiftedCounts(t *testing.T) [][]string {
	t.Helper()
	count := func(c frontend.Circuit) string {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(ccs.GetNbConstraints())
	}
	variable := newShifted(4, 10, 16, 10)
	fixed := &shiftedConstCircuit{shiftedCircuit: *newShifted(4, 10, 16, 10), start: 600}
	return [][]string{
		{"ShiftedCausal", "rows=16 keys=2^10 start variable (10 bits)", count(variable)},
		{"ShiftedCausal", "rows=16 keys=2^10 start=600", count(fixed)},
	}
}

// shiftedConstCircuit is shiftedCircuit with a constant start.
type shiftedConstCircuit struct {
	shiftedCircuit
	start int
}

func (c *shiftedConstCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(ShiftedCausal(api, c.Rho, c.Gamma, c.rows, c.start, c.bits), c.Z)
	return nil
}
