package lookup

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/transcript"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
)

func mixedSet(t testing.TB) *table.Set {
	outputs := make([]int64, 101)
	for i := range outputs {
		outputs[i] = squareMod97(int64(i) - 50)
	}
	fn, err := table.Function("square-mod-97", -50, outputs)
	if err != nil {
		t.Fatal(err)
	}
	s, err := table.NewSet("mixed", table.Range(4), fn, table.Range(8), table.Range(1))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSetLayout: blocks are aligned to their size, ids follow the given
// order, and Row inverts Value.
func TestSetLayout(t *testing.T) {
	s := mixedSet(t)
	// range8 (256) at 0, the function (128) at 256, range4 (16) at 384,
	// range1 (2) at 400: 402 rows in 2⁹.
	if want := []int{384, 256, 0, 400}; fmt.Sprint(s.Offsets) != fmt.Sprint(want) || s.NbVars != 9 || s.NbColumns() != 3 {
		t.Fatalf("layout %v, %d variables, %d columns", s.Offsets, s.NbVars, s.NbColumns())
	}
	for y := range 1 << s.NbVars {
		tuple := []int64{s.Value(0, y), s.Value(1, y), s.Value(2, y)}
		row, err := s.Row(tuple)
		if y >= 402 {
			if err == nil || tuple[0] != 0 {
				t.Fatalf("padding row %d: %v found", y, tuple)
			}
			continue
		}
		if err != nil || row != y {
			t.Fatalf("row %d: %v found at %d (%v)", y, tuple, row, err)
		}
	}
	for _, bad := range [][]int64{{0, 0, 0}, {5, 0, 0}, {3, 1, 1}, {1, 16, 0}, {2, 3, 3}, {1, 1}} {
		if _, err := s.Row(bad); err == nil {
			t.Errorf("tuple %v found", bad)
		}
	}
	if _, err := table.NewSet("empty"); err == nil {
		t.Error("empty set accepted")
	}
	if _, err := table.NewSet("big", table.Range(20), table.Range(1)); err == nil {
		t.Error("set of more than 2^20 rows accepted")
	}
	if _, err := table.NewSet("bad", table.Range(0)); err == nil {
		t.Error("set of an invalid table accepted")
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(b *table.Set){
		"missing offset": func(b *table.Set) { b.Offsets = b.Offsets[:3] },
		"unaligned":      func(b *table.Set) { b.Offsets[0] = 386 },
		"overlapping":    func(b *table.Set) { b.Offsets[3] = 384 },
		"outside":        func(b *table.Set) { b.Offsets[2] = 512 },
		"no variable":    func(b *table.Set) { b.NbVars = 0 },
	} {
		b := *s
		b.Offsets = append([]int(nil), s.Offsets...)
		change(&b)
		if err := b.Validate(); err == nil {
			t.Errorf("%s: set accepted", name)
		}
	}
}

// TestEvaluateSetColumn: the closed forms equal the dense MLEs.
func TestEvaluateSetColumn(t *testing.T) {
	s := mixedSet(t)
	rng := rand.New(rand.NewPCG(3, 3))
	point := field.RandomVector[bn254fr.Element](rng, s.NbVars)
	for c := range s.NbColumns() {
		dense := make([]bn254fr.Element, 1<<s.NbVars)
		for y := range dense {
			dense[y].SetInt64(s.Value(c, y))
		}
		want := poly.Evaluate[bn254fr.Element](dense, point)
		if got := evaluateSetColumn[bn254fr.Element](s, c, point, nil); !got.Equal(&want) {
			t.Fatalf("column %d: closed form differs from the dense MLE", c)
		}
	}
}

func setLookups(rng *rand.Rand, s *table.Set, shape ...int) Lookups {
	lk, _ := setLookupsCounted(rng, s, shape...)
	return lk
}

// setLookupsCounted is setLookups that also returns how many lookups
// chose each row of the combined table.
func setLookupsCounted(rng *rand.Rand, s *table.Set, shape ...int) (Lookups, []uint64) {
	count := 1
	for _, d := range shape {
		count *= d
	}
	cols := make([][]int64, s.NbColumns())
	for c := range cols {
		cols[c] = make([]int64, count)
	}
	chosen := make([]uint64, 1<<s.NbVars)
	for i := range count {
		t := rng.IntN(len(s.Tables))
		row := s.Offsets[t] + rng.IntN(1<<s.Tables[t].NbVars)
		chosen[row]++
		for c := range cols {
			cols[c][i] = s.Value(c, row)
		}
	}
	return Lookups{Shape: shape, Columns: cols}, chosen
}

// testCommittedClaims: the committed proof's claims are the padded
// columns' and the multiplicities' evaluations, prover and verifier agree,
// and the digest is bound.
func testCommittedClaims[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	s := mixedSet(t)
	rng := rand.New(rand.NewPCG(5, 5))
	for _, shape := range [][]int{{1}, {3, 5}, {2, 1, 7}, {64}} {
		lk := setLookups(rng, s, shape...)
		m, err := SetMultiplicities(s, &lk)
		if err != nil {
			t.Fatal(err)
		}
		digest := []E{field.FromInt64[E, P](1), field.FromInt64[E, P](2), field.FromInt64[E, P](3)}
		proof, pc, err := ProveCommitted(statement[E, P](), digest, s, &lk, m)
		if err != nil {
			t.Fatal(err)
		}
		vc, err := VerifyCommitted(statement[E, P](), digest, s, shape, proof)
		if err != nil {
			t.Fatalf("shape %v: honest proof rejected: %v", shape, err)
		}
		for c := range pc.Columns {
			want := poly.Evaluate[E, P](paddedColumn[E, P](&lk, c), pc.Columns[c].Point)
			if !P(&want).Equal(&pc.Columns[c].Value) || !P(&vc.Columns[c].Value).Equal(&want) || fmt.Sprint(vc.Columns[c].Point) != fmt.Sprint(pc.Columns[c].Point) {
				t.Fatalf("shape %v column %d: claim is not the column's evaluation", shape, c)
			}
		}
		mv := make([]E, len(m))
		for i := range m {
			P(&mv[i]).SetUint64(m[i])
		}
		want := poly.Evaluate[E, P](mv, vc.Multiplicities.Point)
		if !P(&want).Equal(&vc.Multiplicities.Value) || fmt.Sprint(vc.Multiplicities.Point) != fmt.Sprint(pc.Multiplicities.Point) {
			t.Fatalf("shape %v: multiplicity claim is not the multiplicities' evaluation", shape)
		}
		if _, err := VerifyCommitted(statement[E, P](), digest[:2], s, shape, proof); err == nil {
			t.Fatalf("shape %v: proof accepted with a shorter digest", shape)
		}
	}
}

// testTableClaims: with WithTableClaims, the tables' dense columns are
// claims (each column's evaluation at its table's coordinates of the
// table point) that prover and verifier agree on; a changed table value
// is rejected; a proof made with the option is rejected without it and
// the other way round.
func testTableClaims[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	s := mixedSet(t)
	dense := DenseColumns(s)
	if len(dense) != 1 || s.Tables[dense[0].Table].Name != "square-mod-97" || dense[0].Column != 2 {
		t.Fatalf("dense columns %v", dense)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	shape := []int{3, 5}
	lk := setLookups(rng, s, shape...)
	m, err := SetMultiplicities(s, &lk)
	if err != nil {
		t.Fatal(err)
	}
	proof, pc, err := ProveCommitted(statement[E, P](), nil, s, &lk, m, WithTableClaims())
	if err != nil {
		t.Fatal(err)
	}
	vc, err := VerifyCommitted(statement[E, P](), nil, s, shape, proof, WithTableClaims())
	if err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	if len(vc.Tables) != len(dense) || len(pc.Tables) != len(dense) {
		t.Fatalf("%d and %d table claims for %d dense columns", len(pc.Tables), len(vc.Tables), len(dense))
	}
	for k, d := range dense {
		col := s.Tables[d.Table].Columns[d.Column-1].Values
		values := make([]E, len(col))
		for y, v := range col {
			P(&values[y]).SetInt64(v)
		}
		want := poly.Evaluate[E, P](values, vc.Tables[k].Point)
		if !P(&want).Equal(&vc.Tables[k].Value) || !P(&want).Equal(&pc.Tables[k].Value) || fmt.Sprint(vc.Tables[k].Point) != fmt.Sprint(pc.Tables[k].Point) {
			t.Fatalf("%v: the claim is not the column's evaluation", d)
		}
	}
	one := field.One[E, P]()
	P(&proof.TableEvals[0]).Add(&proof.TableEvals[0], &one)
	if _, err := VerifyCommitted(statement[E, P](), nil, s, shape, proof, WithTableClaims()); err == nil {
		t.Fatal("a changed table value was accepted")
	}
	P(&proof.TableEvals[0]).Sub(&proof.TableEvals[0], &one)
	if _, err := VerifyCommitted(statement[E, P](), nil, s, shape, proof); err == nil {
		t.Fatal("a proof with table claims was accepted without the option")
	}
	plain, _, err := ProveCommitted(statement[E, P](), nil, s, &lk, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyCommitted(statement[E, P](), nil, s, shape, plain, WithTableClaims()); err == nil {
		t.Fatal("a proof without table claims was accepted with the option")
	}
}

func TestTableClaims(t *testing.T) {
	t.Run("bn254", testTableClaims[bn254fr.Element])
	t.Run("bls12-377", testTableClaims[bls12377fr.Element])
}

func TestCommittedClaims(t *testing.T) {
	t.Run("bn254", testCommittedClaims[bn254fr.Element])
	t.Run("bls12-377", testCommittedClaims[bls12377fr.Element])
}

func TestCommittedErrors(t *testing.T) {
	s := mixedSet(t)
	rng := rand.New(rand.NewPCG(6, 6))
	lk := setLookups(rng, s, 4)
	m, err := SetMultiplicities(s, &lk)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ProveCommitted(statement[bn254fr.Element](), nil, s, &lk, m[:3]); err == nil {
		t.Error("short multiplicities accepted")
	}
	short := Lookups{Shape: lk.Shape, Columns: lk.Columns[:2]}
	if _, err := SetMultiplicities(s, &short); err == nil {
		t.Error("lookups without the id column accepted")
	}
	if _, _, err := ProveCommitted(statement[bn254fr.Element](), nil, s, &short, m); err == nil {
		t.Error("lookups without the id column proven")
	}
	bad := Lookups{Shape: []int{1}, Columns: [][]int64{{1}, {16}, {0}}}
	if _, err := SetMultiplicities(s, &bad); err == nil {
		t.Error("16 counted in a 4-bit range")
	}
	proof, _, err := ProveCommitted(statement[bn254fr.Element](), nil, s, &lk, m)
	if err != nil {
		t.Fatal(err)
	}
	proof.ColumnEvals = proof.ColumnEvals[:2]
	if _, err := VerifyCommitted(statement[bn254fr.Element](), nil, s, lk.Shape, proof); err == nil {
		t.Error("proof with two column evaluations accepted")
	}
	if _, err := VerifyCommitted(statement[bn254fr.Element](), nil, s, []int{0}, proof); err == nil {
		t.Error("empty shape accepted")
	}
}

// segmentSet is a table set of 2¹⁶ rows: 15- and 14-bit ranges, an 8-bit
// range, a 10-bit two-column function table and a 4-bit range.
func segmentSet(b testing.TB) *table.Set {
	out := make([]int64, 1<<10)
	for i := range out {
		out[i] = int64(i*i) >> 8
	}
	fn, err := table.Function("exp-limb", 0, out)
	if err != nil {
		b.Fatal(err)
	}
	s, err := table.NewSet("segment", table.Range(15), table.Range(14), table.Range(8), fn, table.Range(4))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkProveCommitted proves 2ⁿ lookups into a set of 2¹⁶ rows on
// BLS12-377 (multiplicities computed, not committed: the commitment is
// another package's).
func BenchmarkProveCommitted(b *testing.B) {
	s := segmentSet(b)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{16, 20} {
		lk := setLookups(rng, s, 1<<n)
		digest := []bls12377fr.Element{field.FromInt64[bls12377fr.Element](1)}
		b.Run(fmt.Sprintf("set65536/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				m, err := SetMultiplicities(s, &lk)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := ProveCommitted(statement[bls12377fr.Element](), digest, s, &lk, m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(int(1)<<n), "ns/lookup")
		})
	}
}

// BenchmarkVerifyCommitted verifies 2²⁰ lookups into a set of 2¹⁶ rows.
func BenchmarkVerifyCommitted(b *testing.B) {
	s := segmentSet(b)
	rng := rand.New(rand.NewPCG(1, 2))
	lk := setLookups(rng, s, 1<<20)
	digest := []bls12377fr.Element{field.FromInt64[bls12377fr.Element](1)}
	m, err := SetMultiplicities(s, &lk)
	if err != nil {
		b.Fatal(err)
	}
	proof, _, err := ProveCommitted(statement[bls12377fr.Element](), digest, s, &lk, m)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := VerifyCommitted(statement[bls12377fr.Element](), digest, s, lk.Shape, proof); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWitnessLeavesSmallValues: the leaves built from the tables of small
// multiples equal α − Σ βᶜ·v computed directly, for values at and across
// the tables' bounds, negative ones included.
func TestWitnessLeavesSmallValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	edges := []int64{0, 1, -1, smallValues - 1, -(smallValues - 1), smallValues, -smallValues, 1 << 40, -(1 << 40)}
	// Enough lookups for the tables to be built.
	lk := &Lookups{Shape: []int{4, multiplesThreshold / 4}}
	for range 3 {
		col := make([]int64, multiplesThreshold)
		for i := range col {
			if i < len(edges) {
				col[i] = edges[(i+len(lk.Columns))%len(edges)]
			} else {
				col[i] = rng.Int64N(4*smallValues) - 2*smallValues
			}
		}
		lk.Columns = append(lk.Columns, col)
	}
	beta, alpha := field.Random[bls12377fr.Element](rng), field.Random[bls12377fr.Element](rng)
	wp, wq, _ := witnessLeaves[bls12377fr.Element](lk, &beta, &alpha)
	if wp[0] != nil {
		t.Fatal("lookups that fill the cube have numerators, want all ones (nil)")
	}
	dims, _, _ := ShapeVars(lk.Shape)
	values := make([]bls12377fr.Element, len(lk.Columns))
	for i := range lk.Columns[0] {
		for c := range values {
			values[c].SetInt64(lk.Columns[c][i])
		}
		w := fold[bls12377fr.Element](&beta, values)
		var want bls12377fr.Element
		want.Sub(&alpha, &w)
		at := padIndex(lk.Shape, dims, i)
		if !wq[at&1][at>>1].Equal(&want) {
			t.Fatalf("entry %d (%v): wrong leaf", i, []int64{lk.Columns[0][i], lk.Columns[1][i], lk.Columns[2][i]})
		}
	}
}

// TestColumnEvalsSmallValues: the column evaluations summed per value
// (enough lookups for the buckets, values at and across their bounds,
// negative ones and zeros included, a padded shape) equal the MLEs of the
// padded columns evaluated directly.
func TestColumnEvalsSmallValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	edges := []int64{0, 1, -1, smallValues - 1, -(smallValues - 1), smallValues, -smallValues, 1 << 40, -(1 << 40)}
	lk := &Lookups{Shape: []int{3, multiplesThreshold / 2}}
	count := 3 * multiplesThreshold / 2
	for range 3 {
		col := make([]int64, count)
		for i := range col {
			switch {
			case i < 4*len(edges):
				col[i] = edges[(i+len(lk.Columns))%len(edges)]
			case i%5 == 0:
				col[i] = 0
			default:
				col[i] = rng.Int64N(4*smallValues) - 2*smallValues
			}
		}
		lk.Columns = append(lk.Columns, col)
	}
	dims, total, _ := ShapeVars(lk.Shape)
	point := field.RandomVector[bls12377fr.Element](rng, total)
	got := columnEvals[bls12377fr.Element](lk, point)
	for c := range lk.Columns {
		padded := make([]bls12377fr.Element, 1<<total)
		for i, x := range lk.Columns[c] {
			padded[padIndex(lk.Shape, dims, i)].SetInt64(x)
		}
		if want := poly.Evaluate[bls12377fr.Element](padded, point); !got[c].Equal(&want) {
			t.Fatalf("column %d: wrong evaluation", c)
		}
	}
}

// TestSetMultiplicitiesChunks counts lookups spread over several of the
// counting chunks against the rows the lookups chose, and reports the first
// failing tuple in lookup order when two chunks fail.
func TestSetMultiplicitiesChunks(t *testing.T) {
	s := mixedSet(t)
	rng := rand.New(rand.NewPCG(8, 8))
	lk, want := setLookupsCounted(rng, s, 3<<16+5)
	m, err := SetMultiplicities(s, &lk)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m, want) {
		t.Fatal("the chunked counts differ from the rows the lookups chose")
	}
	for _, i := range []int{3<<16 + 1, 70000} {
		lk.Columns[0][i] = int64(len(s.Tables) + 1)
	}
	_, err = SetMultiplicities(s, &lk)
	if err == nil || !strings.Contains(err.Error(), "tuple 70000:") {
		t.Fatalf("got %v, want the error of tuple 70000", err)
	}
}

// TestProveFractionOnes: a fraction tree whose numerators are all 1,
// given as nil, is proven as with the table of ones: the same proof and
// leaf point, for trees of 1 to 11 variables.
func TestProveFractionOnes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{1, 2, 5, 11} {
		q := field.RandomVector[bls12377fr.Element](rng, 1<<n)
		ones := make([]bls12377fr.Element, 1<<n)
		for i := range ones {
			ones[i].SetOne()
		}
		ta := transcript.New[bls12377fr.Element]("lookup/test")
		tb := transcript.New[bls12377fr.Element]("lookup/test")
		want, wantPoint, err := proveFraction(ta, toHalves(ones), toHalves(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, gotPoint, err := proveFraction(tb, halves[bls12377fr.Element]{}, toHalves(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotPoint, wantPoint) || ta.State() != tb.State() {
			t.Fatalf("%d variables: the proofs differ", n)
		}
		// The leaves dropped and yielded again for the last layer: the
		// same proof; they are asked for once more when the tree has
		// more than one layer.
		tc := transcript.New[bls12377fr.Element]("lookup/test")
		asked := 0
		again := func() (halves[bls12377fr.Element], halves[bls12377fr.Element]) {
			asked++
			return halves[bls12377fr.Element]{}, toHalves(q)
		}
		regen, regenPoint, err := proveFraction(tc, halves[bls12377fr.Element]{}, toHalves(q), again)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(regen, want) || !reflect.DeepEqual(regenPoint, wantPoint) || ta.State() != tc.State() {
			t.Fatalf("%d variables: the proof with the leaves generated again differs", n)
		}
		if wantAsked := min(n-1, 1); asked != wantAsked {
			t.Fatalf("%d variables: the leaves asked again %d times, want %d", n, asked, wantAsked)
		}
	}
}

// TestProveCommittedRegenerate: the committed proof with the witness
// leaves generated again for the last layer (regenerateVars lowered to
// 1) is the proof with them kept, for lookups that fill their cube and
// lookups that do not (numerators).
func TestProveCommittedRegenerate(t *testing.T) {
	s := mixedSet(t)
	rng := rand.New(rand.NewPCG(11, 11))
	saved := regenerateVars
	defer func() { regenerateVars = saved }()
	for _, shape := range [][]int{{3, 5}, {64}, {4, 32}} {
		lk := setLookups(rng, s, shape...)
		m, err := SetMultiplicities(s, &lk)
		if err != nil {
			t.Fatal(err)
		}
		digest := []bls12377fr.Element{field.FromInt64[bls12377fr.Element](1)}
		var proofs [2]*CommittedProof[bls12377fr.Element]
		for k, vars := range []int{saved, 1} {
			regenerateVars = vars
			if proofs[k], _, err = ProveCommitted(statement[bls12377fr.Element](), digest, s, &lk, m); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(proofs[0], proofs[1]) {
			t.Fatalf("shape %v: the proofs with the leaves kept and generated again differ", shape)
		}
	}
}

// toHalves returns v's halves (copies).
func toHalves[E field.Scalar](v []E) halves[E] {
	return halves[E]{every(v, 0), every(v, 1)}
}

// every returns v[2i + odd] for i < len(v)/2.
func every[E field.Scalar](v []E, odd int) []E {
	out := make([]E, len(v)/2)
	for i := range out {
		out[i] = v[2*i+odd]
	}
	return out
}
