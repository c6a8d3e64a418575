package sumcheck

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/sumcheck"
)

// ZeroCheckProof is the in-circuit form of a native zero-check proof.
type ZeroCheckProof struct {
	SumCheck    Proof
	Evaluations []frontend.Variable
}

// PlaceholderZeroCheckProof sizes a zero-check proof over nbVars variables
// for nbTables MLEs and a relation whose terms have at most maxFactors
// factors.
func PlaceholderZeroCheckProof(nbVars, nbTables, maxFactors int) ZeroCheckProof {
	return ZeroCheckProof{SumCheck: PlaceholderProof(nbVars, maxFactors+1), Evaluations: make([]frontend.Variable, nbTables)}
}

// ValueOfZeroCheckProof returns the assignment of a native zero-check
// proof.
func ValueOfZeroCheckProof[E field.Scalar](p *native.ZeroCheckProof[E]) ZeroCheckProof {
	return ZeroCheckProof{SumCheck: ValueOfProof(&p.SumCheck), Evaluations: poly.ValuesOf(p.Evaluations)}
}

// VerifyZero is the in-circuit twin of the native VerifyZero: it checks,
// in the same transcript order (label, n challenges r, the sum-check of
// Σ_x eq(r, x)·C(f(x)) = 0, the evaluations), that the relation vanishes
// on the cube {0,1}ⁿ, and returns the claims fᵢ(r′). The relation's factor
// indices refer to the proof's evaluations. Cost: n rounds of degree
// d + 1 (d the relation's largest number of factors), 2n for eq(r, r′),
// the relation's products once.
func VerifyZero(api frontend.API, tr *transcript.Transcript, relation []Term, proof ZeroCheckProof) ([]poly.Claim, error) {
	nbVars := len(proof.SumCheck.Rounds)
	if nbVars < 1 || len(relation) == 0 {
		return nil, fmt.Errorf("sumcheck: zero-check over %d variables with %d terms", nbVars, len(relation))
	}
	for k, term := range relation {
		if len(term.Factors) == 0 {
			return nil, fmt.Errorf("sumcheck: zero-check term %d has no factor", k)
		}
	}
	tr.Label(native.ZeroCheckLabel)
	r := tr.Challenges(nbVars)
	degree := Degree([]Instance{{Terms: relation}}) + 1
	end, expected, err := Verify(api, tr, 0, degree, proof.SumCheck)
	if err != nil {
		return nil, err
	}
	c, err := EvaluateTerms(api, relation, proof.Evaluations)
	if err != nil {
		return nil, err
	}
	api.AssertIsEqual(api.Mul(poly.Eq(api, r, end), c), expected)
	tr.Absorb(proof.Evaluations...)
	claims := make([]poly.Claim, len(proof.Evaluations))
	for i := range claims {
		claims[i] = poly.Claim{Point: end, Value: proof.Evaluations[i]}
	}
	return claims, nil
}
