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

func TestAggregatorConstraints(t *testing.T) {
	f := getFixture(t)
	checkCount(t, "aggregator k=2", f.aggregator2.CCS.GetNbConstraints())
	if n := AggregatorCommitments(f.aggregator2.CCS); n != 0 {
		t.Errorf("aggregator has %d commitments, the wrapper snapshot assumes 0", n)
	}
	for _, c := range []struct {
		name  string
		k     int
		shape SegmentShape
	}{
		{"aggregator k=1", 1, SegmentShape{}},
		{"aggregator k=2 commitments=1", 2, SegmentShape{NbCommitments: 1}},
	} {
		ccs, err := CompileAggregator(c.k, c.shape)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d constraints", c.name, ccs.GetNbConstraints())
		checkCount(t, c.name, ccs.GetNbConstraints())
	}
}
