package circuits

import (
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: no field that is not a circuit variable, in the
// package's circuits or in its tests', is visited by gnark's schema walk
// at each compile and witness (package schemacheck).
func TestHiddenFields(t *testing.T) {
	schemacheck.Check(t, Direct{}, Committed{}, CommittedBatch{})
}
