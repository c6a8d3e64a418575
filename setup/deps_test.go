package setup

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps package setup at the bottom of the key path: it
// imports no other package of this module, so the direct shape loads keys
// without the recursion circuits and a ceremony's verifier needs gnark
// alone.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/veriformer/veriformer/") && dep != "github.com/veriformer/veriformer/setup" {
			t.Errorf("setup depends on %s", dep)
		}
	}
}
