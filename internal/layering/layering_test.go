package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/veriformer/veriformer"

// native are the patterns of the native packages. A pattern whose directory
// does not exist is skipped; mustList keeps the check from going vacuous.
var native = []string{
	"field", "poly", "transcript", "sumcheck", "lookup/...", "model/...",
	"protocol/...", "inference/...", "statement", "pcs/...",
}

// mustList are native packages the patterns must reach, so that a renamed
// directory cannot make the check vacuous.
var mustList = []string{
	"field", "poly", "transcript", "sumcheck", "lookup", "lookup/table", "model",
	"protocol/attention", "protocol/linear", "protocol/requant", "inference", "inference/committed", "statement", "pcs",
}

// forbidden reports whether an import path is one a native package must not
// depend on.
func forbidden(dep string) bool {
	switch {
	case dep == "github.com/consensys/gnark/frontend",
		strings.HasPrefix(dep, "github.com/consensys/gnark/frontend/"),
		strings.HasPrefix(dep, "github.com/consensys/gnark/std/"),
		dep == module+"/gadgets",
		strings.HasPrefix(dep, module+"/gadgets/"):
		return true
	}
	return false
}

// TestNativeDependencies fails if a native package depends, directly or
// transitively, on gnark's frontend, gnark's std or a gadget package.
func TestNativeDependencies(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, p := range native {
		dir := filepath.Join(root, strings.TrimSuffix(p, "/..."))
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: no such directory, skipped", p)
			continue
		}
		patterns = append(patterns, "./"+p)
	}
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}"}, patterns...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkg := fields[0]
		listed[pkg] = true
		for _, dep := range fields[1:] {
			if forbidden(dep) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
	for _, p := range mustList {
		if !listed[module+"/"+p] {
			t.Errorf("%s was not checked", p)
		}
	}
	t.Logf("%d native packages checked", len(listed))
}

// TestForbidden checks the predicate on the paths it must and must not
// match.
func TestForbidden(t *testing.T) {
	for dep, want := range map[string]bool{
		"github.com/consensys/gnark/frontend":            true,
		"github.com/consensys/gnark/frontend/cs/r1cs":    true,
		"github.com/consensys/gnark/std/rangecheck":      true,
		module + "/gadgets/sumcheck":                     true,
		"github.com/consensys/gnark/backend/groth16":     false,
		"github.com/consensys/gnark-crypto/ecc/bn254/fr": false,
		module + "/sumcheck":                             false,
		"github.com/consensys/gnark/frontendx":           false,
		module + "/gadgetsx":                             false,
	} {
		if got := forbidden(dep); got != want {
			t.Errorf("forbidden(%q) = %v, want %v", dep, got, want)
		}
	}
}

// testOnly are the packages that only tests may import.
var testOnly = []string{"github.com/consensys/gnark/test", module + "/internal/tier"}

// TestNoTestCode fails if the non-test code of a package (its files
// without _test.go, in every build of the tiers) imports test code.
func TestNoTestCode(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tags := range []string{"", "full"} {
		cmd := exec.Command("go", "list", "-tags", tags, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
		cmd.Dir = root
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			n++
			for _, dep := range fields[1:] {
				if slices.Contains(testOnly, dep) {
					t.Errorf("%s (tags %q) imports %s outside its tests", fields[0], tags, dep)
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d packages listed", n)
	}
}

// TestPackageDocs: every doc.go's comment is its package's documentation,
// the comment right above the package clause, so that go doc shows it (a
// blank line between them detaches it).
func TestPackageDocs(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.Name() != "doc.go" {
			return nil
		}
		n++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if f.Doc == nil || len(strings.TrimSpace(f.Doc.Text())) == 0 {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s: no comment right above the package clause: go doc shows no documentation", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("%d doc.go files found", n)
	}
}
