package qkv

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
)

// Shape is the shape of one QKV layer (see the native Config).
type Shape struct {
	Rows, Hidden            int
	Heads, KVHeads, HeadDim int
	Bias                    bool
}

func log2Ceil(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

func (s Shape) rowVars() int    { return log2Ceil(s.Rows) }
func (s Shape) hiddenVars() int { return log2Ceil(s.Hidden) }
func (s Shape) colVars() [3]int {
	q, kv := log2Ceil(s.Heads*s.HeadDim), log2Ceil(s.KVHeads*s.HeadDim)
	return [3]int{q, kv, kv}
}

func (s Shape) validate() error {
	if s.Rows < 1 || s.Hidden < 1 || s.Heads < 1 || s.KVHeads < 1 || s.HeadDim < 1 || s.Heads%s.KVHeads != 0 {
		return fmt.Errorf("qkv: invalid shape %+v", s)
	}
	return nil
}

// Proof is the in-circuit QKV proof, laid out like the native one.
type Proof struct {
	// Biases: b_o(r_o^col) for o = Q, K, V; empty without bias.
	Biases   []frontend.Variable
	SumCheck sumcheck.Proof
	// Inputs: X(r_o^row, r) for o = Q, K, V, or one X(r) when Rows = 1.
	Inputs  []frontend.Variable
	Weights []frontend.Variable
	// Merge: the same-poly proof on X, one entry (none when Rows = 1).
	Merge []sumcheck.SamePolyProof
}

// PlaceholderProof sizes a proof for shape.
func PlaceholderProof(shape Shape) Proof {
	p := Proof{
		SumCheck: sumcheck.PlaceholderProof(shape.hiddenVars(), 2),
		Inputs:   make([]frontend.Variable, 3),
		Weights:  make([]frontend.Variable, 3),
	}
	if shape.Bias {
		p.Biases = make([]frontend.Variable, 3)
	}
	if shape.rowVars() == 0 {
		p.Inputs = p.Inputs[:1]
	} else {
		p.Merge = []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(shape.rowVars())}
	}
	return p
}

// Claims are the claims the layer leaves (see the native Claims).
type Claims struct {
	Input                     poly.Claim
	WeightQ, WeightK, WeightV poly.Claim
	// BiasQ, BiasK, BiasV have nil points without bias.
	BiasQ, BiasK, BiasV poly.Claim
}

// Verify checks a QKV proof against the claims out = [on Q, on K, on V] in
// the transcript order of the native verifier and returns the claims on X,
// the weights and the biases.
func Verify(api frontend.API, tr *transcript.Transcript, shape Shape, proof Proof, out []poly.Claim) (Claims, error) {
	var claims Claims
	if err := shape.validate(); err != nil {
		return claims, err
	}
	rv, cols := shape.rowVars(), shape.colVars()
	if len(out) != 3 {
		return claims, fmt.Errorf("qkv: %d output claims, want 3", len(out))
	}
	for o, c := range out {
		if len(c.Point) != rv+cols[o] {
			return claims, fmt.Errorf("qkv: output claim %d has %d coordinates, want %d", o, len(c.Point), rv+cols[o])
		}
	}
	want := PlaceholderProof(shape)
	if len(proof.Biases) != len(want.Biases) || len(proof.Inputs) != len(want.Inputs) || len(proof.Weights) != 3 || len(proof.Merge) != len(want.Merge) {
		return claims, fmt.Errorf("qkv: proof does not match shape %+v", shape)
	}
	tr.Label("qkv")
	tr.Absorb(proof.Biases...)
	inst := make([]sumcheck.Instance, 3)
	for o := range 3 {
		sum := out[o].Value
		if shape.Bias {
			sum = api.Sub(sum, api.Mul(poly.Prefix(api, out[o].Point[:rv], shape.Rows), proof.Biases[o]))
		}
		factors := []int{2 * o, 2*o + 1}
		if rv == 0 {
			factors = []int{0, o + 1}
		}
		inst[o] = sumcheck.Instance{Terms: []sumcheck.Term{{Coefficient: 1, Factors: factors}}, Sum: sum}
	}
	final, err := sumcheck.VerifyBatch(api, tr, inst, proof.SumCheck)
	if err != nil {
		return claims, fmt.Errorf("qkv: sum-check: %w", err)
	}
	if len(final.Point) != shape.hiddenVars() {
		return claims, fmt.Errorf("qkv: sum-check has %d rounds, want %d", len(final.Point), shape.hiddenVars())
	}
	tr.Absorb(proof.Weights...)
	var values []frontend.Variable
	if rv == 0 {
		tr.Absorb(proof.Inputs...)
		values = []frontend.Variable{proof.Inputs[0], proof.Weights[0], proof.Weights[1], proof.Weights[2]}
	} else {
		values = []frontend.Variable{proof.Inputs[0], proof.Weights[0], proof.Inputs[1], proof.Weights[1], proof.Inputs[2], proof.Weights[2]}
	}
	if err := sumcheck.AssertEvaluations(api, final, inst, values); err != nil {
		return claims, fmt.Errorf("qkv: final check: %w", err)
	}
	r := final.Point
	claims.Input = poly.Claim{Point: r, Value: proof.Inputs[0]}
	if rv > 0 {
		rowClaims := make([]poly.Claim, 3)
		for o := range 3 {
			rowClaims[o] = poly.Claim{Point: out[o].Point[:rv], Value: proof.Inputs[o]}
		}
		c, err := sumcheck.VerifySamePoly(api, tr, rowClaims, proof.Merge[0])
		if err != nil {
			return claims, fmt.Errorf("qkv: same-poly on X: %w", err)
		}
		claims.Input = poly.Claim{Point: append(append([]frontend.Variable(nil), c.Point...), r...), Value: c.Value}
	}
	var weights, biases [3]poly.Claim
	for o := range 3 {
		col := out[o].Point[rv:]
		weights[o] = poly.Claim{Point: append(append([]frontend.Variable(nil), col...), r...), Value: proof.Weights[o]}
		if shape.Bias {
			biases[o] = poly.Claim{Point: append([]frontend.Variable(nil), col...), Value: proof.Biases[o]}
		}
	}
	claims.WeightQ, claims.WeightK, claims.WeightV = weights[0], weights[1], weights[2]
	claims.BiasQ, claims.BiasK, claims.BiasV = biases[0], biases[1], biases[2]
	return claims, nil
}
