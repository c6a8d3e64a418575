package linear

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
)

// Proof is the in-circuit linear-layer proof, laid out like the native
// one.
type Proof struct {
	// Biases holds b_k(r_col_k) for every projection with a bias, in order.
	Biases   []frontend.Variable
	SumCheck sumcheck.Proof
	// Inputs holds X(r_row_k ‖ r*): one value when the row is shared, else
	// one per projection.
	Inputs []frontend.Variable
	// Weights holds W_k(r_col_k ‖ r*) per projection.
	Weights []frontend.Variable
	// Merge is the same-poly proof merging the claims on X (one entry when
	// the rows are not shared, none otherwise).
	Merge []sumcheck.SamePolyProof
}

// PlaceholderProof sizes a proof for the layer cfg.
func PlaceholderProof(shape linear.Config) Proof {
	p := Proof{
		Biases:   make([]frontend.Variable, shape.NbBiases()),
		SumCheck: sumcheck.PlaceholderProof(shape.InVars(), 2),
		Inputs:   make([]frontend.Variable, shape.NbInputs()),
		Weights:  make([]frontend.Variable, len(shape.Projections)),
	}
	if !shape.SharesRow() {
		p.Merge = []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(shape.RowVars())}
	}
	return p
}

// ValueOfProof returns the assignment of a native proof.
func ValueOfProof[E field.Scalar](p *linear.Proof[E]) Proof {
	return Proof{
		Biases:   poly.ValuesOf(p.Biases),
		SumCheck: sumcheck.ValueOfProof(&p.SumCheck),
		Inputs:   poly.ValuesOf(p.Inputs),
		Weights:  poly.ValuesOf(p.Weights),
		Merge:    sumcheck.ValueOfSamePolyProofs(p.Merge),
	}
}

// Claims are the claims the layer leaves.
type Claims struct {
	// Input is on X (Rows × In, padded), point (r_row ‖ r*).
	Input poly.Claim
	// Weights[k] is on W_k (out_k × In, padded), point (r_col_k ‖ r*).
	Weights []poly.Claim
	// Biases[k] is on b_k (out_k, padded), point r_col_k; a zero claim
	// (nil point) for a projection without bias.
	Biases []poly.Claim
}

// Verify checks a linear-layer proof against the claims out (one per
// projection, on Acc_k at (r_row_k ‖ r_col_k)) in the transcript order of
// the native verifier and returns the claims on X, the weights and the
// biases. The caller checks the weight and bias claims, e.g. with
// [EvaluateWeight] and [EvaluateBias] from constants.
func Verify(api frontend.API, tr *transcript.Transcript, shape linear.Config, proof Proof, out []poly.Claim) (Claims, error) {
	var claims Claims
	if err := shape.Validate(); err != nil {
		return claims, err
	}
	points := make([]int, len(out))
	for k := range out {
		points[k] = len(out[k].Point)
	}
	if err := shape.CheckClaims(points); err != nil {
		return claims, err
	}
	want := PlaceholderProof(shape)
	if len(proof.Biases) != len(want.Biases) || len(proof.Inputs) != len(want.Inputs) ||
		len(proof.Weights) != len(want.Weights) || len(proof.Merge) != len(want.Merge) ||
		len(proof.SumCheck.Rounds) != shape.InVars() {
		return claims, fmt.Errorf("linear: proof does not match shape %+v", shape)
	}
	rv := shape.RowVars()
	if shape.SharedRow {
		for k := 1; k < len(out); k++ {
			for i := range rv {
				api.AssertIsEqual(out[k].Point[i], out[0].Point[i])
			}
		}
	}
	tr.Label("linear")
	tr.Absorb(proof.Biases...)
	inst := make([]sumcheck.Instance, len(out))
	bias := 0
	biasOf := make([]int, len(out))
	for k, p := range shape.Projections {
		sum := out[k].Value
		biasOf[k] = -1
		if p.Bias {
			biasOf[k] = bias
			sum = api.Sub(sum, api.Mul(poly.Prefix(api, out[k].Point[:rv], shape.Rows), proof.Biases[bias]))
			bias++
		}
		inst[k] = sumcheck.Instance{Terms: []sumcheck.Term{{Coefficient: 1, Factors: shape.Factors(k)}}, Sum: sum}
	}
	final, err := sumcheck.VerifyBatch(api, tr, inst, proof.SumCheck)
	if err != nil {
		return claims, fmt.Errorf("linear: sum-check: %w", err)
	}
	tr.Absorb(proof.Weights...)
	tr.Absorb(proof.Inputs...)
	values := make([]frontend.Variable, 0, 2*len(out))
	if shape.SharesRow() {
		values = append(append(values, proof.Inputs[0]), proof.Weights...)
	} else {
		for k := range out {
			values = append(values, proof.Inputs[k], proof.Weights[k])
		}
	}
	if err := sumcheck.AssertEvaluations(api, final, inst, values); err != nil {
		return claims, fmt.Errorf("linear: final check: %w", err)
	}
	r := final.Point
	claims.Input = poly.Claim{Point: npoly.Concat(out[0].Point[:rv], r), Value: proof.Inputs[0]}
	if !shape.SharesRow() {
		rowClaims := make([]poly.Claim, len(out))
		for k := range out {
			rowClaims[k] = poly.Claim{Point: out[k].Point[:rv], Value: proof.Inputs[k]}
		}
		c, err := sumcheck.VerifySamePoly(api, tr, rowClaims, proof.Merge[0])
		if err != nil {
			return claims, fmt.Errorf("linear: same-poly on X: %w", err)
		}
		claims.Input = poly.Claim{Point: npoly.Concat(c.Point, r), Value: c.Value}
	}
	claims.Weights = make([]poly.Claim, len(out))
	claims.Biases = make([]poly.Claim, len(out))
	for k := range out {
		col := out[k].Point[rv:]
		claims.Weights[k] = poly.Claim{Point: npoly.Concat(col, r), Value: proof.Weights[k]}
		if biasOf[k] >= 0 {
			claims.Biases[k] = poly.Claim{Point: npoly.Concat(col, nil), Value: proof.Biases[biasOf[k]]}
		}
	}
	return claims, nil
}
