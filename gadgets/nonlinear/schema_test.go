package nonlinear_test

import (
	"reflect"
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: the tests' circuits keep their tables and shapes out
// of gnark's schema walk, which visits every untagged field at each
// compile and witness (package schemacheck).
func TestHiddenFields(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeOf(softmaxCircuit{}), reflect.TypeOf(normCircuit{}), reflect.TypeOf(activationCircuit{}),
		reflect.TypeOf(residualCircuit{}), reflect.TypeOf(ropeCircuit{}), reflect.TypeOf(productCircuit{}),
	} {
		for _, name := range schemacheck.Walked(typ) {
			t.Errorf("%s is walked by gnark's schema: tag it gnark:\"-\"", name)
		}
	}
}
