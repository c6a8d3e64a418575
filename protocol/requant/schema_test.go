package requant_test

import (
	"testing"

	"github.com/veriformer/veriformer/internal/schemacheck"
)

// TestHiddenFields: the tests' circuits keep their shapes and settings
// out of gnark's schema walk, which visits every untagged field at each
// compile and witness (package schemacheck).
func TestHiddenFields(t *testing.T) {
	schemacheck.Check(t, circuit{})
}
