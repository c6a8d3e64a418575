package sumcheck

import (
	"fmt"
	"slices"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// ZeroCheckProof proves that a polynomial relation C(f₁(x), …, f_m(x))
// vanishes on every x of the Boolean cube (see [ProveZero]).
type ZeroCheckProof[E field.Scalar] struct {
	SumCheck Proof[E]
	// Evaluations[i] = fᵢ(r′) at the sum-check's end point r′.
	Evaluations []E
}

// ZeroCheckLabel starts the transcript of a zero-check.
const ZeroCheckLabel = "sumcheck/zero"

// ZeroCheckDegree is the degree of a zero-check's round polynomials: one
// more than the relation's largest number of factors.
func ZeroCheckDegree[E field.Scalar](relation []Term[E]) int {
	return Degree([]Instance[E]{{Terms: relation}}) + 1
}

func checkRelation[E field.Scalar](relation []Term[E], nbTables int) error {
	if len(relation) == 0 {
		return fmt.Errorf("sumcheck: zero-check of an empty relation")
	}
	for k, term := range relation {
		if len(term.Factors) == 0 {
			return fmt.Errorf("sumcheck: zero-check term %d has no factor (a constant relation term needs a table of ones)", k)
		}
		for _, j := range term.Factors {
			if j < 0 || j >= nbTables {
				return fmt.Errorf("sumcheck: zero-check term %d: factor %d out of range [0, %d)", k, j, nbTables)
			}
		}
	}
	return nil
}

// ProveZero proves that C(f₁(x), …, f_m(x)) = 0 for every x ∈ {0,1}ⁿ, where
// the tables are f₁, …, f_m (2ⁿ entries each, n ≥ 1) and C = Σ_k c_k·∏
// f_{j} is given by relation (factor indices into tables). With r drawn
// from the transcript it runs the sum-check of
//
//	Σ_x eq(r, x)·C(f(x)) = 0
//
// and returns the proof and the claims fᵢ(r′) at the end point r′ (one per
// table, in order), which the caller reduces further (committed MLEs: by
// an opening). Transcript: label ZeroCheckLabel, n challenges r, the
// sum-check (which absorbs the sum 0), the evaluations. The tables must be
// bound to the transcript before the call (committed MLEs: their
// commitments absorbed). If C does not vanish on the cube the prover still
// returns a proof, which the verifier rejects except with probability
// ≤ (n + (d+1)·n)/|F| (d the relation's degree). Options are
// [ProveEq]'s; at least one table is stored (not [Generate]d), and the
// others have its size.
func ProveZero[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], tables [][]E, relation []Term[E], opts ...Option) (*ZeroCheckProof[E], []poly.Claim[E], error) {
	if len(tables) == 0 {
		return nil, nil, fmt.Errorf("sumcheck: zero-check over no table")
	}
	if err := checkRelation(relation, len(tables)); err != nil {
		return nil, nil, err
	}
	// The size is the stored tables' (generated ones are nil).
	first := slices.IndexFunc(tables, func(t []E) bool { return t != nil })
	if first < 0 {
		return nil, nil, fmt.Errorf("sumcheck: zero-check with no stored table")
	}
	n, err := poly.NbVars(len(tables[first]))
	if err != nil || n < 1 {
		return nil, nil, fmt.Errorf("sumcheck: zero-check over a table of %d entries", len(tables[first]))
	}
	for i, t := range tables {
		if t != nil && len(t) != len(tables[first]) {
			return nil, nil, fmt.Errorf("sumcheck: zero-check table %d has %d entries, table %d has %d", i, len(t), first, len(tables[first]))
		}
	}
	tr.Label(ZeroCheckLabel)
	r := tr.Challenges(n)
	var zero E
	sc, opening, err := ProveEq(tr, r, tables, relation, zero, opts...)
	if err != nil {
		return nil, nil, err
	}
	proof := &ZeroCheckProof[E]{SumCheck: sc, Evaluations: append([]E(nil), opening.Evaluations[1:]...)}
	tr.Absorb(proof.Evaluations...)
	return proof, zeroClaims(opening.Point, proof.Evaluations), nil
}

func zeroClaims[E field.Scalar](point, values []E) []poly.Claim[E] {
	claims := make([]poly.Claim[E], len(values))
	for i := range values {
		claims[i] = poly.Claim[E]{Point: append([]E(nil), point...), Value: values[i]}
	}
	return claims
}

// VerifyZero checks a zero-check proof that relation vanishes on the cube
// {0,1}ⁿ for nbTables MLEs, in [ProveZero]'s transcript order, and returns
// the claims fᵢ(r′) the caller must reduce (for committed MLEs, by an
// opening). It checks eq(r, r′)·C(f(r′)) against the sum-check's final
// value. Cost: n rounds of degree d+1, O(n) for eq, the relation once.
func VerifyZero[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], nbVars, nbTables int, relation []Term[E], proof *ZeroCheckProof[E]) ([]poly.Claim[E], error) {
	if err := checkRelation(relation, nbTables); err != nil {
		return nil, err
	}
	if nbVars < 1 || len(proof.Evaluations) != nbTables {
		return nil, fmt.Errorf("sumcheck: zero-check proof with %d evaluations for %d tables over %d variables", len(proof.Evaluations), nbTables, nbVars)
	}
	tr.Label(ZeroCheckLabel)
	r := tr.Challenges(nbVars)
	var zero E
	end, expected, err := Verify(tr, zero, ZeroCheckDegree(relation), nbVars, proof.SumCheck)
	if err != nil {
		return nil, err
	}
	c, err := EvaluateTerms[E, P](relation, proof.Evaluations)
	if err != nil {
		return nil, err
	}
	eq := poly.Eq[E, P](r, end)
	P(&c).Mul(&c, &eq)
	if !P(&c).Equal(&expected) {
		return nil, fmt.Errorf("%w: zero-check: the evaluations do not satisfy the relation at the end point", ErrRejected)
	}
	tr.Absorb(proof.Evaluations...)
	return zeroClaims(end, proof.Evaluations), nil
}
