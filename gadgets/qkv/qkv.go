package qkv

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/protocol/qkv"
)

// Proof is the in-circuit QKV proof: a linear-layer proof of three
// projections.
type Proof = linear.Proof

// Claims are the claims the layer leaves: Weights and Biases are indexed
// Q, K, V.
type Claims = linear.Claims

// PlaceholderProof sizes a proof for the layer cfg.
func PlaceholderProof(cfg qkv.Config) Proof { return linear.PlaceholderProof(cfg.Linear()) }

// ValueOfProof returns the assignment of a native proof.
func ValueOfProof[E field.Scalar](p *qkv.Proof[E]) Proof { return linear.ValueOfProof(p) }

// Verify checks a QKV proof against the claims out = [on Q, on K, on V] in
// the transcript order of the native verifier and returns the claims on X,
// the weights and the biases.
func Verify(api frontend.API, tr *transcript.Transcript, shape qkv.Config, proof Proof, out []poly.Claim) (Claims, error) {
	if err := shape.Validate(); err != nil {
		return Claims{}, err
	}
	claims, err := linear.Verify(api, tr, shape.Linear(), proof, out)
	if err != nil {
		return claims, fmt.Errorf("qkv: %w", err)
	}
	return claims, nil
}
