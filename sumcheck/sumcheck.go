package sumcheck

import (
	"errors"
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/transcript"
)

// ErrRejected is wrapped by every error a verifier returns on a proof that
// does not check (as opposed to a malformed statement).
var ErrRejected = errors.New("sumcheck: proof rejected")

// Term is one product c · ∏ⱼ f_{Factors[j]}(x) of a summand. Factors index
// the table list shared by all terms of a proof, so a table used by several
// terms (or several instances) is folded once; an index may repeat (f²).
type Term[E field.Scalar] struct {
	Coefficient E     `json:"coefficient"`
	Factors     []int `json:"factors"`
}

// Instance is one sum-check claim: Σ_{x ∈ {0,1}ⁿ⁻ᵒ} Σ_k Terms[k](x) = Sum,
// with o = Offset. In a batch over n variables, an instance with offset o
// has tables of 2ⁿ⁻ᵒ entries and does not depend on X₁, …, X_o: its
// variables are bound by the last n − o challenges, so its factors are
// opened at (r_{o+1}, …, rₙ). Offset is 0 for instances of full size.
type Instance[E field.Scalar] struct {
	Terms  []Term[E] `json:"terms"`
	Sum    E         `json:"sum"`
	Offset int       `json:"offset,omitempty"`
}

// Proof holds the prover's messages: Rounds[i] = (pᵢ(0), pᵢ(2), pᵢ(3), …,
// pᵢ(d)), the round polynomial of round i+1 evaluated at 0, 2, …, d; pᵢ(1)
// is not sent (the verifier derives it from the running claim).
type Proof[E field.Scalar] struct {
	Rounds [][]E
}

// Opening is what the prover holds at the end: the point (r₁, …, rₙ) the
// rounds bound X₁, …, Xₙ to, and every table evaluated there: a table of
// 2ᵐ entries at the last m coordinates, Evaluations[j] = f_j(r_{n−m+1}, …, rₙ)
// (the whole point for full-size tables). The caller sends the evaluations
// the verifier cannot compute itself and turns them into claims on the
// tables.
type Opening[E field.Scalar] struct {
	Point       []E
	Evaluations []E
}

// FinalClaim is what the verifier holds at the end: the batched summand
// must satisfy Σ_k Weights[k] · g_k(Point[o_k:]) = Value, where o_k is the
// offset of instance k. Weights are the batching coefficients λᵏ (a single
// 1 for one instance).
type FinalClaim[E field.Scalar] struct {
	Point   []E
	Value   E
	Weights []E
}

// Degree returns the degree of the round polynomials of a batch: the
// largest number of factors of a term.
func Degree[E field.Scalar](instances []Instance[E]) int {
	d := 0
	for _, inst := range instances {
		for _, term := range inst.Terms {
			d = max(d, len(term.Factors))
		}
	}
	return d
}

// EvaluateTerms returns Σ_k c_k · ∏ⱼ values[Factors_k[j]]: the summand of
// one instance at a point, from the values of its factors there.
func EvaluateTerms[E field.Scalar, P field.Ptr[E]](terms []Term[E], values []E) (E, error) {
	var sum E
	for k, term := range terms {
		prod := term.Coefficient
		for _, j := range term.Factors {
			if j < 0 || j >= len(values) {
				return sum, fmt.Errorf("sumcheck: term %d: factor %d out of range [0, %d)", k, j, len(values))
			}
			P(&prod).Mul(&prod, &values[j])
		}
		P(&sum).Add(&sum, &prod)
	}
	return sum, nil
}

// CheckEvaluations verifies claimed factor values against a final claim:
// Σ_k Weights[k] · g_k(values) = Value, where g_k is instance k's summand.
// values[j] is the claimed value of table j at the final point (at
// Point[o:] for the tables of an instance with offset o), indexed like the
// prover's tables, as in [Opening]. The
// caller must bind the values to the transcript (absorb them, or compute
// them itself) before relying on them as claims on the tables.
func CheckEvaluations[E field.Scalar, P field.Ptr[E]](c *FinalClaim[E], instances []Instance[E], values []E) error {
	if len(c.Weights) != len(instances) {
		return fmt.Errorf("sumcheck: %d weights for %d instances", len(c.Weights), len(instances))
	}
	var sum E
	for k := range instances {
		g, err := EvaluateTerms[E, P](instances[k].Terms, values)
		if err != nil {
			return fmt.Errorf("sumcheck: instance %d: %w", k, err)
		}
		P(&g).Mul(&g, &c.Weights[k])
		P(&sum).Add(&sum, &g)
	}
	if !P(&sum).Equal(&c.Value) {
		return fmt.Errorf("%w: factor evaluations give %s, rounds give %s", ErrRejected, P(&sum).String(), P(&c.Value).String())
	}
	return nil
}

// validate checks the shape of a batch over nbVars variables: every term
// has at least one factor, every factor index is below nbTables, every
// offset is in [0, nbVars].
func validate[E field.Scalar](nbTables, nbVars int, instances []Instance[E]) error {
	if len(instances) == 0 {
		return errors.New("sumcheck: no instance")
	}
	for i, inst := range instances {
		if inst.Offset < 0 || inst.Offset > nbVars {
			return fmt.Errorf("sumcheck: instance %d has offset %d, outside [0, %d]", i, inst.Offset, nbVars)
		}
		if len(inst.Terms) == 0 {
			return fmt.Errorf("sumcheck: instance %d has no term", i)
		}
		for k, term := range inst.Terms {
			if len(term.Factors) == 0 {
				return fmt.Errorf("sumcheck: instance %d term %d has no factor", i, k)
			}
			for _, j := range term.Factors {
				if j < 0 || j >= nbTables {
					return fmt.Errorf("sumcheck: instance %d term %d: factor %d out of range [0, %d)", i, k, j, nbTables)
				}
			}
		}
	}
	return nil
}

// bindClaims absorbs the instance sums and, for more than one instance,
// draws λ; it returns the weights λ⁰, λ¹, … and the batched claim
// Σ_k λᵏ·2^{o_k}·H_k (an instance with offset o_k is summed over 2^{o_k}
// copies of its cube).
func bindClaims[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], instances []Instance[E]) ([]E, E) {
	sums := make([]E, len(instances))
	for i := range instances {
		sums[i] = instances[i].Sum
	}
	t.Absorb(sums...)
	weights := make([]E, len(instances))
	weights[0] = field.One[E, P]()
	var lambda E
	if len(instances) > 1 {
		lambda = t.Challenge()
	}
	var claim E
	for k := range instances {
		if k > 0 {
			P(&weights[k]).Mul(&weights[k-1], &lambda)
		}
		var s E
		P(&s).Mul(&weights[k], &sums[k])
		for range instances[k].Offset {
			P(&s).Double(&s)
		}
		P(&claim).Add(&claim, &s)
	}
	return weights, claim
}
