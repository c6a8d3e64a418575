package attention

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// Zeroifier returns the MLE of the zeroifier z[j, k] = [j < s_q ∧ k ≤
// Start + j] over ŝ_q × l̂ at point = (r_row ‖ r_key), the closed form the
// verifier evaluates (zeroifier): the tests compare it with the dense
// table here and with the gadget in gadget_test.go.
func Zeroifier[E field.Scalar, P field.Ptr[E]](cfg Config, point []E) (E, error) {
	var z E
	d, err := cfg.Dims()
	if err != nil {
		return z, err
	}
	if len(point) != d.RowVars+d.KeyVars {
		return z, fmt.Errorf("attention: zeroifier: point has %d coordinates, want %d", len(point), d.RowVars+d.KeyVars)
	}
	return zeroifier[E, P](&d, point[:d.RowVars], point[d.RowVars:])
}

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
				d, err := cfg.Dims()
				if err != nil {
					t.Fatal(err)
				}
				table := zeroifierTable[E](&d)
				point := field.RandomVector[E](rng, d.RowVars+d.KeyVars)
				want := poly.Evaluate[E](table, point)
				got, err := Zeroifier[E](cfg, point)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Equal(&want) {
					t.Fatalf("rows %d keys %d start %d: closed form differs from the table", rows, keys, start)
				}
				// the automaton alone covers the special shapes too
				got = poly.ShiftedCausal[E](point[:d.RowVars], point[d.RowVars:], rows, start)
				if !got.Equal(&want) {
					t.Fatalf("rows %d keys %d start %d: automaton differs from the table", rows, keys, start)
				}
				n++
			}
		}
	}
	t.Logf("%d shapes", n)
}
