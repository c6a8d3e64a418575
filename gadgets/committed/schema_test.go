package committed

import (
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: no field that is not a circuit variable is visited by
// gnark's schema walk at each compile and witness (package schemacheck),
// in the segment circuit and in the tests' step circuits, whose tamper
// loops build a witness per changed value.
func TestHiddenFields(t *testing.T) {
	schemacheck.Check(t,
		segmentCircuit{},
		lookupsCircuit{}, requantCircuit{}, projectionsCircuit{}, factorsCircuit{},
		normsCircuit{}, normClaimsCircuit{}, softmaxCircuit{}, residualsCircuit{},
		argmaxCircuit{}, tokenCircuit{},
	)
}
