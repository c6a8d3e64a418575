package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for the test given to CheckCSV: it records a failure
// and, like testing.T, ends the goroutine that called Fatalf.
type recorder struct {
	testing.TB
	failed  bool
	message string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	r.message = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// check runs CheckCSV on its own goroutine, so that Fatalf can end it.
func check(t *testing.T, path string, rows [][]string, update bool) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		CheckCSV(r, path, rows, update)
	}()
	<-done
	return r
}

var rows = [][]string{
	{"gadget", "params", "nb_constraints"},
	{"softmax", "heads=4,rows=3", "66943"},
	{"gelu", "n=256", "1207"},
}

const encoded = "gadget,params,nb_constraints\nsoftmax,\"heads=4,rows=3\",66943\ngelu,n=256,1207\n"

func TestUpdateWritesThenMatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "constraints.csv")
	if r := check(t, path, rows, true); r.failed {
		t.Fatalf("update failed: %s", r.message)
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(stored) != encoded {
		t.Fatalf("file holds\n%s\nwant\n%s", stored, encoded)
	}
	if r := check(t, path, rows, false); r.failed {
		t.Fatalf("the written file does not match its own rows: %s", r.message)
	}
}

func TestDifferenceFails(t *testing.T) {
	changedCount := [][]string{rows[0], rows[1], {"gelu", "n=256", "1208"}}
	for _, tc := range []struct {
		name string
		rows [][]string
		line int
	}{
		{"changed count", changedCount, 3},
		{"extra row", append(rows[:3:3], []string{"argmax", "vocab=256", "5"}), 4},
		{"missing row", rows[:2], 3},
		{"changed header", append([][]string{{"gadget", "params", "constraints"}}, rows[1:]...), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "constraints.csv")
			if err := os.WriteFile(path, []byte(encoded), 0o644); err != nil {
				t.Fatal(err)
			}
			r := check(t, path, tc.rows, false)
			if !r.failed {
				t.Fatal("a different snapshot passed")
			}
			for _, want := range []string{path, fmt.Sprintf("line %d", tc.line), "-update", tc.rows[len(tc.rows)-1][0]} {
				if !strings.Contains(r.message, want) {
					t.Errorf("message %q does not mention %q", r.message, want)
				}
			}
			stored, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(stored) != encoded {
				t.Errorf("a failed comparison rewrote the file:\n%s", stored)
			}
		})
	}
}

func TestMissingFileFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "constraints.csv")
	r := check(t, path, rows, false)
	if !r.failed {
		t.Fatal("a missing snapshot passed")
	}
	for _, want := range []string{path, "-update", encoded} {
		if !strings.Contains(r.message, want) {
			t.Errorf("message %q does not mention %q", r.message, want)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a check without update created the file (stat: %v)", err)
	}
}

func TestUpdateFailsOnUnwritablePath(t *testing.T) {
	// The directory to create is a regular file.
	parent := filepath.Join(t.TempDir(), "testdata")
	if err := os.WriteFile(parent, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := check(t, filepath.Join(parent, "constraints.csv"), rows, true)
	if !r.failed {
		t.Fatal("an update that cannot write passed")
	}
	if !strings.Contains(r.message, parent) {
		t.Errorf("message %q does not name %q", r.message, parent)
	}
}

func TestFirstDifference(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		line int
	}{
		{"x\n", "y\n", 1},
		{"a\nb\n", "a\nc\n", 2},
		{"a\nb\n", "a\nb\nc\n", 3},
		{"a\nb\nc\n", "a\nb\n", 3},
		{"a\nbc\n", "a\nbd\n", 2},
		{"", "a\n", 1},
	} {
		if got := firstDifference([]byte(tc.a), []byte(tc.b)); got != tc.line {
			t.Errorf("firstDifference(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.line)
		}
	}
}
