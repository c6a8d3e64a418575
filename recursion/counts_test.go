package recursion

import (
	"encoding/csv"
	"os"
	"strconv"
	"testing"
)

// checkCount compares a constraint count with its snapshot in
// testdata/constraints.csv (columns: circuit, constraints).
func checkCount(t *testing.T, circuit string, got int) {
	t.Helper()
	f, err := os.Open("testdata/constraints.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] != circuit {
			continue
		}
		want, err := strconv.Atoi(row[1])
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: %d constraints, snapshot says %d", circuit, got, want)
		}
		return
	}
	t.Errorf("%s: no snapshot (%d constraints)", circuit, got)
}
