package position_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/position"
	"github.com/veriformer/veriformer/transcript"
)

// A three-token prompt against a position table of context 8: the claim
// on the output becomes a claim on the token embeddings and one on the
// whole table, through a masked sum-check (3 is not a power of two) and two
// halvings (4 rows to 8).
func Example() {
	type E = bn254fr.Element
	cfg := position.Config{Rows: 3, Width: 2, Context: 8}
	w := position.Witness{
		X:     []int64{1, 2, 3, 4, 5, 6},
		Table: []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160},
	}
	o := make([]int64, 6)
	for i := range o {
		o[i] = w.X[i] + w.Table[i]
	}
	point := transcript.New[E]("example").Challenges(cfg.RowVars() + cfg.ColVars())
	out := []poly.Claim[E]{{Point: point, Value: position.EvaluateTable[E](o, 3, 2, point)}}
	proof, _, err := position.Prove(transcript.New[E]("layer"), cfg, w, out)
	if err != nil {
		panic(err)
	}
	claims, err := position.Verify(transcript.New[E]("layer"), cfg, proof, out)
	if err != nil {
		panic(err)
	}
	table := position.EvaluateTable[E](w.Table, 8, 2, claims.Table.Point)
	fmt.Println(len(proof.Siblings), table.Equal(&claims.Table.Value))
	// Output: 1 true
}
