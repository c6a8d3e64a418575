package sumcheck

import (
	"math/rand/v2"
	"reflect"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// TestProveEq checks that ProveEq sends what Prove sends for the same
// summand with β's table as a factor of every term: the same rounds, the
// same opening and the same transcript state after it, for degrees 1 to
// 5, with a term that repeats a factor, over both fields, and on points
// with coordinates 0 and 1 (where the round's value at 1 cannot come
// from the claim).
func TestProveEq(t *testing.T) {
	testProveEq[bn254fr.Element](t)
	testProveEq[bls12377fr.Element](t)
}

func testProveEq[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := newTestRand(t)
	cases := []struct {
		name    string
		vars    int
		factors [][]int
		special bool
		zeros   bool
	}{
		{"linear", 1, [][]int{{0}, {1}}, false, false},
		{"gkr", 5, [][]int{{0, 3}, {1, 2}, {2, 3}}, false, false},
		{"gkr/one round", 1, [][]int{{0, 3}, {1, 2}, {2, 3}}, false, false},
		{"degree 5", 6, [][]int{{0, 1, 2, 3, 4}, {1}, {2, 2}}, false, false},
		{"large", 12, [][]int{{0, 1}, {2}, {1, 2, 0}}, false, false},
		{"boolean point", 6, [][]int{{0, 1}, {2, 1}}, true, false},
		// Tables zero over whole blocks of pairs in some rounds and not in
		// others, or in one half of a pair only: the prover skips exactly
		// the blocks where a factor is zero in both halves.
		{"zero blocks", 13, [][]int{{0, 1}, {2}, {1, 3}, {0, 2, 3}, {4}}, false, true},
	}
	for _, c := range cases {
		t.Run(field.Name[E]()+"/"+c.name, func(t *testing.T) {
			nbTables := 0
			for _, f := range c.factors {
				for _, j := range f {
					nbTables = max(nbTables, j+1)
				}
			}
			tables := make([][]E, nbTables)
			for j := range tables {
				tables[j] = field.RandomVector[E, P](rng, 1<<c.vars)
			}
			if c.zeros {
				// Zero spans: [0, 2048) and [5120, 8192) of table 0; the
				// upper half of table 1; all of table 2 but 16 entries at
				// 7000; all of table 3 but entry 0; table 4 entirely.
				spans := [][][2]int{{{0, 2048}, {5120, 8192}}, {{4096, 8192}}, {{0, 7000}, {7016, 8192}}, {{1, 8192}}, {{0, 8192}}}
				for j, sp := range spans {
					for _, r := range sp {
						clear(tables[j][r[0]:r[1]])
					}
				}
			}
			point := field.RandomVector[E, P](rng, c.vars)
			if c.special {
				point[0] = field.One[E, P]()
				point[2] = E{}
				point[c.vars-1] = E{}
			}
			terms := make([]Term[E], len(c.factors))
			for k, f := range c.factors {
				terms[k] = Term[E]{Coefficient: field.Random[E, P](rng), Factors: f}
			}
			eq := poly.EqTable[E, P](point)
			all := append([][]E{eq}, tables...)
			augmented := make([]Term[E], len(terms))
			for k, term := range terms {
				f := []int{0}
				for _, j := range term.Factors {
					f = append(f, j+1)
				}
				augmented[k] = Term[E]{Coefficient: term.Coefficient, Factors: f}
			}
			sum := bruteSum[E, P](all, augmented)
			copies := make([][]E, len(tables))
			for j := range tables {
				copies[j] = append([]E(nil), tables[j]...)
			}

			want := transcript.New[E, P](testDomain)
			wantProof, wantOpening, err := Prove(want, all, augmented, sum)
			if err != nil {
				t.Fatal(err)
			}
			got := transcript.New[E, P](testDomain)
			gotProof, gotOpening, err := ProveEq(got, point, tables, terms, sum)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(gotProof, wantProof) {
				t.Fatalf("rounds differ:\n got %v\nwant %v", gotProof.Rounds, wantProof.Rounds)
			}
			if !reflect.DeepEqual(gotOpening, wantOpening) {
				t.Fatalf("openings differ")
			}
			if a, b := got.Challenge(), want.Challenge(); a != b {
				t.Fatal("transcripts differ after the proof")
			}
			if !reflect.DeepEqual(copies, tables) {
				t.Fatal("ProveEq wrote into the caller's tables")
			}
			// The same proof with every other table handed over (folded in
			// place): only those are written.
			given := make([][]E, len(tables))
			var overwrite []int
			for j := range tables {
				given[j] = append([]E(nil), tables[j]...)
				if j%2 == 0 {
					overwrite = append(overwrite, j)
				}
			}
			over := transcript.New[E, P](testDomain)
			overProof, overOpening, err := ProveEq(over, point, given, terms, sum, Overwrite(overwrite...))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(overProof, wantProof) || !reflect.DeepEqual(overOpening, wantOpening) {
				t.Fatal("the proof with tables overwritten differs")
			}
			for j := range tables {
				if j%2 == 1 && !reflect.DeepEqual(given[j], tables[j]) {
					t.Fatalf("table %d, not handed over, was written", j)
				}
			}
			// The same proof with every other table generated (with its
			// zero granules, or none known), the rest stored and one
			// overwritten: the generator is called only on ranges of the
			// first two rounds.
			stored := make([][]E, len(tables))
			gens := map[int]Generator[E]{}
			overwrite = overwrite[:0]
			for j := range tables {
				if j%2 == 1 {
					stored[j] = append([]E(nil), tables[j]...)
					overwrite = append(overwrite, j)
					continue
				}
				src := tables[j]
				g := Generator[E]{Fill: func(dst []E, start int) {
					if start < 0 || start+len(dst) > len(src) {
						panic("fill out of range")
					}
					copy(dst, src[start:start+len(dst)])
				}}
				if j%4 == 0 {
					g.Zero = poly.ZeroGranules(src)
				}
				gens[j] = g
			}
			generated := transcript.New[E, P](testDomain)
			genProof, genOpening, err := ProveEq(generated, point, stored, terms, sum, Generate(gens), Overwrite(overwrite...))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(genProof, wantProof) || !reflect.DeepEqual(genOpening, wantOpening) {
				t.Fatal("the proof with tables generated differs")
			}
			if generated.Challenge() != over.Challenge() {
				t.Fatal("transcripts differ after the proof with tables generated")
			}
			if !reflect.DeepEqual(copies, tables) {
				t.Fatal("a generated table's source was written")
			}
			// The proof verifies: the final value is β·g at the opening; for
			// another sum it is not.
			degree := Degree([]Instance[E]{{Terms: augmented}})
			end, expected, err := Verify(transcript.New[E, P](testDomain), sum, degree, c.vars, gotProof)
			if err != nil {
				t.Fatal(err)
			}
			value, err := EvaluateTerms[E, P](augmented, gotOpening.Evaluations)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(end, gotOpening.Point) || value != expected {
				t.Fatal("the proof does not verify")
			}
			wrong := sum
			one := field.One[E, P]()
			P(&wrong).Add(&wrong, &one)
			if _, expected, err := Verify(transcript.New[E, P](testDomain), wrong, degree, c.vars, gotProof); err == nil && value == expected {
				t.Fatal("a proof for another sum was accepted")
			}
		})
	}
}

// TestProveEqInput checks ProveEq's refusals.
func TestProveEqInput(t *testing.T) {
	type E = bls12377fr.Element
	rng := rand.New(rand.NewPCG(1, 2))
	tables := [][]E{field.RandomVector[E](rng, 8)}
	terms := []Term[E]{{Coefficient: field.One[E](), Factors: []int{0}}}
	point := field.RandomVector[E](rng, 3)
	var sum E
	for name, call := range map[string]func() error{
		"no variable": func() error { _, _, err := ProveEq(transcript.New[E]("t"), nil, tables, terms, sum); return err },
		"no table":    func() error { _, _, err := ProveEq(transcript.New[E]("t"), point, nil, terms, sum); return err },
		"no term":     func() error { _, _, err := ProveEq(transcript.New[E]("t"), point, tables, nil, sum); return err },
		"short table": func() error { _, _, err := ProveEq(transcript.New[E]("t"), point[:2], tables, terms, sum); return err },
		"overwrite out of range": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, tables, terms, sum, Overwrite(1))
			return err
		},
		"generated out of range": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, tables, terms, sum, Generate(map[int]Generator[E]{1: {Fill: func([]E, int) {}}}))
			return err
		},
		"generated and given": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, tables, terms, sum, Generate(map[int]Generator[E]{0: {Fill: func([]E, int) {}}}))
			return err
		},
		"generated without fill": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, [][]E{nil}, terms, sum, Generate(map[int]Generator[E]{0: {}}))
			return err
		},
		"generated and overwritten": func() error {
			two := [][]E{tables[0], nil}
			_, _, err := ProveEq(transcript.New[E]("t"), point, two, terms, sum, Generate(map[int]Generator[E]{1: {Fill: func([]E, int) {}}}), Overwrite(1))
			return err
		},
		"generated of another field": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, [][]E{nil}, terms, sum, Generate(map[int]Generator[bn254fr.Element]{0: {Fill: func([]bn254fr.Element, int) {}}}))
			return err
		},
		"generated zero flags": func() error {
			big := [][]E{nil}
			p := field.RandomVector[E](rng, 10)
			_, _, err := ProveEq(transcript.New[E]("t"), p, big, terms, sum, Generate(map[int]Generator[E]{0: {Fill: func([]E, int) {}, Zero: make([]bool, 3)}}))
			return err
		},
		"not stored, not generated": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, [][]E{nil}, terms, sum)
			return err
		},
		"factor out of range": func() error {
			_, _, err := ProveEq(transcript.New[E]("t"), point, tables, []Term[E]{{Coefficient: field.One[E](), Factors: []int{1}}}, sum)
			return err
		},
	} {
		if call() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
