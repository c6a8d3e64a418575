package linear

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// Projection is one matmul of the layer: output width and bias flag.
type Projection = gadget.Projection

// Config is the shape of one linear layer: K = len(Projections) matmuls
// Acc_k = X·W_kᵀ + b_k over one input X of Rows × In.
type Config struct {
	Rows, In    int
	Projections []Projection
	// SharedRow states that all output claims have the same row point;
	// Prove and Verify check it.
	SharedRow bool
}

// Shape returns the gadget's shape.
func (c Config) Shape() gadget.Shape {
	return gadget.Shape{Rows: c.Rows, In: c.In, Projections: append([]Projection(nil), c.Projections...), SharedRow: c.SharedRow}
}

// Validate checks the shape (every dimension in [1, 2^24], padded tables of
// at most 2^32 entries, at least one projection).
func (c Config) Validate() error { return c.Shape().Validate() }

// RowVars returns ⌈log₂ Rows⌉.
func (c Config) RowVars() int { return poly.Log2Ceil(c.Rows) }

// InVars returns ⌈log₂ In⌉, the number of sum-check rounds.
func (c Config) InVars() int { return poly.Log2Ceil(c.In) }

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
	// gadgets/linear.Shape.SharesRow), else one per projection.
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
	if err := cfg.Shape().CheckClaims(points); err != nil {
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
