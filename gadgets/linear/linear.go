package linear

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
)

// maxSide bounds every dimension so that products of two of them fit an
// int and padded tables stay addressable.
const maxSide = 1 << 24

// Projection is one matmul of the layer: its output width out_k and
// whether it adds a bias.
type Projection struct {
	Out  int
	Bias bool
}

// Shape is the shape of one linear layer: K = len(Projections) matmuls
// Acc_k = X·W_kᵀ + b_k sharing the input X of Rows × In.
type Shape struct {
	Rows, In    int
	Projections []Projection
	// SharedRow states that every output claim has the same row point
	// (the usual case: the caller draws one row point for all outputs of a
	// layer). The verifier checks it; X then enters the sum-check once.
	SharedRow bool
}

func log2Ceil(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// RowVars returns ⌈log₂ Rows⌉, the row coordinates of every output claim.
func (s Shape) RowVars() int { return log2Ceil(s.Rows) }

// InVars returns ⌈log₂ In⌉, the number of sum-check rounds.
func (s Shape) InVars() int { return log2Ceil(s.In) }

// ColVars returns ⌈log₂ out_k⌉, the column coordinates of the claim on
// Acc_k.
func (s Shape) ColVars(k int) int { return log2Ceil(s.Projections[k].Out) }

// NbBiases returns the number of projections with a bias.
func (s Shape) NbBiases() int {
	n := 0
	for _, p := range s.Projections {
		if p.Bias {
			n++
		}
	}
	return n
}

// SharesRow reports whether X enters the sum-check as one table: the
// claims share their row point (SharedRow), X has one row, or there is
// one projection.
func (s Shape) SharesRow() bool {
	return s.SharedRow || s.RowVars() == 0 || len(s.Projections) == 1
}

// NbInputs returns the number of claimed evaluations of X the proof
// carries: 1 when [Shape.SharesRow], else one per projection (merged by a
// same-poly proof).
func (s Shape) NbInputs() int {
	if s.SharesRow() {
		return 1
	}
	return len(s.Projections)
}

// Validate checks the shape; the native package uses it too.
func (s Shape) Validate() error {
	if s.Rows < 1 || s.Rows > maxSide {
		return fmt.Errorf("linear: rows %d outside [1, 2^24]", s.Rows)
	}
	if s.In < 1 || s.In > maxSide {
		return fmt.Errorf("linear: input width %d outside [1, 2^24]", s.In)
	}
	if len(s.Projections) == 0 {
		return fmt.Errorf("linear: no projection")
	}
	if s.RowVars()+s.InVars() > 32 {
		return fmt.Errorf("linear: input %d×%d pads to more than 2^32 entries", s.Rows, s.In)
	}
	for k, p := range s.Projections {
		if p.Out < 1 || p.Out > maxSide {
			return fmt.Errorf("linear: projection %d has output width %d outside [1, 2^24]", k, p.Out)
		}
		if s.ColVars(k)+s.InVars() > 32 {
			return fmt.Errorf("linear: weight %d of %d×%d pads to more than 2^32 entries", k, p.Out, s.In)
		}
	}
	return nil
}

// CheckClaims checks that there is one output claim per projection, with
// RowVars + ColVars(k) coordinates.
func (s Shape) CheckClaims(points []int) error {
	if len(points) != len(s.Projections) {
		return fmt.Errorf("linear: %d output claims for %d projections", len(points), len(s.Projections))
	}
	for k, n := range points {
		if want := s.RowVars() + s.ColVars(k); n != want {
			return fmt.Errorf("linear: output claim %d has %d coordinates, want %d", k, n, want)
		}
	}
	return nil
}

// Factors returns the factor indices of projection k's term X·W_k in the
// sum-check table list: (X, W₀, …, W_{K−1}) when [Shape.SharesRow], else
// (X₀, W₀, X₁, W₁, …) with X_k the input bound to row point k.
func (s Shape) Factors(k int) []int {
	if s.SharesRow() {
		return []int{0, k + 1}
	}
	return []int{2 * k, 2*k + 1}
}

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

// PlaceholderProof sizes a proof for shape.
func PlaceholderProof(shape Shape) Proof {
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
func Verify(api frontend.API, tr *transcript.Transcript, shape Shape, proof Proof, out []poly.Claim) (Claims, error) {
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
	claims.Input = poly.Claim{Point: concat(out[0].Point[:rv], r), Value: proof.Inputs[0]}
	if !shape.SharesRow() {
		rowClaims := make([]poly.Claim, len(out))
		for k := range out {
			rowClaims[k] = poly.Claim{Point: out[k].Point[:rv], Value: proof.Inputs[k]}
		}
		c, err := sumcheck.VerifySamePoly(api, tr, rowClaims, proof.Merge[0])
		if err != nil {
			return claims, fmt.Errorf("linear: same-poly on X: %w", err)
		}
		claims.Input = poly.Claim{Point: concat(c.Point, r), Value: c.Value}
	}
	claims.Weights = make([]poly.Claim, len(out))
	claims.Biases = make([]poly.Claim, len(out))
	for k := range out {
		col := out[k].Point[rv:]
		claims.Weights[k] = poly.Claim{Point: concat(col, r), Value: proof.Weights[k]}
		if biasOf[k] >= 0 {
			claims.Biases[k] = poly.Claim{Point: concat(col, nil), Value: proof.Biases[biasOf[k]]}
		}
	}
	return claims, nil
}

func concat(a, b []frontend.Variable) []frontend.Variable {
	return append(append(make([]frontend.Variable, 0, len(a)+len(b)), a...), b...)
}
