package qkv_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/protocol/qkv"
	"github.com/veriformer/veriformer/transcript"
)

// A two-token pass of a layer with two query heads sharing one key/value
// head: the prover turns claims on Q, K, V into claims on X and the
// weights, the verifier replays the transcript, and the caller checks the
// claims on X and W_Q against the tensors.
func Example() {
	type E = bn254fr.Element
	cfg := qkv.Config{Rows: 2, Hidden: 3, Heads: 2, KVHeads: 1, HeadDim: 2, Bias: true}
	w := qkv.Witness{
		X: []int64{1, -2, 3, 4, 5, -6},
		Weights: [][]int8{
			{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}, // W_Q: 4 × 3
			{2, 0, -1, 0, 3, 0},                  // W_K: 2 × 3
			{-1, -1, 0, 0, 1, 1},                 // W_V: 2 × 3
		},
		Biases: [][]int64{{1, 2, 3, 4}, {10, 20}, {0, -5}},
	}
	// Claims on the outputs at points drawn from an earlier transcript.
	points := transcript.New[E]("example").Challenges(3 + 2*2)
	pointOf := [3][]E{points[:3], points[3:5], points[5:7]}
	widths := [3]int{cfg.QCols(), cfg.KVCols(), cfg.KVCols()}
	var q []int64
	out := make([]poly.Claim[E], 3)
	for o := range 3 {
		acc := model.MatMulInt(w.X, cfg.Rows, cfg.Hidden, w.Weights[o], widths[o], w.Biases[o])
		if o == 0 {
			q = acc
		}
		v, err := poly.EvaluateTensor[E](acc, []int{cfg.Rows, widths[o]}, pointOf[o])
		if err != nil {
			panic(err)
		}
		out[o] = poly.Claim[E]{Point: pointOf[o], Value: v}
	}
	proof, _, err := qkv.Prove(transcript.New[E]("layer"), cfg, w, out)
	if err != nil {
		panic(err)
	}
	claims, err := qkv.Verify(transcript.New[E]("layer"), cfg, proof, out)
	if err != nil {
		panic(err)
	}
	wq, err := linear.EvaluateWeight[E](w.Weights[0], cfg.QCols(), cfg.Hidden, claims.Weights[0].Point)
	if err != nil {
		panic(err)
	}
	x, err := poly.EvaluateTensor[E](w.X, []int{cfg.Rows, cfg.Hidden}, claims.Input.Point)
	if err != nil {
		panic(err)
	}
	fmt.Println(q[:4], wq.Equal(&claims.Weights[0].Value), x.Equal(&claims.Input.Value))
	// Output: [2 0 6 6] true true
}
