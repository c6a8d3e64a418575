package lookup_test

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/transcript"
)

// A segment's lookups into two tables in one instance, with committed
// multiplicities: the prover computes the multiplicities, commits to them
// (here a stand-in digest), and proves; the verifier absorbs the same
// digest and obtains the claims that the grouped opening proves later.
func ExampleProveCommitted() {
	square, _ := table.Function("square", 0, []int64{0, 1, 4, 9})
	set, err := table.NewSet("segment", table.Range(4), square)
	if err != nil {
		panic(err)
	}
	// Column 0 is the table id (1 = range4, 2 = square), then the columns.
	lk := lookup.Lookups{Shape: []int{5}, Columns: [][]int64{
		{1, 1, 2, 2, 1},
		{7, 15, 3, 1, 0},
		{0, 0, 9, 1, 0},
	}}
	m, err := lookup.SetMultiplicities(set, &lk)
	if err != nil {
		panic(err)
	}
	digest := []fr.Element{field.FromInt64[fr.Element](12345)} // the commitment to m
	proof, _, err := lookup.ProveCommitted(transcript.New[fr.Element]("example"), digest, set, &lk, m)
	if err != nil {
		panic(err)
	}
	claims, err := lookup.VerifyCommitted(transcript.New[fr.Element]("example"), digest, set, lk.Shape, proof)
	if err != nil {
		panic(err)
	}
	fmt.Printf("set of 2^%d rows, %d column claims, a multiplicity claim at a point of %d coordinates\n",
		set.NbVars, len(claims.Columns), len(claims.Multiplicities.Point))
	// Output: set of 2^5 rows, 3 column claims, a multiplicity claim at a point of 5 coordinates
}
