package pcs

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// TestProveGroupSum: the group's own sum-check prover sends what
// sumcheck.Prove sends on the tables padded to the group's size (rounds,
// final point, transcript state) and returns the padded tables' values
// at the point, for terms of every offset; the caller's tables are left
// unchanged.
func TestProveGroupSum(t *testing.T) {
	rng := newTestRand(t)
	// Tables of 2^10 entries or more get zero granules, which the prover
	// skips: the upper half, every other granule, all but one granule,
	// or the whole table (by term).
	for _, vars := range [][]int{{1}, {3, 1}, {2, 5, 5, 3}, {6, 1, 4, 6, 2}, {11, 10, 12, 9}, {12, 12, 12, 12}} {
		n := 0
		for _, v := range vars {
			n = max(n, v)
		}
		var terms []groupTerm
		var padded [][]fr.Element
		var sc []sumcheck.Term[fr.Element]
		var sum fr.Element
		var originals, given [][]fr.Element
		for j, v := range vars {
			a := field.RandomVector[fr.Element](rng, 1<<v)
			f := field.RandomVector[fr.Element](rng, 1<<v)
			if v >= 10 {
				switch j % 4 {
				case 0:
					clear(f[len(f)/2:])
				case 1:
					for q := 0; q < len(f); q += 2 * granule {
						clear(f[q : q+granule])
					}
				case 2:
					clear(f[granule:])
				default:
					clear(f)
				}
			}
			originals = append(originals, append([]fr.Element(nil), f...))
			given = append(given, f)
			tm := groupTerm{a: append([]fr.Element(nil), a...), f: stored(f), offset: n - v, ip: innerProduct(a, f), zeroF: zeroGranules(f)}
			if v >= 10 && tm.zeroF == nil {
				t.Fatalf("vars %v: term %d has no zero granule", vars, j)
			}
			tm.pad.SetOne()
			terms = append(terms, tm)
			sum.Add(&sum, &tm.ip)
			pa, pf := make([]fr.Element, 1<<n), make([]fr.Element, 1<<n)
			copy(pa, a)
			copy(pf, f)
			padded = append(padded, pa, pf)
			sc = append(sc, sumcheck.Term[fr.Element]{Coefficient: field.One[fr.Element](), Factors: []int{2 * j, 2*j + 1}})
		}
		ta, tb := transcript.New[fr.Element]("pcs/test"), transcript.New[fr.Element]("pcs/test")
		want, opening, err := sumcheck.Prove(ta, padded, sc, sum)
		if err != nil {
			t.Fatal(err)
		}
		got, point, evals := proveGroupSum(tb, terms, n, sum)
		if len(got.Rounds) != len(want.Rounds) {
			t.Fatalf("vars %v: %d rounds, want %d", vars, len(got.Rounds), len(want.Rounds))
		}
		for i := range want.Rounds {
			if len(got.Rounds[i]) != 2 || got.Rounds[i][0] != want.Rounds[i][0] || got.Rounds[i][1] != want.Rounds[i][1] {
				t.Fatalf("vars %v: round %d differs", vars, i)
			}
		}
		for i := range point {
			if point[i] != opening.Point[i] {
				t.Fatalf("vars %v: point %d differs", vars, i)
			}
		}
		for j := range vars {
			if evals[j][0] != opening.Evaluations[2*j] || evals[j][1] != opening.Evaluations[2*j+1] {
				t.Fatalf("vars %v: term %d's values differ", vars, j)
			}
			for k := range originals[j] {
				if originals[j][k] != given[j][k] {
					t.Fatalf("vars %v: table %d written", vars, j)
				}
			}
		}
		if ta.State() != tb.State() {
			t.Fatalf("vars %v: transcript states differ", vars)
		}
	}
}

