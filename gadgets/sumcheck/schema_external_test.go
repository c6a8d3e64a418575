package sumcheck_test

import (
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFieldsExternal: the external tests' circuits keep their
// shapes and settings out of gnark's schema walk, which visits every
// untagged field at each compile and witness (package schemacheck).
func TestHiddenFieldsExternal(t *testing.T) {
	schemacheck.Check(t, productCircuit{})
}
