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

// weightsCircuit evaluates ShiftedCausalWeights of x = eq(e, ·)·eq(r, ·)
// and y = eq(γ, ·) with start a witness.
type weightsCircuit struct {
	E, R, Gamma []frontend.Variable
	Start, Z    frontend.Variable
	rows, bits  int
}

func (c *weightsCircuit) Define(api frontend.API) error {
	wj := make([][2]frontend.Variable, len(c.E))
	for i := range c.E {
		wj[i] = [2]frontend.Variable{api.Mul(api.Sub(1, c.E[i]), api.Sub(1, c.R[i])), api.Mul(c.E[i], c.R[i])}
	}
	wk := make([][2]frontend.Variable, len(c.Gamma))
	for i, g := range c.Gamma {
		wk[i] = [2]frontend.Variable{api.Sub(1, g), g}
	}
	api.AssertIsEqual(ShiftedCausalWeights(api, wj, wk, c.rows, c.Start, c.bits), c.Z)
	return nil
}

// TestShiftedCausalWeights: the shifted causal sum of a product of two eq
// tables against eq(γ, ·), in circuit with a variable start, is the
// native ShiftedCausalWeights's, which is the sum over the tables; the
// value of another start is refused.
func TestShiftedCausalWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	scalar := ecc.BLS12_377.ScalarField()
	const nr, nk, rows, bits = 3, 4, 8, 4
	e := field.RandomVector[bls12377fr.Element](rng, nr)
	r := field.RandomVector[bls12377fr.Element](rng, nr)
	gamma := field.RandomVector[bls12377fr.Element](rng, nk)
	ee, er, eg := native.EqTable[bls12377fr.Element](e), native.EqTable[bls12377fr.Element](r), native.EqTable[bls12377fr.Element](gamma)
	var one bls12377fr.Element
	one.SetOne()
	wj := make([][2]bls12377fr.Element, nr)
	for i := range wj {
		var a, b bls12377fr.Element
		a.Sub(&one, &e[i])
		b.Sub(&one, &r[i])
		wj[i][0].Mul(&a, &b)
		wj[i][1].Mul(&e[i], &r[i])
	}
	wk := make([][2]bls12377fr.Element, nk)
	for i := range wk {
		wk[i][1] = gamma[i]
		wk[i][0].Sub(&one, &gamma[i])
	}
	values := func(c *weightsCircuit) {
		c.E, c.R, c.Gamma = make([]frontend.Variable, nr), make([]frontend.Variable, nr), make([]frontend.Variable, nk)
		for i := range nr {
			c.E[i], c.R[i] = field.BigInt(&e[i]), field.BigInt(&r[i])
		}
		for i := range nk {
			c.Gamma[i] = field.BigInt(&gamma[i])
		}
	}
	placeholder := &weightsCircuit{E: make([]frontend.Variable, nr), R: make([]frontend.Variable, nr), Gamma: make([]frontend.Variable, nk), rows: rows, bits: bits}
	for _, start := range []int{0, 3, 9, 15} {
		var sum, tmp bls12377fr.Element
		for a := range 1 << nr {
			for b := range 1 << nk {
				if a < rows && b <= start+a {
					tmp.Mul(&ee[a], &er[a])
					tmp.Mul(&tmp, &eg[b])
					sum.Add(&sum, &tmp)
				}
			}
		}
		want := native.ShiftedCausalWeights[bls12377fr.Element](wj, wk, rows, start)
		if !want.Equal(&sum) {
			t.Fatalf("start %d: the native automaton is not the sum", start)
		}
		a := &weightsCircuit{rows: rows, bits: bits, Start: start, Z: field.BigInt(&want)}
		values(a)
		if err := test.IsSolved(placeholder, a, scalar); err != nil {
			t.Fatalf("start %d: %v", start, err)
		}
		other := native.ShiftedCausalWeights[bls12377fr.Element](wj, wk, rows, start+1)
		a.Z = field.BigInt(&other)
		if !other.Equal(&want) && test.IsSolved(placeholder, a, scalar) == nil {
			t.Errorf("start %d: the value of start %d accepted", start, start+1)
		}
	}
}