// TestCommitParts: the parts are the commitments of the table's aligned
// slices of 2^m entries (one commitment, Commit's, when the table has m
// variables or fewer); m < 1 is refused.
func TestCommitParts(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	table := randomTable(rng, 5)
	clear(table[8:16]) // a part of zeros is the identity
	for _, m := range []int{1, 2, 3, 5, 6} {
		parts, err := CommitParts(srs, table, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) != Parts(5, m) || len(parts) != 1<<max(5-m, 0) {
			t.Fatalf("m = %d: %d parts, Parts gives %d", m, len(parts), Parts(5, m))
		}
		size := len(table) / len(parts)
		for i := range parts {
			want, err := Commit(srs, table[i*size:(i+1)*size])
			if err != nil {
				t.Fatal(err)
			}
			if !parts[i].Equal(&want) {
				t.Fatalf("m = %d: part %d differs from the commitment of its slice", m, i)
			}
		}
		if m == 3 && !parts[1].IsInfinity() {
			t.Fatal("a part of zeros is not the identity")
		}
	}
	if _, err := CommitParts(srs, table, 0); err == nil {
		t.Fatal("parts of 0 variables accepted")
	}
}

// TestCommitEach: CommitEach and CommitEachFilled give Commit's
// commitments, table for table, on one core and on several, for more
// tables than cores, as many, and fewer: dense tables, sparse ones of
// small, negative and full-size entries, tables of zeros (the identity).
// Tables that are not a power of two, or larger than the SRS, are
// refused.
func TestCommitEach(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	var tables [][]fr.Element
	for k := range 9 {
		table := make([]fr.Element, 64)
		switch k % 4 {
		case 0:
			table = field.RandomVector[fr.Element](rng, len(table))
		case 1:
			for i := range table {
				table[i].SetInt64(rng.Int64N(1<<16) - 1<<15)
			}
		case 2:
			for range 5 {
				table[rng.IntN(len(table))].SetUint64(rng.Uint64N(1 << 15))
			}
			table[7] = field.Random[fr.Element](rng)
		}
		tables = append(tables, table)
	}
	want := make([]Commitment, len(tables))
	for i, table := range tables {
		var err error
		if want[i], err = Commit(srs, table); err != nil {
			t.Fatal(err)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 2, len(tables)} {
			got, err := CommitEach(srs, tables[:n])
			if err != nil {
				t.Fatal(err)
			}
			filled, err := CommitEachFilled(srs, n, 64, func(i int, dst []fr.Element) { copy(dst, tables[i]) })
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n || len(filled) != n {
				t.Fatalf("%d cores, %d tables: %d and %d commitments", procs, n, len(got), len(filled))
			}
			for i := range n {
				if !got[i].Equal(&want[i]) || !filled[i].Equal(&want[i]) {
					t.Fatalf("%d cores, %d tables: table %d's commitment differs from Commit's", procs, n, i)
				}
			}
		}
	}
	filledTables := 0
	fill := func(int, []fr.Element) { filledTables++ }
	if _, err := CommitEach(srs, [][]fr.Element{tables[0], make([]fr.Element, 3)}); err == nil {
		t.Fatal("a table of 3 entries accepted")
	}
	if _, err := CommitEach(srs, [][]fr.Element{make([]fr.Element, 2*srs.Size())}); err == nil {
		t.Fatal("a table larger than the srs accepted")
	}
	for _, size := range []int{0, 1, 3, 96, 1 << (MaxNbVars + 1)} {
		if _, err := CommitEachFilled(srs, 2, size, fill); err == nil {
			t.Fatalf("tables of %d entries accepted", size)
		}
	}
	if _, err := CommitEachFilled(srs, 2, 2*srs.Size(), fill); err == nil {
		t.Fatal("tables larger than the srs accepted")
	}
	if filledTables != 0 {
		t.Fatalf("%d tables filled before their size was refused", filledTables)
	}
}

// TestGroupPartsWhole: with parts of at least the claims' variables, the
// opening in parts is the opening of the MLEs committed whole (m =
// MaxNbVars), byte for byte.
func TestGroupPartsWhole(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	whole := newGroupFixture(t, rand.New(rand.NewPCG(seed, 0)))
	for _, m := range []int{5, 6} {
		f := newGroupFixtureParts(t, rand.New(rand.NewPCG(seed, 0)), m)
		a, err := whole.proof.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.proof.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Fatalf("m = %d: the proof differs from the whole opening's", m)
		}
	}
}

