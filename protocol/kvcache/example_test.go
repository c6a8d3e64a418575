package kvcache_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/kvcache"
	"github.com/veriformer/veriformer/transcript"
)

// A decoding pass writes its key row at position 2 of a cache of context 4:
// a claim on the new cache splits into a claim on the previous cache (for
// the previous pass) and a claim on the new row (for the layers that made
// it).
func Example() {
	type E = bn254fr.Element
	cfg := kvcache.Config{Context: 4, Width: 3, Position: 2, Claims: 1}
	w := kvcache.Witness{Prev: []int64{1, 2, 3, 4, 5, 6}, New: []int64{7, 8, 9}, Live: 1}
	next := append(append([]int64(nil), w.Prev...), w.New...)
	point := transcript.New[E]("example").Challenges(cfg.RowVars() + cfg.ColVars())
	value, err := poly.EvaluateTensor[E](append(next, 0, 0, 0), []int{4, 3}, point)
	if err != nil {
		panic(err)
	}
	out := []poly.Claim[E]{{Point: point, Value: value}}
	proof, _, err := kvcache.Prove(transcript.New[E]("pass"), cfg, w, out)
	if err != nil {
		panic(err)
	}
	claims, err := kvcache.Verify(transcript.New[E]("pass"), cfg, w.Live, proof, out)
	if err != nil {
		panic(err)
	}
	prev, err := poly.EvaluateTensor[E](append(w.Prev, make([]int64, 6)...), []int{4, 3}, claims.Prev.Point)
	if err != nil {
		panic(err)
	}
	row, err := poly.EvaluateTensor[E](w.New, []int{1, 3}, claims.New.Point)
	if err != nil {
		panic(err)
	}
	fmt.Println(prev.Equal(&claims.Prev.Value), row.Equal(&claims.New.Value))
	// Output: true true
}
