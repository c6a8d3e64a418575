package recursion

import (
	"reflect"
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: no field that is not a circuit variable is visited by
// gnark's schema walk at each compile and witness (package schemacheck).
func TestHiddenFields(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(CommittedAggregator{}), reflect.TypeOf(Aggregator{}), reflect.TypeOf(Wrapper{})} {
		for _, name := range schemacheck.Walked(typ) {
			t.Errorf("%s is walked by gnark's schema: tag it gnark:\"-\"", name)
		}
	}
}