// TestGroupPartsStacked opens, in parts of 3 variables, claims on a
// 6-variable table whose points start with boolean coordinates (blocks of
// a stacked MLE) beside random points and a 2-variable table: the proof
// verifies, and a changed value is refused by the prover and rejected by
// the verifier.
func TestGroupPartsStacked(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	tables := [][]fr.Element{randomTable(rng, 6), randomTable(rng, 2)}
	clear(tables[0][40:]) // zero past the last block, as a stacked MLE
	const m = 3
	parts, flat := commitAllParts(t, srs, tables, m)
	var zero, one fr.Element
	one.SetOne()
	var claims []Claim
	for _, prefix := range [][]fr.Element{{one, zero}, {zero, one, one}, {one, zero, one, one, one}, nil} {
		point := append(append([]fr.Element(nil), prefix...), field.RandomVector[fr.Element](rng, 6-len(prefix))...)
		claims = append(claims, Claim{Point: point, Value: poly.Evaluate[fr.Element](tables[0], point)})
	}
	point := field.RandomVector[fr.Element](rng, 2)
	claims = append(claims, Claim{Commitment: 1, Point: point, Value: poly.Evaluate[fr.Element](tables[1], point)})
	proof, err := OpenGroupParts(newTranscript(flat, claims), srs, tables, claims, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(proof.Opening.Evaluations) != m {
		t.Fatalf("an opening of %d variables, want %d", len(proof.Opening.Evaluations), m)
	}
	if err := verifyGroupParts(newTranscript(flat, claims), srs.VerifyingKey(), parts, claims, proof, m); err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	for k := range claims {
		claims[k].Value.Add(&claims[k].Value, &one)
		if _, err := OpenGroupParts(newTranscript(flat, claims), srs, tables, claims, m); err == nil {
			t.Errorf("claim %d: a false value was proven", k)
		}
		if err := verifyGroupParts(newTranscript(flat, claims), srs.VerifyingKey(), parts, claims, proof, m); err == nil {
			t.Errorf("claim %d: a changed value was accepted", k)
		}
		claims[k].Value.Sub(&claims[k].Value, &one)
	}
	// The parts must be given as committed: swapping two is rejected.
	parts[0][0], parts[0][1] = parts[0][1], parts[0][0]
	if err := verifyGroupParts(newTranscript(flat, claims), srs.VerifyingKey(), parts, claims, proof, m); err == nil {
		t.Error("swapped parts accepted")
	}
}

// TestGroupSharedPoints: claims that share a point on several MLEs of one
// size (a dense point and one with a boolean prefix, one of them twice on
// the same MLE) are proven as one term per point; the proof is the one
// proven with one term per MLE, byte for byte, and verifies, and a
// changed claim is rejected.
func TestGroupSharedPoints(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	const n, m = 10, 8
	tables := [][]fr.Element{randomTable(rng, n), randomTable(rng, n), randomTable(rng, n), randomTable(rng, 6)}
	clear(tables[1][300:]) // zero granules
	clear(tables[2])
	parts, flat := commitAllParts(t, srs, tables, m)
	var zero, one fr.Element
	one.SetOne()
	dense := field.RandomVector[fr.Element](rng, n)
	prefixed := append([]fr.Element{zero, one}, field.RandomVector[fr.Element](rng, n-2)...)
	var claims []Claim
	add := func(j int, point []fr.Element) {
		claims = append(claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](tables[j], point)})
	}
	for j := range 3 {
		add(j, dense)
	}
	add(0, prefixed)
	add(1, prefixed)
	add(1, prefixed)
	add(0, field.RandomVector[fr.Element](rng, n))
	add(3, field.RandomVector[fr.Element](rng, 6))
	prove := func(grouped bool) []byte {
		return proveSwitched(t, &groupPoints, grouped, srs, tables, parts, flat, claims, m)
	}
	if !bytes.Equal(prove(true), prove(false)) {
		t.Fatal("the proofs with terms per point and per MLE differ")
	}
	claims[1].Value.Add(&claims[1].Value, &one)
	if _, err := OpenGroupParts(newTranscript(flat, claims), srs, tables, claims, m); err == nil {
		t.Error("a false value on a shared point was proven")
	}
}

