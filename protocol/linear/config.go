package linear

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// MaxSide bounds every dimension so that products of two of them fit an
// int and padded tables stay addressable.
const MaxSide = 1 << 24

// Projection is one matmul of the layer: its output width out_k and
// whether it adds a bias.
type Projection struct {
	Out  int
	Bias bool
}

// Config is the shape of one linear layer: K = len(Projections) matmuls
// Acc_k = X·W_kᵀ + b_k over one input X of Rows × In. The in-circuit
// verifier (gadgets/linear) is sized by the same value.
type Config struct {
	Rows, In    int
	Projections []Projection
	// SharedRow states that every output claim has the same row point
	// (the usual case: the caller draws one row point for all outputs of a
	// layer). Both verifiers check it; X then enters the sum-check once.
	SharedRow bool
}

// RowVars returns ⌈log₂ Rows⌉, the row coordinates of every output claim.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Rows) }

// InVars returns ⌈log₂ In⌉, the number of sum-check rounds.
func (c Config) InVars() int { return poly.Log2Ceil(c.In) }

// ColVars returns ⌈log₂ out_k⌉, the column coordinates of the claim on
// Acc_k.
func (c Config) ColVars(k int) int { return poly.Log2Ceil(c.Projections[k].Out) }

// NbBiases returns the number of projections with a bias.
func (c Config) NbBiases() int {
	n := 0
	for _, p := range c.Projections {
		if p.Bias {
			n++
		}
	}
	return n
}

// SharesRow reports whether X enters the sum-check as one table: the
// claims share their row point (SharedRow), X has one row, or there is
// one projection.
func (c Config) SharesRow() bool {
	return c.SharedRow || c.RowVars() == 0 || len(c.Projections) == 1
}

// NbInputs returns the number of claimed evaluations of X the proof
// carries: 1 when [Config.SharesRow], else one per projection (merged by a
// same-poly proof).
func (c Config) NbInputs() int {
	if c.SharesRow() {
		return 1
	}
	return len(c.Projections)
}

// Validate checks the shape: every dimension in [1, 2^24], padded tables of
// at most 2^32 entries, at least one projection.
func (c Config) Validate() error {
	if c.Rows < 1 || c.Rows > MaxSide {
		return fmt.Errorf("linear: rows %d outside [1, 2^24]", c.Rows)
	}
	if c.In < 1 || c.In > MaxSide {
		return fmt.Errorf("linear: input width %d outside [1, 2^24]", c.In)
	}
	if len(c.Projections) == 0 {
		return fmt.Errorf("linear: no projection")
	}
	if c.RowVars()+c.InVars() > 32 {
		return fmt.Errorf("linear: input %d×%d pads to more than 2^32 entries", c.Rows, c.In)
	}
	for k, p := range c.Projections {
		if p.Out < 1 || p.Out > MaxSide {
			return fmt.Errorf("linear: projection %d has output width %d outside [1, 2^24]", k, p.Out)
		}
		if c.ColVars(k)+c.InVars() > 32 {
			return fmt.Errorf("linear: weight %d of %d×%d pads to more than 2^32 entries", k, p.Out, c.In)
		}
	}
	return nil
}

// CheckClaims checks that there is one output claim per projection, with
// RowVars + ColVars(k) coordinates (points[k] is the length of claim k's
// point).
func (c Config) CheckClaims(points []int) error {
	if len(points) != len(c.Projections) {
		return fmt.Errorf("linear: %d output claims for %d projections", len(points), len(c.Projections))
	}
	for k, n := range points {
		if want := c.RowVars() + c.ColVars(k); n != want {
			return fmt.Errorf("linear: output claim %d has %d coordinates, want %d", k, n, want)
		}
	}
	return nil
}

// Factors returns the factor indices of projection k's term X·W_k in the
// sum-check table list: (X, W₀, …, W_{K−1}) when [Config.SharesRow], else
// (X₀, W₀, X₁, W₁, …) with X_k the input bound to row point k.
func (c Config) Factors(k int) []int {
	if c.SharesRow() {
		return []int{0, k + 1}
	}
	return []int{2 * k, 2*k + 1}
}

// Witness holds the layer's tensors, row-major: X is Rows × In, Weights[k]
// is out_k × In (the [out, in] layout of the model package), Biases[k] has
// out_k entries or is nil for a projection without bias (Biases may be nil
// when no projection has one).
type Witness struct {
	X       []int64
	Weights [][]int8
	Biases  [][]int64
}

func (w *Witness) check(cfg Config) error {
	if len(w.X) != cfg.Rows*cfg.In {
		return fmt.Errorf("linear: X has %d entries, want %d×%d", len(w.X), cfg.Rows, cfg.In)
	}
	if len(w.Weights) != len(cfg.Projections) {
		return fmt.Errorf("linear: %d weight matrices for %d projections", len(w.Weights), len(cfg.Projections))
	}
	if w.Biases != nil && len(w.Biases) != len(cfg.Projections) {
		return fmt.Errorf("linear: %d bias vectors for %d projections", len(w.Biases), len(cfg.Projections))
	}
	for k, p := range cfg.Projections {
		if len(w.Weights[k]) != p.Out*cfg.In {
			return fmt.Errorf("linear: weight %d has %d entries, want %d×%d", k, len(w.Weights[k]), p.Out, cfg.In)
		}
		var b []int64
		if w.Biases != nil {
			b = w.Biases[k]
		}
		switch {
		case p.Bias && len(b) != p.Out:
			return fmt.Errorf("linear: bias %d has %d entries, want %d", k, len(b), p.Out)
		case !p.Bias && b != nil:
			return fmt.Errorf("linear: bias given for projection %d, which has none", k)
		}
	}
	return nil
}

// Proof is the prover's message for one linear layer.
type Proof[E field.Scalar] struct {
	// Biases holds b_k(r_col_k) for every projection with a bias, in order.
	Biases []E
	// SumCheck is the batched sum-check over the In coordinates.
	SumCheck sumcheck.Proof[E]
	// Inputs holds X(r_row_k ‖ r*): one value when the row is shared (see
	// [Config.SharesRow]), else one per projection.
	Inputs []E
	// Weights holds W_k(r_col_k ‖ r*) per projection.
	Weights []E
	// Merge accumulates the claims on X when the rows are not shared.
	Merge *sumcheck.SamePolyProof[E]
}

// Claims are the claims the layer leaves.
type Claims[E field.Scalar] struct {
	// Input is on X (Rows × In, padded), point (r_row ‖ r*).
	Input poly.Claim[E]
	// Weights[k] is on W_k (out_k × In, padded), point (r_col_k ‖ r*).
	Weights []poly.Claim[E]
	// Biases[k] is on b_k (out_k, padded), point r_col_k; a zero claim
	// (nil point) for a projection without bias.
	Biases []poly.Claim[E]
}

// checkClaims validates the output claims against the shape and, with
// SharedRow, that their row points coincide.
func checkClaims[E field.Scalar, P field.Ptr[E]](cfg Config, out []poly.Claim[E]) error {
	points := make([]int, len(out))
	for k := range out {
		points[k] = len(out[k].Point)
	}
	if err := cfg.CheckClaims(points); err != nil {
		return err
	}
	if cfg.SharedRow {
		for k := 1; k < len(out); k++ {
			for i := range cfg.RowVars() {
				if !P(&out[k].Point[i]).Equal(&out[0].Point[i]) {
					return fmt.Errorf("linear: output claim %d has another row point than claim 0", k)
				}
			}
		}
	}
	return nil
}
