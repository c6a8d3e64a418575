package lookup

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

type lookupCase struct {
	name string
	tbl  table.Table
	lk   Lookups
}

func squareMod97(x int64) int64 { return (x * x) % 97 }

// cases returns lookups into a range table and into a function table, over
// shapes that are not powers of two, including a single entry.
func cases(t testing.TB, rng *rand.Rand) []lookupCase {
	outputs := make([]int64, 101) // domain −50…50
	for i := range outputs {
		outputs[i] = squareMod97(int64(i) - 50)
	}
	fn, err := table.Function("square-mod-97", -50, outputs)
	if err != nil {
		t.Fatal(err)
	}
	rangeLookups := func(shape ...int) Lookups {
		n := 1
		for _, d := range shape {
			n *= d
		}
		col := make([]int64, n)
		for i := range col {
			col[i] = rng.Int64N(256)
		}
		col[0], col[n-1] = 0, 255 // the edges of the domain
		return Lookups{Shape: shape, Columns: [][]int64{col}}
	}
	fnLookups := func(shape ...int) Lookups {
		n := 1
		for _, d := range shape {
			n *= d
		}
		xs, ys := make([]int64, n), make([]int64, n)
		for i := range xs {
			xs[i] = rng.Int64N(101) - 50
			ys[i] = squareMod97(xs[i])
		}
		return Lookups{Shape: shape, Columns: [][]int64{xs, ys}}
	}
	return []lookupCase{
		{"range/5x3", table.Range(8), rangeLookups(5, 3)},
		{"range/1", table.Range(8), rangeLookups(1)},
		{"range/2x1x7", table.Range(8), rangeLookups(2, 1, 7)},
		{"function/3x7", fn, fnLookups(3, 7)},
		{"function/16", fn, fnLookups(16)},
	}
}

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

// visit calls f on a pointer to every field element of the proof.
func visit[E field.Scalar](p *Proof[E], f func(name string, x *E)) {
	tree := func(name string, fp *FractionProof[E]) {
		for i := range fp.Root {
			f(name+"/root", &fp.Root[i])
		}
		for j := range fp.Layers {
			for r := range fp.Layers[j].SumCheck.Rounds {
				for k := range fp.Layers[j].SumCheck.Rounds[r] {
					f(name+"/round", &fp.Layers[j].SumCheck.Rounds[r][k])
				}
			}
			for i := range fp.Layers[j].Evals {
				f(name+"/evals", &fp.Layers[j].Evals[i])
			}
		}
	}
	tree("witness", &p.Witness)
	tree("table", &p.Table)
	for i := range p.ColumnEvals {
		f("column", &p.ColumnEvals[i])
	}
}

func testLookup[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	for _, tc := range cases(t, rng) {
		t.Run(tc.name, func(t *testing.T) {
			proof, claims, err := Prove(statement[E, P](), &tc.tbl, &tc.lk)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Verify(statement[E, P](), &tc.tbl, tc.lk.Shape, proof)
			if err != nil {
				t.Fatalf("honest proof rejected: %v", err)
			}
			// The claims are true evaluations of the padded columns, and
			// prover and verifier agree on them.
			for c := range claims {
				want := poly.Evaluate[E, P](paddedColumn[E, P](&tc.lk, c), claims[c].Point)
				if !P(&want).Equal(&claims[c].Value) || !P(&got[c].Value).Equal(&want) {
					t.Fatalf("column %d: claim is not the column's evaluation", c)
				}
			}
			// Another statement: rejected.
			if _, err := Verify(transcript.New[E, P]("lookup-test", field.FromInt64[E, P](43)), &tc.tbl, tc.lk.Shape, proof); err == nil {
				t.Fatal("proof accepted under another statement")
			}
			// Every field element of the proof, tampered: rejected.
			positions := 0
			visit(proof, func(name string, x *E) {
				positions++
				saved := *x
				one := field.One[E, P]()
				P(x).Add(x, &one)
				if _, err := Verify(statement[E, P](), &tc.tbl, tc.lk.Shape, proof); err == nil {
					t.Fatalf("tampered %s accepted", name)
				}
				*x = saved
			})
			// Every multiplicity, tampered: rejected.
			for i := range proof.Multiplicities {
				proof.Multiplicities[i]++
				if _, err := Verify(statement[E, P](), &tc.tbl, tc.lk.Shape, proof); err == nil {
					t.Fatalf("tampered multiplicity %d accepted", i)
				}
				proof.Multiplicities[i]--
			}
			t.Logf("%d proof elements and %d multiplicities tampered one at a time", positions, len(proof.Multiplicities))
		})
	}
}

