package attention

import (
	"math/big"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/attention"
	"github.com/veriformer/veriformer/poly"
)

// TestZeroifierClosedForm checks the zeroifier of every supported shape
// (prefill, one row, shifted causal) against its dense table at random
// points.
func TestZeroifierClosedForm(t *testing.T) {
	type E = bls12377fr.Element
	rng := rand.New(rand.NewPCG(7, 7))
	n := 0
	for rows := 1; rows <= 9; rows++ {
		for keys := rows; keys <= 18; keys++ {
			for start := 0; start <= keys-rows; start++ {
				cfg := Config{Heads: 1, HeadDim: 1, QueryRows: rows, KeyRows: keys, Start: start}
				d, err := cfg.dims()
				if err != nil {
					t.Fatal(err)
				}
				table := zeroifierTable[E](&d)
				point := field.RandomVector[E](rng, d.rowVars+d.keyVars)
				want := poly.Evaluate[E](table, point)
				got, err := Zeroifier[E](cfg, point)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Equal(&want) {
					t.Fatalf("rows %d keys %d start %d: closed form differs from the table", rows, keys, start)
				}
				// the automaton alone covers the special shapes too
				got = shiftedCausal[E](point[:d.rowVars], point[d.rowVars:], rows, start)
				if !got.Equal(&want) {
					t.Fatalf("rows %d keys %d start %d: automaton differs from the table", rows, keys, start)
				}
				n++
			}
		}
	}
	t.Logf("%d shapes", n)
}

// maskCircuit checks the gadget's zeroifier at a point against the native
// value.
type maskCircuit struct {
	shape gadget.Shape
	Point []frontend.Variable
	Want  frontend.Variable
}

func (c *maskCircuit) Define(api frontend.API) error {
	z, err := gadget.Zeroifier(api, c.shape, c.Point)
	if err != nil {
		return err
	}
	api.AssertIsEqual(z, c.Want)
	return nil
}

// TestZeroifierGadget checks the in-circuit zeroifier against the native
// closed form on the shifted causal shapes.
func TestZeroifierGadget(t *testing.T) {
	type E = bls12377fr.Element
	rng := rand.New(rand.NewPCG(8, 8))
	for _, cfg := range []Config{
		{Heads: 1, HeadDim: 1, QueryRows: 3, KeyRows: 7, Start: 4},
		{Heads: 1, HeadDim: 1, QueryRows: 5, KeyRows: 16, Start: 2},
		{Heads: 1, HeadDim: 1, QueryRows: 4, KeyRows: 64, Start: 60},
		{Heads: 1, HeadDim: 1, QueryRows: 1, KeyRows: 9, Start: 5},
		{Heads: 1, HeadDim: 1, QueryRows: 6, KeyRows: 6},
	} {
		d, _ := cfg.dims()
		point := field.RandomVector[E](rng, d.rowVars+d.keyVars)
		want, _ := zeroifier[E](&d, point[:d.rowVars], point[d.rowVars:])
		assignment := &maskCircuit{shape: cfg.Shape(), Point: make([]frontend.Variable, len(point)), Want: want.BigInt(new(big.Int))}
		for i := range point {
			assignment.Point[i] = point[i].BigInt(new(big.Int))
		}
		placeholder := &maskCircuit{shape: cfg.Shape(), Point: make([]frontend.Variable, len(point))}
		if err := test.IsSolved(placeholder, assignment, field.Modulus[E]()); err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		wrong := *assignment
		wrong.Want = new(big.Int).Add(want.BigInt(new(big.Int)), big.NewInt(1))
		if err := test.IsSolved(placeholder, &wrong, field.Modulus[E]()); err == nil {
			t.Fatalf("%+v: wrong value accepted", cfg)
		}
	}
}
