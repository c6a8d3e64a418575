package poly

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	native "github.com/veriformer/veriformer/poly"
)

type eqAtCircuit struct {
	Point []frontend.Variable
	X, Eq frontend.Variable
}

func (c *eqAtCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(EqAt(api, c.Point, c.X), c.Eq)
	return nil
}

// TestEqAt: EqAt at every index of 0, 1 and 3 coordinates equals the
// native EqIndex; another value, or an index outside [0, 2ⁿ), is
// refused.
func TestEqAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	scalar := ecc.BN254.ScalarField()
	for _, n := range []int{0, 1, 3} {
		point := field.RandomVector[bn254fr.Element](rng, n)
		vars := make([]frontend.Variable, n)
		for i := range point {
			vars[i] = field.BigInt(&point[i])
		}
		placeholder := &eqAtCircuit{Point: make([]frontend.Variable, n)}
		for x := range 1 << n {
			want := native.EqIndex[bn254fr.Element](point, x)
			if err := test.IsSolved(placeholder, &eqAtCircuit{Point: vars, X: x, Eq: field.BigInt(&want)}, scalar); err != nil {
				t.Fatalf("n = %d, x = %d: %v", n, x, err)
			}
			var other bn254fr.Element
			other.SetOne()
			other.Add(&other, &want)
			if test.IsSolved(placeholder, &eqAtCircuit{Point: vars, X: x, Eq: field.BigInt(&other)}, scalar) == nil {
				t.Errorf("n = %d, x = %d: another value accepted", n, x)
			}
		}
		minusOne := new(big.Int).Sub(scalar, big.NewInt(1))
		for _, x := range []frontend.Variable{1 << n, minusOne} {
			if test.IsSolved(placeholder, &eqAtCircuit{Point: vars, X: x, Eq: 0}, scalar) == nil {
				t.Errorf("n = %d: index %v accepted", n, x)
			}
		}
	}
}