// proveSwitched proves the claims in parts of 2^m entries with a prover
// path's switch set to on (restored to true after), checks that the proof
// verifies, and returns it encoded.
func proveSwitched(t *testing.T, sw *bool, on bool, srs *SRS, tables [][]fr.Element, parts [][]Commitment, flat []Commitment, claims []Claim, m int) []byte {
	t.Helper()
	*sw = on
	defer func() { *sw = true }()
	proof, err := OpenGroupParts(newTranscript(flat, claims), srs, tables, claims, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyGroupParts(newTranscript(flat, claims), srs.VerifyingKey(), parts, claims, proof, m); err != nil {
		t.Fatalf("switch %v: honest proof rejected: %v", on, err)
	}
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// commitAllParts commits each table in parts of 2^m entries and returns
// the parts per table and all of them in order.
func commitAllParts(t *testing.T, srs *SRS, tables [][]fr.Element, m int) (parts [][]Commitment, flat []Commitment) {
	t.Helper()
	for _, table := range tables {
		c, err := CommitParts(srs, table, m)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, c)
		flat = append(flat, c...)
	}
	return parts, flat
}

// TestGroupSparseTerms: an MLE whose claims are all on blocks (boolean
// leading coordinates) within one half, of half its size at most, is a
// term whose Aⱼ is built at half size in its first round; the proof is
// the one with Aⱼ built whole, byte for byte, and verifies, and a changed
// claim is rejected. The MLEs: one of the group's size with blocks in
// both halves, one block claimed twice at different points; a smaller
// one (a term with leading zero coordinates) with one block; one whose
// blocks add up to more than half (built whole either way); one with
// blocks of one entry.
func TestGroupSparseTerms(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	const n, m = 10, 8
	tables := [][]fr.Element{randomTable(rng, n), randomTable(rng, 7), randomTable(rng, n), randomTable(rng, n)}
	clear(tables[0][600:700]) // zero granules
	parts, flat := commitAllParts(t, srs, tables, m)
	var zero, one fr.Element
	one.SetOne()
	block := func(bits []bool, vars int) []fr.Element {
		p := make([]fr.Element, 0, vars)
		for _, b := range bits {
			if b {
				p = append(p, one)
			} else {
				p = append(p, zero)
			}
		}
		return append(p, field.RandomVector[fr.Element](rng, vars-len(bits))...)
	}
	var claims []Claim
	add := func(j int, point []fr.Element) {
		claims = append(claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](tables[j], point)})
	}
	add(0, block([]bool{false, true, true}, n))
	add(0, block([]bool{true, false, true}, n))
	add(0, block([]bool{true, false, true}, n))
	add(0, block([]bool{true, true, true, false}, n))
	add(1, block([]bool{true, false}, 7))
	add(2, block([]bool{false}, n))
	add(2, block([]bool{true, true}, n))
	add(3, block(make([]bool, n), n))
	add(3, block([]bool{true, true, false, true, false, false, true, false, true, true}, n))
	prove := func(sparse bool) []byte {
		return proveSwitched(t, &sparseTerms, sparse, srs, tables, parts, flat, claims, m)
	}
	if !bytes.Equal(prove(true), prove(false)) {
		t.Fatal("the proofs with sparse and whole terms differ")
	}
	claims[1].Value.Add(&claims[1].Value, &one)
	if _, err := OpenGroupParts(newTranscript(flat, claims), srs, tables, claims, m); err == nil {
		t.Error("a false value on a block was proven")
	}
}

