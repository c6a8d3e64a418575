package setup

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps package setup at the bottom of the key path: it
// imports no other package of this module but the internal utilities
// (the comb of its development keys), so the direct design loads keys
// without the recursion circuits and a ceremony's verifier needs gnark
// alone.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/veriformer/veriformer/") && dep != "github.com/veriformer/veriformer/setup" &&
			!strings.HasPrefix(dep, "github.com/veriformer/veriformer/internal/") {
			t.Errorf("setup depends on %s", dep)
		}
	}
}
