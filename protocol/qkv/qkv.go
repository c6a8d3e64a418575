package qkv

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/transcript"
)

// Config is the shape of one QKV layer.
type Config struct {
	// Rows is the number of tokens of the pass, s (1 for a decoding pass).
	Rows int
	// Hidden is the input width d.
	Hidden int
	// Heads and KVHeads are the numbers of query and key/value heads
	// (KVHeads < Heads with grouped-query attention); HeadDim is m.
	Heads, KVHeads, HeadDim int
	// Bias is true when the projections have biases (GPT-2), false for
	// Llama.
	Bias bool
}

// QCols returns the width of Q, Heads·HeadDim.
func (c Config) QCols() int { return c.Heads * c.HeadDim }

// KVCols returns the width of K and V, KVHeads·HeadDim.
func (c Config) KVCols() int { return c.KVHeads * c.HeadDim }

// Validate checks the head counts (KVHeads divides Heads) and the linear
// shape.
func (c Config) Validate() error {
	for _, d := range []struct {
		name string
		v    int
	}{{"heads", c.Heads}, {"key/value heads", c.KVHeads}, {"head dimension", c.HeadDim}} {
		if d.v < 1 || d.v > linear.MaxSide {
			return fmt.Errorf("qkv: %s %d outside [1, 2^24]", d.name, d.v)
		}
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("qkv: %d query heads are not a multiple of %d key/value heads", c.Heads, c.KVHeads)
	}
	if err := c.Linear().Validate(); err != nil {
		return fmt.Errorf("qkv: %w", err)
	}
	return nil
}

// Linear returns the linear-layer configuration the layer is: three
// projections of X, Q (QCols) then K and V (KVCols), all with or all
// without bias, whose claims may have distinct row points.
func (c Config) Linear() linear.Config {
	return linear.Config{Rows: c.Rows, In: c.Hidden, Projections: []linear.Projection{
		{Out: c.QCols(), Bias: c.Bias}, {Out: c.KVCols(), Bias: c.Bias}, {Out: c.KVCols(), Bias: c.Bias},
	}}
}

// Witness holds the layer's tensors in the layout of linear.Witness:
// Weights and Biases are indexed Q, K, V (W_Q is QCols × Hidden, W_K and
// W_V are KVCols × Hidden; Biases is nil without bias).
type Witness = linear.Witness

// Proof is the prover's message: a linear-layer proof of three
// projections.
type Proof[E field.Scalar] = linear.Proof[E]

// Claims are the claims the layer leaves: one on X, and Weights and
// Biases indexed Q, K, V (zero bias claims without bias).
type Claims[E field.Scalar] = linear.Claims[E]

// Prove proves Q = X·W_Qᵀ + 1·b_Qᵀ, K = X·W_Kᵀ + 1·b_Kᵀ, V = X·W_Vᵀ + 1·b_Vᵀ
// (all zero-padded) from the claims out = [on Q, on K, on V] and returns the
// claims on X, the weights and the biases.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, w Witness, out []poly.Claim[E]) (*Proof[E], Claims[E], error) {
	if err := cfg.Validate(); err != nil {
		return nil, Claims[E]{}, err
	}
	proof, claims, err := linear.Prove(tr, cfg.Linear(), w, out)
	if err != nil {
		return nil, claims, fmt.Errorf("qkv: %w", err)
	}
	return proof, claims, nil
}

// Verify checks a proof from the claims out = [on Q, on K, on V] and
// returns the claims on X, the weights and the biases; the caller checks the
// weight and bias claims against the fixed weights (linear.EvaluateWeight,
// linear.EvaluateBias).
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], cfg Config, proof *Proof[E], out []poly.Claim[E]) (Claims[E], error) {
	if err := cfg.Validate(); err != nil {
		return Claims[E]{}, err
	}
	claims, err := linear.Verify(tr, cfg.Linear(), proof, out)
	if err != nil {
		return claims, fmt.Errorf("qkv: %w", err)
	}
	return claims, nil
}
