package snapshot

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// CheckCSV encodes rows as CSV and compares them with the file at path.
// With update it creates the file's directory and writes the file instead.
// A missing file, an unreadable one, or one whose bytes differ fails t with
// t.Fatalf, naming path and showing the new contents.
func CheckCSV(t testing.TB, path string, rows [][]string, update bool) {
	t.Helper()
	var buf bytes.Buffer
	if err := csv.NewWriter(&buf).WriteAll(rows); err != nil {
		t.Fatalf("snapshot: encode %s: %v", path, err)
	}
	got := buf.Bytes()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("snapshot: %v (run with -update to create it); new contents:\n%s", err, got)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("snapshot: %s differs at line %d (run with -update if the change is intended); new contents:\n%s", path, firstDifference(got, want), got)
	}
}

// firstDifference is the 1-based number of the first line at which a and b
// differ; a line present in only one of them counts as differing.
func firstDifference(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
