package kvcache

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/protocol/kvcache"
)

// Proof is the in-circuit append proof.
type Proof struct {
	// Merge holds the same-poly proof when Claims > 1 (one entry).
	Merge     []sumcheck.SamePolyProof
	Prev, Row frontend.Variable
}

// PlaceholderProof sizes a proof for the append cfg.
func PlaceholderProof(cfg kvcache.Config) Proof {
	var p Proof
	if cfg.Claims > 1 {
		p.Merge = []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(cfg.RowVars() + cfg.ColVars())}
	}
	return p
}

// ValueOfProof returns the assignment of a native append proof.
func ValueOfProof[E field.Scalar](p *kvcache.Proof[E]) Proof {
	return Proof{Merge: sumcheck.ValueOfSamePolyProofs(p.Merge), Prev: field.BigInt(&p.Prev), Row: field.BigInt(&p.Row)}
}

// Claims are the claims an append leaves: on the previous cache and on
// the new row.
type Claims struct {
	Prev, Row poly.Claim
}

// Verify checks an append proof against the claims on the new cache,
// K̃_new(p) = K̃_prev(p) + β(p_row, bits(Position))·k̃(p_col) at the
// accumulated point p, and returns the claims on the previous cache and on
// the new row.
func Verify(api frontend.API, tr *transcript.Transcript, shape kvcache.Config, proof Proof, out []poly.Claim) (Claims, error) {
	if err := shape.Validate(); err != nil {
		return Claims{}, err
	}
	rv, vars := shape.RowVars(), shape.RowVars()+shape.ColVars()
	if len(out) != shape.Claims || len(proof.Merge) != len(PlaceholderProof(shape).Merge) {
		return Claims{}, fmt.Errorf("kvcache: %d claims and %d same-poly proofs for shape %+v", len(out), len(proof.Merge), shape)
	}
	for i, c := range out {
		if len(c.Point) != vars {
			return Claims{}, fmt.Errorf("kvcache: claim %d has %d coordinates, want %d", i, len(c.Point), vars)
		}
	}
	tr.Label("kvcache")
	claim := out[0]
	if shape.Claims > 1 {
		c, err := sumcheck.VerifySamePoly(api, tr, out, proof.Merge[0])
		if err != nil {
			return Claims{}, fmt.Errorf("kvcache: same-poly: %w", err)
		}
		claim = c
	}
	tr.Absorb(proof.Prev, proof.Row)
	pad := poly.EqIndex(api, claim.Point[:rv], shape.Position)
	api.AssertIsEqual(claim.Value, api.Add(proof.Prev, api.Mul(pad, proof.Row)))
	return Claims{
		Prev: poly.Claim{Point: claim.Point, Value: proof.Prev},
		Row:  poly.Claim{Point: claim.Point[rv:], Value: proof.Row},
	}, nil
}

// ExtendRows turns a claim on the first 2^k rows of the cache into a claim
// on the whole cache of contextVars row coordinates by prepending zero
// coordinates (see the native ExtendRows). It costs nothing.
func ExtendRows(c poly.Claim, k, contextVars int) (poly.Claim, error) {
	if k < 0 || k > contextVars || k > len(c.Point) {
		return poly.Claim{}, fmt.Errorf("kvcache: cannot extend a claim of %d row coordinates to %d", k, contextVars)
	}
	point := make([]frontend.Variable, contextVars-k, contextVars-k+len(c.Point))
	for i := range point {
		point[i] = 0
	}
	return poly.Claim{Point: append(point, c.Point...), Value: c.Value}, nil
}
