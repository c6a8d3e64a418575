package setup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
)

// TestCompileCached: the first call compiles and stores the circuit, the
// second reads it (same hash, no compilation); another executable, a
// damaged file or another name compiles again, and the file is replaced.
func TestCompileCached(t *testing.T) {
	dir := t.TempDir()
	compiles := 0
	compile := func() (constraint.ConstraintSystem, error) {
		compiles++
		return compileCubic(t, ecc.BLS12_377), nil
	}
	want, err := CircuitHash(compileCubic(t, ecc.BLS12_377))
	if err != nil {
		t.Fatal(err)
	}
	get := func(id string, wantHit bool, wantCompiles int) {
		t.Helper()
		ccs, hit, err := CompileCached(dir, id, ecc.BLS12_377, compile)
		if err != nil {
			t.Fatal(err)
		}
		if hit != wantHit || compiles != wantCompiles {
			t.Fatalf("%s: hit %v after %d compilations, want %v after %d", id, hit, compiles, wantHit, wantCompiles)
		}
		got, err := CircuitHash(ccs)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: circuit hash %s, want %s", id, got, want)
		}
	}
	get("cubic", false, 1)
	get("cubic", true, 1)
	get("cubic, other lengths", false, 2)

	files, err := filepath.Glob(filepath.Join(dir, "circuits", "*.ccs"))
	if err != nil || len(files) != 2 {
		t.Fatalf("cache files %v (%v)", files, err)
	}
	// Damage every file past its header: both are compiled again.
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-1] ^= 1
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	get("cubic", false, 3)
	get("cubic", true, 3)

	// Another executable's file is compiled again and replaced.
	saved := buildStamp
	t.Cleanup(func() { buildStamp = saved })
	buildStamp = func() (string, error) { return "another executable", nil }
	get("cubic", false, 4)
	get("cubic", true, 4)
}
