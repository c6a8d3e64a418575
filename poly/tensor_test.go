package poly

import (
	"math/rand/v2"
	"testing"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

func TestPaddedLayout(t *testing.T) {
	idx, err := PaddedIndices([]int{2, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	// (i, j, k) ↦ i·16 + j·4 + k
	want := []int{0, 1, 2, 4, 5, 6, 8, 9, 10, 16, 17, 18, 20, 21, 22, 24, 25, 26}
	for i := range want {
		if idx[i] != want[i] {
			t.Fatalf("index %d: %d, want %d", i, idx[i], want[i])
		}
	}
	for _, bad := range [][]int{nil, {3, 0}, {1 << 21, 1 << 21}} {
		if _, err := PaddedIndices(bad); err == nil {
			t.Errorf("shape %v accepted", bad)
		}
	}
	// A matrix pads like PadMatrix.
	rng := rand.New(rand.NewPCG(1, 9))
	vals := make([]int64, 15)
	fv := make([]bn254fr.Element, 15)
	for i := range vals {
		vals[i] = rng.Int64N(1000) - 500
		fv[i] = field.FromInt64[bn254fr.Element](vals[i])
	}
	a, err := PadTensor[bn254fr.Element](vals, []int{5, 3})
	if err != nil {
		t.Fatal(err)
	}
	b := PadMatrix(fv, 5, 3)
	for i := range a {
		if !a[i].Equal(&b[i]) {
			t.Fatalf("PadTensor and PadMatrix differ at %d", i)
		}
	}
	point := field.RandomVector[bn254fr.Element](rng, 5)
	got, err := EvaluateTensor[bn254fr.Element](vals, []int{5, 3}, point)
	want2 := Evaluate[bn254fr.Element](b, point)
	if err != nil || !got.Equal(&want2) {
		t.Fatal("EvaluateTensor differs from the padded evaluation")
	}
	if _, err := EvaluateTensor[bn254fr.Element](vals, []int{5, 3}, point[:4]); err == nil {
		t.Fatal("point of the wrong size accepted")
	}
	if _, err := PadTensor[bn254fr.Element](vals[:3], []int{5, 3}); err == nil {
		t.Fatal("short tensor accepted")
	}
}
