package linear_test

import (
	"fmt"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/transcript"
)

type fr = bn254fr.Element

// Two projections of three 4-wide rows, one with a bias, claimed at points
// with one shared row point; the verifier's claims are checked against the
// tensors as the caller does.
func Example() {
	cfg := linear.Config{Rows: 3, In: 4, Projections: []linear.Projection{{Out: 2, Bias: true}, {Out: 3}}, SharedRow: true}
	w := linear.Witness{
		X:       []int64{1, 2, 3, 4, 5, 6, 7, 8, -9, 10, 11, 12},
		Weights: [][]int8{{1, -1, 2, 0, 3, 1, -128, 127}, {0, 0, 1, 1, 2, -2, 5, 1, -1, -1, -1, -1}},
		Biases:  [][]int64{{100, -100}, nil},
	}
	// The statement's claims: one row point (2 coordinates) for both
	// outputs, a column point each. In a pipeline they come from
	// protocol/requant.EvaluateAcc on the opened outputs.
	prover := transcript.New[fr]("example")
	row := prover.Challenges(2)
	out := make([]poly.Claim[fr], 2)
	for k, p := range cfg.Projections {
		acc := model.MatMulInt(w.X, cfg.Rows, cfg.In, w.Weights[k], p.Out, w.Biases[k])
		point := append(append([]fr(nil), row...), prover.Challenges(poly.Log2Ceil(p.Out))...)
		v, _ := poly.EvaluateTensor[fr](acc, []int{cfg.Rows, p.Out}, point)
		out[k] = poly.Claim[fr]{Point: point, Value: v}
	}
	proof, _, err := linear.Prove(prover, cfg, w, out)
	if err != nil {
		panic(err)
	}

	verifier := transcript.New[fr]("example")
	verifier.Challenges(2)
	verifier.Challenges(1)
	verifier.Challenges(2)
	claims, err := linear.Verify(verifier, cfg, proof, out)
	fmt.Println("verified:", err == nil)
	x, _ := poly.EvaluateTensor[fr](w.X, []int{3, 4}, claims.Input.Point)
	fmt.Println("input claim holds:", x.Equal(&claims.Input.Value))
	for k, p := range cfg.Projections {
		v, _ := linear.EvaluateWeight[fr](w.Weights[k], p.Out, cfg.In, claims.Weights[k].Point)
		fmt.Printf("weight %d claim holds: %v\n", k, v.Equal(&claims.Weights[k].Value))
	}
	b, _ := linear.EvaluateBias[fr](w.Biases[0], claims.Biases[0].Point)
	fmt.Println("bias 0 claim holds:", b.Equal(&claims.Biases[0].Value))
	fmt.Println("sum-check rounds:", len(proof.SumCheck.Rounds))
	// Output:
	// verified: true
	// input claim holds: true
	// weight 0 claim holds: true
	// weight 1 claim holds: true
	// bias 0 claim holds: true
	// sum-check rounds: 2
}
