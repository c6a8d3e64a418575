package lookup

import (
	"math/rand/v2"
	"slices"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

func squareMod97(x int64) int64 { return (x * x) % 97 }

// paddedColumn returns column c as its zero-padded MLE table.
func paddedColumn[E field.Scalar, P field.Ptr[E]](lk *Lookups, c int) []E {
	dims, total, _ := ShapeVars(lk.Shape)
	out := make([]E, 1<<total)
	for i, v := range lk.Columns[c] {
		P(&out[padIndex(lk.Shape, dims, i)]).SetInt64(v)
	}
	return out
}

func statement[E field.Scalar, P field.Ptr[E]]() *transcript.Transcript[E, P] {
	return transcript.New[E, P]("lookup-test", field.FromInt64[E, P](42))
}

func TestTableErrors(t *testing.T) {
	if _, err := table.Function("empty", 0, nil); err == nil {
		t.Fatal("empty function tbl accepted")
	}
	bad := []table.Table{
		table.Range(0),
		table.Range(table.MaxTableVars + 1),
		{Name: "no columns", NbVars: 2},
		{Name: "dense key", NbVars: 1, Columns: []table.Column{{Values: []int64{1, 2}}}},
		{Name: "short column", NbVars: 2, Columns: []table.Column{{}, {Values: []int64{1}}}},
	}
	for _, tb := range bad {
		if err := tb.Validate(); err == nil {
			t.Errorf("tbl %q accepted", tb.Name)
		}
	}
	for _, lk := range []Lookups{
		{Shape: nil, Columns: [][]int64{{}}},
		{Shape: []int{0}, Columns: [][]int64{{}}},
		{Shape: []int{2}, Columns: [][]int64{{1}}},
		{Shape: []int{1}, Columns: [][]int64{{1}, {1}}},
	} {
		if err := checkLookups(&lk, 1); err == nil {
			t.Errorf("lookups %+v accepted", lk)
		}
	}
}

// A prover that looks up a tuple outside the table, with committed
// multiplicities that count it as some row, is caught.
func testCheatingProver[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	s, err := table.NewSet("range4", table.Range(4))
	if err != nil {
		t.Fatal(err)
	}
	// The multiplicities of the two tuples in the table, 3 and 7.
	counted, err := SetMultiplicities(s, &Lookups{Shape: []int{2}, Columns: [][]int64{{1, 1}, {3, 7}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int64{16, -1, 1 << 40} {
		lk := Lookups{Shape: []int{3}, Columns: [][]int64{{1, 1, 1}, {3, bad, 7}}}
		if _, err := SetMultiplicities(s, &lk); err == nil {
			t.Fatalf("%d counted in a 4-bit range", bad)
		}
		for row := range counted {
			m := slices.Clone(counted)
			m[row]++
			proof, _, err := ProveCommitted(statement[E, P](), nil, s, &lk, m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := VerifyCommitted(statement[E, P](), nil, s, lk.Shape, proof); err == nil {
				t.Fatalf("value %d counted as row %d accepted", bad, row)
			}
		}
	}
}

func TestCheatingProver(t *testing.T) {
	t.Run("bn254", testCheatingProver[bn254fr.Element])
	t.Run("bls12-377", testCheatingProver[bls12377fr.Element])
}

func TestSelector(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, shape := range [][]int{{5, 3}, {1}, {2, 1, 7}, {16}} {
		dims, total, _ := ShapeVars(shape)
		n := witnessVars(total)
		tbl := make([]bn254fr.Element, 1<<n)
		count := 1
		for _, d := range shape {
			count *= d
		}
		for i := range count {
			tbl[padIndex(shape, dims, i)].SetOne()
		}
		point := field.RandomVector[bn254fr.Element](rng, n)
		got := Selector[bn254fr.Element](shape, point)
		want := poly.Evaluate[bn254fr.Element](tbl, point)
		if !got.Equal(&want) {
			t.Fatalf("shape %v: selector differs from the dense table", shape)
		}
	}
}
