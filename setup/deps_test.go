package setup

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps package setup at the bottom of the key path: it
// imports no package of this module and not gnark's frontend, so the
// direct shape loads keys without the recursion circuits and a ceremony's
// verifier needs gnark's backend and constraint systems alone.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/veriformer/veriformer/") && dep != "github.com/veriformer/veriformer/setup" {
			t.Errorf("setup depends on %s", dep)
		}
		if dep == "github.com/consensys/gnark/frontend" {
			t.Errorf("setup depends on %s", dep)
		}
	}
}