func TestLookup(t *testing.T) {
	t.Run("bn254", testLookup[bn254fr.Element])
	t.Run("bls12-377", testLookup[bls12377fr.Element])
}

// A prover that looks up a tuple outside the table, with multiplicities
// that count it as some row, is caught.
func testCheatingProver[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	tbl := table.Range(4)
	for _, bad := range []int64{16, -1, 1 << 40} {
		lk := Lookups{Shape: []int{3}, Columns: [][]int64{{3, bad, 7}}}
		if _, _, err := Prove(statement[E, P](), &tbl, &lk); err == nil {
			t.Fatalf("honest prover accepted %d in a 4-bit range", bad)
		}
		for row := range 1 << tbl.NbVars {
			m := make([]uint64, 16)
			m[3]++
			m[7]++
			m[row]++
			dims, total, _ := ShapeVars(lk.Shape)
			proof, _, err := prove(statement[E, P](), &tbl, &lk, dims, total, 3, m)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(statement[E, P](), &tbl, lk.Shape, proof); err == nil {
				t.Fatalf("value %d counted as row %d accepted", bad, row)
			}
		}
	}
}

func TestCheatingProver(t *testing.T) {
	t.Run("bn254", testCheatingProver[bn254fr.Element])
	t.Run("bls12-377", testCheatingProver[bls12377fr.Element])
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
	tbl := table.Range(4)
	for _, lk := range []Lookups{
		{Shape: nil, Columns: [][]int64{{}}},
		{Shape: []int{0}, Columns: [][]int64{{}}},
		{Shape: []int{2}, Columns: [][]int64{{1}}},
		{Shape: []int{1}, Columns: [][]int64{{1}, {1}}},
	} {
		if _, _, err := Prove(statement[bn254fr.Element](), &tbl, &lk); err == nil {
			t.Errorf("lookups %+v accepted", lk)
		}
	}
	proof, _, err := Prove(statement[bn254fr.Element](), &tbl, &Lookups{Shape: []int{2}, Columns: [][]int64{{1, 2}}})
	if err != nil {
		t.Fatal(err)
	}
	proof.Multiplicities[0] = 1 << 32
	if _, err := Verify(statement[bn254fr.Element](), &tbl, []int{2}, proof); err == nil {
		t.Fatal("multiplicity of 2^32 accepted")
	}
	proof.Multiplicities = proof.Multiplicities[:3]
	if _, err := Verify(statement[bn254fr.Element](), &tbl, []int{2}, proof); err == nil {
		t.Fatal("short multiplicities accepted")
	}
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

func TestPackedMultiplicities(t *testing.T) {
	m := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 1<<32 - 1}
	packed := PackedMultiplicities[bn254fr.Element](m)
	if len(packed) != 2 || PackingFactor[bn254fr.Element]() != 7 || PackingFactor[bls12377fr.Element]() != 7 {
		t.Fatalf("packing: %d elements", len(packed))
	}
	want := field.FromUint64[bn254fr.Element](8 + (1<<32-1)<<32)
	if !packed[1].Equal(&want) {
		t.Fatal("second packed element")
	}
}

func BenchmarkProve(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{12, 16} {
		col := make([]int64, 1<<n)
		for i := range col {
			col[i] = rng.Int64N(256)
		}
		lk := Lookups{Shape: []int{1 << n}, Columns: [][]int64{col}}
		tbl := table.Range(8)
		b.Run(fmt.Sprintf("range8/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Prove(statement[bn254fr.Element](), &tbl, &lk); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(col)), "ns/lookup")
		})
	}
}
