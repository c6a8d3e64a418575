package attention

import (
	"math/rand/v2"
	"testing"

	"github.com/veriformer/veriformer/field"
)

// Exported for the circuit half of the twin tests (gadget_test.go).
var (
	SolveInCircuit = &solveInCircuit
	InvalidConfigs = invalidConfigs
	TestConfigs    = testConfigs
)

// HonestRun proves a random witness for cfg honestly.
func HonestRun[E field.Scalar, P field.Ptr[E]](t testing.TB, cfg Config, rng *rand.Rand) *CircuitRun[E] {
	return prove[E, P](t, cfg, randomWitness(rng, cfg), cheat{}).circuitRun()
}
