package qkv_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/qkv"
	"github.com/veriformer/veriformer/transcript"
)

// A two-token pass of a layer with two query heads sharing one key/value
// head: the prover turns claims on Q, K, V into claims on X and the
// weights, the verifier replays the transcript, and the caller checks the
// weight claims against the weights.
func Example() {
	type E = bn254fr.Element
	cfg := qkv.Config{Rows: 2, Hidden: 3, Heads: 2, KVHeads: 1, HeadDim: 2, Bias: true}
	w := qkv.Witness{
		X:  []int64{1, -2, 3, 4, 5, -6},
		WQ: []int64{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1},
		WK: []int64{2, 0, -1, 0, 3, 0},
		WV: []int64{-1, -1, 0, 0, 1, 1},
		BQ: []int64{1, 2, 3, 4}, BK: []int64{10, 20}, BV: []int64{0, -5},
	}
	q, k, v, err := qkv.Compute(cfg, w)
	if err != nil {
		panic(err)
	}
	// Claims on the outputs at points drawn from an earlier transcript.
	points := transcript.New[E]("example").Challenges(3 + 2*2)
	out := []poly.Claim[E]{
		{Point: points[:3], Value: qkv.EvaluateMatrix[E](q, 2, 4, points[:3])},
		{Point: points[3:5], Value: qkv.EvaluateMatrix[E](k, 2, 2, points[3:5])},
		{Point: points[5:7], Value: qkv.EvaluateMatrix[E](v, 2, 2, points[5:7])},
	}
	proof, _, err := qkv.Prove(transcript.New[E]("layer"), cfg, w, out)
	if err != nil {
		panic(err)
	}
	claims, err := qkv.Verify(transcript.New[E]("layer"), cfg, proof, out)
	if err != nil {
		panic(err)
	}
	wq := qkv.EvaluateMatrix[E](w.WQ, cfg.QCols(), cfg.Hidden, claims.WeightQ.Point)
	x := qkv.EvaluateMatrix[E](w.X, cfg.Rows, cfg.Hidden, claims.Input.Point)
	fmt.Println(q[:4], wq.Equal(&claims.WeightQ.Value), x.Equal(&claims.Input.Value))
	// Output: [2 0 6 6] true true
}
