package pcs

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// TestProveBatchSum: the batch's own sum-check prover sends what
// sumcheck.Prove sends on the tables padded to the batch's size (rounds,
// final point, transcript state) and returns the padded tables' values
// at the point, for terms of every offset; the caller's tables are left
// unchanged.
func TestProveBatchSum(t *testing.T) {
	rng := newTestRand(t)
	for _, vars := range [][]int{{1}, {3, 1}, {2, 5, 5, 3}, {6, 1, 4, 6, 2}} {
		n := 0
		for _, v := range vars {
			n = max(n, v)
		}
		var terms []batchTerm
		var padded [][]fr.Element
		var sc []sumcheck.Term[fr.Element]
		var sum fr.Element
		var originals, given [][]fr.Element
		for j, v := range vars {
			a := field.RandomVector[fr.Element](rng, 1<<v)
			f := field.RandomVector[fr.Element](rng, 1<<v)
			originals = append(originals, append([]fr.Element(nil), f...))
			given = append(given, f)
			tm := batchTerm{a: append([]fr.Element(nil), a...), f: f, offset: n - v, ip: innerProduct(a, f)}
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
		got, point, evals := proveBatchSum(tb, terms, n, sum)
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
