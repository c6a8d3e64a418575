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
	Merge []sumcheck.SamePolyProof
	Prev  frontend.Variable
	Shift sumcheck.Proof
	New   frontend.Variable
}

// PlaceholderProof sizes a proof for the append cfg.
func PlaceholderProof(cfg kvcache.Config) Proof {
	p := Proof{Shift: sumcheck.PlaceholderProof(cfg.NewVars(), 2)}
	if cfg.Claims > 1 {
		p.Merge = []sumcheck.SamePolyProof{sumcheck.PlaceholderSamePolyProof(cfg.RowVars() + cfg.ColVars())}
	}
	return p
}

// ValueOfProof returns the assignment of a native append proof.
func ValueOfProof[E field.Scalar](p *kvcache.Proof[E]) Proof {
	return Proof{Merge: sumcheck.ValueOfSamePolyProofs(p.Merge), Prev: field.BigInt(&p.Prev), Shift: sumcheck.ValueOfProof(&p.Shift), New: field.BigInt(&p.New)}
}

// Claims are the claims an append leaves: on the previous cache and on
// the pass's new rows.
type Claims struct {
	Prev, New poly.Claim
}

// Verify checks an append proof of live rows written from row position
// (both circuit variables, so that one circuit serves every position and
// count; shape.Position is not read) against the claims on the new cache,
//
//	K̃_new(p) = K̃_prev(p) + Σ_{a < live} β(p_row, bits(position + a))·X̃(a, p_col)
//
// at the accumulated point p, the sum by the shift sum-check (see the
// native Verify), and returns the claims on the previous cache and on the
// new rows. It asserts 0 ≤ live ≤ NewRows and position + live ≤ Context.
func Verify(api frontend.API, tr *transcript.Transcript, shape kvcache.Config, position, live frontend.Variable, proof Proof, out []poly.Claim) (Claims, error) {
	if err := shape.Validate(); err != nil {
		return Claims{}, err
	}
	vars := shape.RowVars() + shape.ColVars()
	if len(out) != shape.Claims || len(proof.Merge) != len(PlaceholderProof(shape).Merge) || len(proof.Shift.Rounds) != shape.NewVars() {
		return Claims{}, fmt.Errorf("kvcache: %d claims, %d same-poly proofs and %d shift rounds for shape %+v", len(out), len(proof.Merge), len(proof.Shift.Rounds), shape)
	}
	for i, c := range out {
		if len(c.Point) != vars {
			return Claims{}, fmt.Errorf("kvcache: claim %d has %d coordinates, want %d", i, len(c.Point), vars)
		}
	}
	checkPosition(api, shape, position, live)
	tr.Label("kvcache")
	claim := out[0]
	if shape.Claims > 1 {
		c, err := sumcheck.VerifySamePoly(api, tr, out, proof.Merge[0])
		if err != nil {
			return Claims{}, fmt.Errorf("kvcache: same-poly: %w", err)
		}
		claim = c
	}
	tr.Absorb(proof.Prev)
	point, err := verifyShift(api, tr, shape, position, live, claim.Point, api.Sub(claim.Value, proof.Prev), proof.Shift, proof.New)
	if err != nil {
		return Claims{}, err
	}
	return Claims{
		Prev: poly.Claim{Point: claim.Point, Value: proof.Prev},
		New:  poly.Claim{Point: point, Value: proof.New},
	}, nil
}

// checkPosition asserts 0 ≤ position < 2^RowVars, so that position + live
// does not wrap, and position + live ≤ Context: Context − position −
// live, of magnitude below 2^(RowVars+1), has RowVars + 1 bits only when
// it is not negative.
func checkPosition(api frontend.API, shape kvcache.Config, position, live frontend.Variable) {
	rv := shape.RowVars()
	api.ToBinary(position, max(rv, 1))
	api.ToBinary(api.Sub(shape.Context, position, live), rv+1)
}

// verifyShift replays the shift sum-check of value at point, absorbs y_X
// and asserts the final value W(ρ)·y_X, the live rows' weights from a
// thermometer of live (which asserts 0 ≤ live ≤ NewRows). It returns the
// new rows' point (ρ ‖ p_col).
func verifyShift(api frontend.API, tr *transcript.Transcript, shape kvcache.Config, position, live frontend.Variable, point []frontend.Variable, value frontend.Variable, shift sumcheck.Proof, yX frontend.Variable) ([]frontend.Variable, error) {
	rv := shape.RowVars()
	kept := poly.Thermometer(api, live, shape.NewRows())
	rho, final, err := sumcheck.Verify(api, tr, value, 2, shift)
	if err != nil {
		return nil, fmt.Errorf("kvcache: shift: %w", err)
	}
	tr.Absorb(yX)
	weight := frontend.Variable(0)
	for a, k := range kept {
		// A kept row's index position + a is below the context; a pad
		// row's weight is zero, its index taken as 0.
		row := poly.EqAt(api, point[:rv], api.Mul(k, api.Add(position, a)))
		weight = api.Add(weight, api.Mul(k, api.Mul(row, poly.EqIndex(api, rho, a))))
	}
	api.AssertIsEqual(final, api.Mul(weight, yX))
	return append(append([]frontend.Variable(nil), rho...), point[rv:]...), nil
}

// WritesProof is the in-circuit proof of a claim on the written rows.
type WritesProof struct {
	Shift sumcheck.Proof
	New   frontend.Variable
}

// PlaceholderWritesProof sizes a writes proof for the shape cfg.
func PlaceholderWritesProof(cfg kvcache.Config) WritesProof {
	return WritesProof{Shift: sumcheck.PlaceholderProof(cfg.NewVars(), 2)}
}

// ValueOfWritesProof returns the assignment of a native writes proof.
func ValueOfWritesProof[E field.Scalar](p *kvcache.WritesProof[E]) WritesProof {
	return WritesProof{Shift: sumcheck.ValueOfProof(&p.Shift), New: field.BigInt(&p.New)}
}

// VerifyWrites is native kvcache.VerifyWrites with the position and the
// count live circuit variables (as [Verify]): it checks the claim on the
// written rows W by the shift sum-check and returns the claim on the new
// rows. It asserts 0 ≤ live ≤ NewRows and position + live ≤ Context.
func VerifyWrites(api frontend.API, tr *transcript.Transcript, shape kvcache.Config, position, live frontend.Variable, proof WritesProof, claim poly.Claim) (poly.Claim, error) {
	if err := shape.Validate(); err != nil {
		return poly.Claim{}, err
	}
	if len(claim.Point) != shape.RowVars()+shape.ColVars() || len(proof.Shift.Rounds) != shape.NewVars() {
		return poly.Claim{}, fmt.Errorf("kvcache: a writes claim of %d coordinates and %d shift rounds for shape %+v", len(claim.Point), len(proof.Shift.Rounds), shape)
	}
	checkPosition(api, shape, position, live)
	tr.Label("kvcache/writes")
	point, err := verifyShift(api, tr, shape, position, live, claim.Point, claim.Value, proof.Shift, proof.New)
	if err != nil {
		return poly.Claim{}, err
	}
	return poly.Claim{Point: point, Value: proof.New}, nil
}
