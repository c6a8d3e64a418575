package setup

import "testing"

// The gnark version in circuit hashes is known in test binaries too, so
// that tests and commands share cached keys.
func TestGnarkVersionKnown(t *testing.T) {
	if v := gnarkVersion(); v == "" || v == "unknown" {
		t.Fatalf("gnark version %q", v)
	}
}
