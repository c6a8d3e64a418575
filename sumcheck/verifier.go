package sumcheck

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/transcript"
)

// Verify checks the rounds of a one-instance proof of Σ_{x ∈ {0,1}ⁿ} g(x) =
// claim, where g has degree ≤ degree in each variable. It absorbs claim,
// then per round the d sent values, and draws the round challenge. It
// returns the point (r₁, …, rₙ) and the value g(r₁, …, rₙ) must have; the
// caller checks that value against the factors (see [CheckEvaluations]).
func Verify[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], claim E, degree, nbVars int, proof Proof[E]) ([]E, E, error) {
	t.Absorb(claim)
	return verifyRounds(t, claim, degree, nbVars, proof)
}

// VerifyBatch is the verifier of [ProveBatch]: it absorbs the instance
// sums, draws λ when there is more than one instance, and checks the rounds
// of Σ_k λᵏ H_k. The degree is the largest number of factors of a term.
func VerifyBatch[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], instances []Instance[E], nbVars int, proof Proof[E]) (FinalClaim[E], error) {
	if err := validate(maxFactor(instances)+1, nbVars, instances); err != nil {
		return FinalClaim[E]{}, err
	}
	weights, claim := bindClaims(t, instances)
	point, value, err := verifyRounds(t, claim, Degree(instances), nbVars, proof)
	if err != nil {
		return FinalClaim[E]{}, err
	}
	return FinalClaim[E]{Point: point, Value: value, Weights: weights}, nil
}

// maxFactor returns the largest factor index of a batch (−1 if none).
func maxFactor[E field.Scalar](instances []Instance[E]) int {
	m := -1
	for _, inst := range instances {
		for _, term := range inst.Terms {
			for _, j := range term.Factors {
				m = max(m, j)
			}
		}
	}
	return m
}

// verifyRounds checks the rounds against a claim already bound to the
// transcript.
func verifyRounds[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], claim E, degree, nbVars int, proof Proof[E]) ([]E, E, error) {
	if degree < 1 {
		return nil, claim, fmt.Errorf("sumcheck: degree %d < 1", degree)
	}
	if len(proof.Rounds) != nbVars {
		return nil, claim, fmt.Errorf("%w: %d rounds for %d variables", ErrRejected, len(proof.Rounds), nbVars)
	}
	for i, sent := range proof.Rounds {
		if len(sent) != degree {
			return nil, claim, fmt.Errorf("%w: round %d has %d values, want %d", ErrRejected, i, len(sent), degree)
		}
	}
	if nbVars == 0 {
		return []E{}, claim, nil
	}
	// Allocations below are bounded by the size of the proof.
	weights := lagrangeWeights[E, P](degree)
	values := make([]E, degree+1)
	point := make([]E, nbVars)
	for i, sent := range proof.Rounds {
		t.Absorb(sent...)
		r := t.Challenge()
		point[i] = r
		// p(1) = claim − p(0): the check p(0) + p(1) = claim holds by
		// construction, and p is fixed by the absorbed values and the
		// bound claim before r is drawn.
		values[0] = sent[0]
		P(&values[1]).Sub(&claim, &sent[0])
		copy(values[2:], sent[1:])
		claim = interpolate[E, P](values, &r, weights)
	}
	return point, claim, nil
}
