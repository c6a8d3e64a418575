package embedding_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/embedding"
	"github.com/veriformer/veriformer/transcript"
)

// Three tokens of a five-entry vocabulary: the claim on the looked-up rows
// becomes a claim on the table; the verifier needs only the token ids.
func Example() {
	type E = bn254fr.Element
	cfg := embedding.Config{Rows: 3, Vocab: 5, Width: 2}
	w := embedding.Witness{Tokens: []int{4, 0, 4}, Table: []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, -10}}
	x, err := embedding.Compute(cfg, w)
	if err != nil {
		panic(err)
	}
	point := transcript.New[E]("example").Challenges(cfg.RowVars() + cfg.ColVars())
	out := []poly.Claim[E]{{Point: point, Value: embedding.EvaluateTable[E](x, 3, 2, point)}}
	proof, _, err := embedding.Prove(transcript.New[E]("layer"), cfg, w, out)
	if err != nil {
		panic(err)
	}
	claims, err := embedding.Verify(transcript.New[E]("layer"), cfg, w.Tokens, proof, out)
	if err != nil {
		panic(err)
	}
	table := embedding.EvaluateTable[E](w.Table, 5, 2, claims.Table.Point)
	fmt.Println(x, table.Equal(&claims.Table.Value))
	// Output: [9 -10 1 2 9 -10] true
}
