package sumcheck

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// SamePolyProof reduces claims f(r₁) = v₁, …, f(r_m) = v_m on one MLE f to
// one claim f(r*) = Evaluation: a degree-2 sum-check of
// Σ_x A(x)·f(x) = Σᵢ αⁱ⁻¹ vᵢ with A(x) = Σᵢ αⁱ⁻¹ β(rᵢ, x).
type SamePolyProof[E field.Scalar] struct {
	SumCheck   Proof[E]
	Evaluation E
}

// ProveSamePoly accumulates claims table(cᵢ.Point) = cᵢ.Value into one
// claim on table and returns the proof and that claim. The points must be
// fixed by the transcript (challenges, or public constants): they are not
// absorbed; the values are.
func ProveSamePoly[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], table []E, claims []poly.Claim[E]) (SamePolyProof[E], poly.Claim[E], error) {
	nbVars, err := samePolyShape(claims)
	if err != nil {
		return SamePolyProof[E]{}, poly.Claim[E]{}, err
	}
	if nbVars >= bits.UintSize-1 || len(table) != 1<<nbVars {
		return SamePolyProof[E]{}, poly.Claim[E]{}, fmt.Errorf("sumcheck: same-poly: table length %d, points have %d variables", len(table), nbVars)
	}
	alpha, claim := bindSamePoly(t, claims)
	combination := poly.EqTable[E, P](claims[0].Point)
	power := field.One[E, P]()
	for _, c := range claims[1:] {
		P(&power).Mul(&power, &alpha)
		eq := poly.EqTableScaled[E, P](c.Point, &power)
		field.Add(combination, combination, eq)
	}
	g := summand[E]{terms: []Term[E]{{Coefficient: field.One[E, P](), Factors: []int{0, 1}}}, offsets: []int{0}, degree: 2}
	proof, opening := proveRounds(t, [][]E{combination, table}, g, nbVars, claim)
	t.Absorb(opening.Evaluations[1])
	return SamePolyProof[E]{SumCheck: proof, Evaluation: opening.Evaluations[1]},
		poly.Claim[E]{Point: opening.Point, Value: opening.Evaluations[1]}, nil
}

// VerifySamePoly is the verifier of [ProveSamePoly]: it returns the
// accumulated claim f(r*) = proof.Evaluation, having checked the rounds and
// that the final value equals (Σᵢ αⁱ⁻¹ β(rᵢ, r*)) · proof.Evaluation, which
// costs O(m·n) field operations.
func VerifySamePoly[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], claims []poly.Claim[E], proof SamePolyProof[E]) (poly.Claim[E], error) {
	nbVars, err := samePolyShape(claims)
	if err != nil {
		return poly.Claim[E]{}, err
	}
	alpha, claim := bindSamePoly(t, claims)
	point, final, err := verifyRounds(t, claim, 2, nbVars, proof.SumCheck)
	if err != nil {
		return poly.Claim[E]{}, fmt.Errorf("sumcheck: same-poly: %w", err)
	}
	var combination E
	for i := len(claims) - 1; i >= 0; i-- {
		eq := poly.Eq[E, P](claims[i].Point, point)
		P(&combination).Mul(&combination, &alpha)
		P(&combination).Add(&combination, &eq)
	}
	var expected E
	P(&expected).Mul(&combination, &proof.Evaluation)
	if !P(&expected).Equal(&final) {
		return poly.Claim[E]{}, fmt.Errorf("%w: same-poly: final value does not match the claimed evaluation", ErrRejected)
	}
	t.Absorb(proof.Evaluation)
	return poly.Claim[E]{Point: point, Value: proof.Evaluation}, nil
}

// errNoClaim is returned by the same-poly functions for an empty claim list.
var errNoClaim = errors.New("sumcheck: same-poly: no claim")

// samePolyShape checks that there is at least one claim and that all
// points have the same number of variables, which it returns.
func samePolyShape[E field.Scalar](claims []poly.Claim[E]) (int, error) {
	if len(claims) == 0 {
		return 0, errNoClaim
	}
	for i, c := range claims {
		if len(c.Point) != len(claims[0].Point) {
			return 0, fmt.Errorf("sumcheck: same-poly: point %d has %d variables, point 0 has %d", i, len(c.Point), len(claims[0].Point))
		}
	}
	return len(claims[0].Point), nil
}

// bindSamePoly absorbs the claimed values, draws α and returns it with the
// combined claim Σᵢ αⁱ⁻¹ vᵢ.
func bindSamePoly[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], claims []poly.Claim[E]) (E, E) {
	values := make([]E, len(claims))
	for i := range claims {
		values[i] = claims[i].Value
	}
	t.Absorb(values...)
	alpha := t.Challenge()
	var claim E
	for i := len(values) - 1; i >= 0; i-- {
		P(&claim).Mul(&claim, &alpha)
		P(&claim).Add(&claim, &values[i])
	}
	return alpha, claim
}
