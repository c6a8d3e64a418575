package sumcheck

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark/frontend"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/sumcheck"
)

// SamePolyProof is the in-circuit same-poly proof: a degree-2 sum-check
// and the claimed evaluation f(r*).
type SamePolyProof struct {
	SumCheck   Proof
	Evaluation frontend.Variable
}

// PlaceholderSamePolyProof sizes a same-poly proof on an MLE of nbVars
// variables.
func PlaceholderSamePolyProof(nbVars int) SamePolyProof {
	return SamePolyProof{SumCheck: PlaceholderProof(nbVars, 2)}
}

// ValueOfSamePolyProof returns the assignment of a native same-poly proof.
func ValueOfSamePolyProof[E field.Scalar](p *native.SamePolyProof[E]) SamePolyProof {
	return SamePolyProof{SumCheck: ValueOfProof(&p.SumCheck), Evaluation: field.BigInt(&p.Evaluation)}
}

// ValueOfSamePolyProofs returns the assignment of an optional native
// same-poly proof: one entry, or none when p is nil (the layout of the
// layer proofs, which merge claims only when there are several).
func ValueOfSamePolyProofs[E field.Scalar](p *native.SamePolyProof[E]) []SamePolyProof {
	if p == nil {
		return nil
	}
	return []SamePolyProof{ValueOfSamePolyProof(p)}
}

// VerifySamePoly accumulates the claims f(cᵢ.Point) = cᵢ.Value into one
// claim f(r*) = proof.Evaluation and returns it. Transcript order: the
// values, the challenge α, the sum-check rounds, the evaluation. The check
// at r* costs m equality polynomials (≈ 2n multiplications each) and about
// 2m multiplications.
func VerifySamePoly(api frontend.API, t *transcript.Transcript, claims []poly.Claim, proof SamePolyProof) (poly.Claim, error) {
	if len(claims) == 0 {
		return poly.Claim{}, errors.New("sumcheck: same-poly: no claim")
	}
	nbVars := len(claims[0].Point)
	for i, c := range claims {
		if len(c.Point) != nbVars {
			return poly.Claim{}, fmt.Errorf("sumcheck: same-poly: point %d has %d variables, point 0 has %d", i, len(c.Point), nbVars)
		}
	}
	if len(proof.SumCheck.Rounds) != nbVars {
		return poly.Claim{}, fmt.Errorf("sumcheck: same-poly: %d rounds for %d variables", len(proof.SumCheck.Rounds), nbVars)
	}
	values := make([]frontend.Variable, len(claims))
	for i := range claims {
		values[i] = claims[i].Value
	}
	t.Absorb(values...)
	alpha := t.Challenge()
	claim := values[len(values)-1]
	for i := len(values) - 2; i >= 0; i-- {
		claim = api.Add(values[i], api.Mul(claim, alpha))
	}
	point, final, err := verifyRounds(api, t, claim, 2, proof.SumCheck)
	if err != nil {
		return poly.Claim{}, fmt.Errorf("sumcheck: same-poly: %w", err)
	}
	combination := poly.Eq(api, claims[len(claims)-1].Point, point)
	for i := len(claims) - 2; i >= 0; i-- {
		combination = api.Add(poly.Eq(api, claims[i].Point, point), api.Mul(combination, alpha))
	}
	api.AssertIsEqual(api.Mul(combination, proof.Evaluation), final)
	t.Absorb(proof.Evaluation)
	return poly.Claim{Point: point, Value: proof.Evaluation}, nil
}
