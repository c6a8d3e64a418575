package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/setup"
)

// keyCacheDir returns dir, or the default key cache directory
// (setup.DefaultCacheDir) when dir is "".
func keyCacheDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return setup.DefaultCacheDir()
}

// compileDirect compiles the direct-shape circuit of a layout (BN254).
func compileDirect(layout *circuits.Layout) (constraint.ConstraintSystem, error) {
	placeholder, err := layout.Placeholder()
	if err != nil {
		return nil, err
	}
	return frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder)
}

// writeFiles creates dir and writes files (name → contents) into it, in
// name order.
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return fmt.Errorf("pipeline: write %s: %w", name, err)
		}
	}
	return nil
}
