package lookup_test

import (
	"reflect"
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: the tests' circuits keep their tables out of gnark's
// schema walk, which visits every untagged field at each compile and
// witness (package schemacheck).
func TestHiddenFields(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(lookupCircuit{}), reflect.TypeOf(committedCircuit{})} {
		for _, name := range schemacheck.Walked(typ) {
			t.Errorf("%s is walked by gnark's schema: tag it gnark:\"-\"", name)
		}
	}
}
