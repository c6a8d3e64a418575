package committed

import (
	"reflect"
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: no field that is not a circuit variable is visited by
// gnark's schema walk at each compile and witness (package schemacheck),
// in the segment circuit and in the tests' step circuits, whose tamper
// loops build a witness per changed value.
func TestHiddenFields(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeOf(Segment{}),
		reflect.TypeOf(lookupsCircuit{}), reflect.TypeOf(requantCircuit{}),
		reflect.TypeOf(projectionsCircuit{}), reflect.TypeOf(factorsCircuit{}),
		reflect.TypeOf(normsCircuit{}), reflect.TypeOf(normClaimsCircuit{}),
		reflect.TypeOf(softmaxCircuit{}), reflect.TypeOf(residualsCircuit{}),
		reflect.TypeOf(argmaxCircuit{}), reflect.TypeOf(tokenCircuit{}),
	} {
		for _, name := range schemacheck.Walked(typ) {
			t.Errorf("%s is walked by gnark's schema: tag it gnark:\"-\"", name)
		}
	}
}
