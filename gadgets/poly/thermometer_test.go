package poly

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"
)

type thermometerCircuit struct {
	X   frontend.Variable
	Tau []frontend.Variable
}

func (c *thermometerCircuit) Define(api frontend.API) error {
	tau := Thermometer(api, c.X, len(c.Tau))
	for i := range tau {
		api.AssertIsEqual(tau[i], c.Tau[i])
	}
	return nil
}

// TestThermometer: τᵢ = [i < x] for every x in [0, size], and no x
// outside that range (size + 1, −1, one half) has a thermometer.
func TestThermometer(t *testing.T) {
	const size = 5
	field := ecc.BN254.ScalarField()
	placeholder := &thermometerCircuit{Tau: make([]frontend.Variable, size)}
	assign := func(x frontend.Variable, ones int) *thermometerCircuit {
		c := &thermometerCircuit{X: x, Tau: make([]frontend.Variable, size)}
		for i := range c.Tau {
			c.Tau[i] = 0
			if i < ones {
				c.Tau[i] = 1
			}
		}
		return c
	}
	for x := 0; x <= size; x++ {
		if err := test.IsSolved(placeholder, assign(x, x), field); err != nil {
			t.Fatalf("x = %d: %v", x, err)
		}
		for _, ones := range []int{x - 1, x + 1} {
			if ones >= 0 && ones <= size {
				if err := test.IsSolved(placeholder, assign(x, ones), field); err == nil {
					t.Errorf("x = %d: accepted with %d ones", x, ones)
				}
			}
		}
	}
	minusOne := new(big.Int).Sub(field, big.NewInt(1))
	half := new(big.Int).Rsh(new(big.Int).Add(field, big.NewInt(1)), 1)
	for name, x := range map[string]frontend.Variable{"size + 1": size + 1, "−1": minusOne, "one half": half} {
		for ones := 0; ones <= size; ones++ {
			if err := test.IsSolved(placeholder, assign(x, ones), field); err == nil {
				t.Errorf("x = %s: accepted with %d ones", name, ones)
			}
		}
	}
}
