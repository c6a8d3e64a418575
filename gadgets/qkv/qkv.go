package qkv

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
)

// maxSide bounds the head counts and the head width before they are
// multiplied, as gadgets/linear bounds its dimensions.
const maxSide = 1 << 24

// Shape is the shape of one QKV layer (see the native Config).
type Shape struct {
	// Rows is the number of tokens of the pass, Hidden the input width.
	Rows, Hidden int
	// Heads and KVHeads are the numbers of query and key/value heads
	// (KVHeads < Heads with grouped-query attention); HeadDim is their
	// width.
	Heads, KVHeads, HeadDim int
	// Bias is true when the three projections have biases.
	Bias bool
}

// QCols returns the width of Q, Heads·HeadDim.
func (s Shape) QCols() int { return s.Heads * s.HeadDim }

// KVCols returns the width of K and V, KVHeads·HeadDim.
func (s Shape) KVCols() int { return s.KVHeads * s.HeadDim }

// Linear returns the linear-layer shape the layer is: three projections
// of the input (Q, K, V in that order) whose claims may have distinct row
// points.
func (s Shape) Linear() linear.Shape {
	return linear.Shape{Rows: s.Rows, In: s.Hidden, Projections: []linear.Projection{
		{Out: s.QCols(), Bias: s.Bias}, {Out: s.KVCols(), Bias: s.Bias}, {Out: s.KVCols(), Bias: s.Bias},
	}}
}

// Validate checks the head counts (KVHeads divides Heads) and the linear
// shape; the native package uses it too.
func (s Shape) Validate() error {
	for _, d := range []struct {
		name string
		v    int
	}{{"heads", s.Heads}, {"key/value heads", s.KVHeads}, {"head dimension", s.HeadDim}} {
		if d.v < 1 || d.v > maxSide {
			return fmt.Errorf("qkv: %s %d outside [1, 2^24]", d.name, d.v)
		}
	}
	if s.Heads%s.KVHeads != 0 {
		return fmt.Errorf("qkv: %d query heads are not a multiple of %d key/value heads", s.Heads, s.KVHeads)
	}
	if err := s.Linear().Validate(); err != nil {
		return fmt.Errorf("qkv: %w", err)
	}
	return nil
}

// Proof is the in-circuit QKV proof: a linear-layer proof of three
// projections.
type Proof = linear.Proof

// Claims are the claims the layer leaves: Weights and Biases are indexed
// Q, K, V.
type Claims = linear.Claims

// PlaceholderProof sizes a proof for shape.
func PlaceholderProof(shape Shape) Proof { return linear.PlaceholderProof(shape.Linear()) }

// Verify checks a QKV proof against the claims out = [on Q, on K, on V] in
// the transcript order of the native verifier and returns the claims on X,
// the weights and the biases.
func Verify(api frontend.API, tr *transcript.Transcript, shape Shape, proof Proof, out []poly.Claim) (Claims, error) {
	if err := shape.Validate(); err != nil {
		return Claims{}, err
	}
	claims, err := linear.Verify(api, tr, shape.Linear(), proof, out)
	if err != nil {
		return claims, fmt.Errorf("qkv: %w", err)
	}
	return claims, nil
}