// TestGroupGenerated: tables declared generated (nil in the caller's
// list, read from their generators) give the proof of the stored
// tables, byte for byte: a table with a sparse term and zero flags, one
// with a whole term, one whose claims are all grouped with another
// MLE's, and one with an offset. The generators are asked only for
// entries inside their tables. A generator that writes other values
// gives an opening the verifier refuses, and malformed options are
// refused.
func TestGroupGenerated(t *testing.T) {
	rng := newTestRand(t)
	srs := srsForTest(t)
	const n, m = 11, 8
	tables := [][]fr.Element{randomTable(rng, n), randomTable(rng, n), randomTable(rng, n), randomTable(rng, 9)}
	clear(tables[1][1024:])   // zero granules in the upper half
	clear(tables[0][256:512]) // and one in the lower
	clear(tables[3][0:256])   // a table with an offset
	parts, flat := commitAllParts(t, srs, tables, m)
	var zero, one fr.Element
	one.SetOne()
	var claims []Claim
	add := func(j int, point []fr.Element) {
		claims = append(claims, Claim{Commitment: j, Point: point, Value: poly.Evaluate[fr.Element](tables[j], point)})
	}
	dense := field.RandomVector[fr.Element](rng, n)
	add(0, dense)
	add(2, dense)                                                                        // grouped with table 0's
	add(0, append([]fr.Element{one, zero}, field.RandomVector[fr.Element](rng, n-2)...)) // sparse, upper half
	add(0, append([]fr.Element{zero, one, one}, field.RandomVector[fr.Element](rng, n-3)...))
	add(1, field.RandomVector[fr.Element](rng, n)) // whole
	add(3, field.RandomVector[fr.Element](rng, 9))
	want, err := OpenGroupParts(newTranscript(flat, claims), srs, tables, claims, m)
	if err != nil {
		t.Fatal(err)
	}
	generators := func(flags bool, wrong int) (map[int]sumcheck.Generator[fr.Element], [][]fr.Element) {
		gens := map[int]sumcheck.Generator[fr.Element]{}
		given := slices.Clone(tables)
		for _, j := range []int{0, 1, 2, 3} {
			src := tables[j]
			if j == wrong {
				src = slices.Clone(src)
				src[3].SetUint64(5)
			}
			g := sumcheck.Generator[fr.Element]{Fill: func(dst []fr.Element, start int) {
				if start < 0 || start+len(dst) > len(src) {
					t.Errorf("table %d: entries [%d, %d) asked of %d", j, start, start+len(dst), len(src))
					return
				}
				copy(dst, src[start:])
			}}
			if flags {
				g.Zero = poly.ZeroGranules(src)
			}
			gens[j] = g
			given[j] = nil
		}
		return gens, given
	}
	for _, flags := range []bool{false, true} {
		gens, given := generators(flags, -1)
		got, err := OpenGroupParts(newTranscript(flat, claims), srs, given, claims, m, Generate(gens))
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyGroupParts(newTranscript(flat, claims), srs.VerifyingKey(), parts, claims, got, m); err != nil {
			t.Fatalf("zero flags %v: honest proof rejected: %v", flags, err)
		}
		a, _ := want.MarshalBinary()
		b, _ := got.MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Fatalf("zero flags %v: the proofs with tables generated and stored differ", flags)
		}
	}
	// A generator of other values than the committed table's: the claims
	// no longer hold (the opening refuses), or the opening is rejected.
	for _, j := range []int{0, 1, 2, 3} {
		gens, given := generators(true, j)
		bad, err := OpenGroupParts(newTranscript(flat, claims), srs, given, claims, m, Generate(gens))
		if err == nil {
			err = verifyGroupParts(newTranscript(flat, claims), srs.VerifyingKey(), parts, claims, bad, m)
		}
		if err == nil {
			t.Errorf("table %d generated wrong: accepted", j)
		}
	}
	gens, given := generators(true, -1)
	for name, c := range map[string]struct {
		tables [][]fr.Element
		opt    GroupOption
	}{
		"out of range":        {given, Generate(map[int]sumcheck.Generator[fr.Element]{4: gens[0]})},
		"given and generated": {tables, Generate(map[int]sumcheck.Generator[fr.Element]{1: gens[1]})},
		"no fill":             {given, Generate(map[int]sumcheck.Generator[fr.Element]{0: {Zero: gens[0].Zero}})},
		"wrong zero flags":    {given, Generate(map[int]sumcheck.Generator[fr.Element]{3: {Fill: gens[3].Fill, Zero: gens[0].Zero}})},
		"not generated":       {given, Generate(map[int]sumcheck.Generator[fr.Element]{0: gens[0], 1: gens[1], 2: gens[2]})},
	} {
		opts := []GroupOption{Generate(gens), c.opt}
		if name == "not generated" {
			opts = opts[1:]
		}
		if _, err := OpenGroupParts(newTranscript(flat, claims), srs, c.tables, claims, m, opts...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
