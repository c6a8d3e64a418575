package poly

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
)

// TestZeroGranules flags exactly the all-zero granules: a non-zero entry
// at a granule's first, last or middle index clears its flag, and a table
// shorter than two granules has none.
func TestZeroGranules(t *testing.T) {
	if ZeroGranules(make([]fr.Element, Granule)) != nil {
		t.Fatal("one granule: flags returned")
	}
	table := make([]fr.Element, 6*Granule)
	table[Granule].SetOne()           // granule 1, first entry
	table[3*Granule-1].SetUint64(7)   // granule 2, last entry
	table[4*Granule+100].SetInt64(-1) // granule 4, a middle entry
	want := []bool{true, false, false, true, false, true}
	got := ZeroGranules(table)
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("granule %d: zero %v, want %v", k, got[k], want[k])
		}
	}
}
