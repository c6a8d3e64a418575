package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/sumcheck"
)

// FactorProof proves one accumulator claim by a degree-3 sum-check whose
// summand is a public weight times two committed factors (the gated
// products, the RoPE rotations, the attention contractions), and states
// the two factors' values at its end point: claims on their blocks.
type FactorProof struct {
	SumCheck sumcheck.Proof[fr.Element]
	A, B     fr.Element
}

// factorStep is one such sum-check as its relation defines it.
type factorStep struct {
	// name identifies the relation in errors.
	name string
	// sum is the claim proven, vars the number of rounds.
	sum  fr.Element
	vars int
	// tables and terms are the prover's summand; a and b index the two
	// factors' tables, whose values at the end point are A and B.
	tables func() [][]fr.Element
	terms  []sumcheck.Term[fr.Element]
	a, b   int
	// final returns the summand's value at the end point from A and B,
	// the public parts evaluated by the verifier.
	final func(end []fr.Element, a, b fr.Element) fr.Element
}

// proveFactors runs the steps' sum-checks under label (none when there
// are no steps), absorbing A and B after each, and returns the proofs and
// end points.
func proveFactors(t *pcs.Transcript, label string, steps []factorStep) ([]FactorProof, [][]fr.Element, error) {
	if len(steps) == 0 {
		return nil, nil, nil
	}
	t.Label(label)
	proofs := make([]FactorProof, len(steps))
	ends := make([][]fr.Element, len(steps))
	for k, s := range steps {
		sc, opening, err := sumcheck.Prove(t, s.tables(), s.terms, s.sum)
		if err != nil {
			return nil, nil, fmt.Errorf("committed: %s: %w", s.name, err)
		}
		proofs[k] = FactorProof{SumCheck: sc, A: opening.Evaluations[s.a], B: opening.Evaluations[s.b]}
		t.Absorb(proofs[k].A, proofs[k].B)
		ends[k] = opening.Point
	}
	return proofs, ends, nil
}

// verifyFactors replays the steps' sum-checks, checks each final value
// with the step's public parts, and returns the end points.
func verifyFactors(t *pcs.Transcript, label string, steps []factorStep, proofs []FactorProof) ([][]fr.Element, error) {
	if len(proofs) != len(steps) {
		return nil, fmt.Errorf("%s: %d proofs for %d claims", label, len(proofs), len(steps))
	}
	if len(steps) == 0 {
		return nil, nil
	}
	t.Label(label)
	ends := make([][]fr.Element, len(steps))
	for k, s := range steps {
		end, expected, err := sumcheck.Verify(t, s.sum, 3, s.vars, proofs[k].SumCheck)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		if v := s.final(end, proofs[k].A, proofs[k].B); !v.Equal(&expected) {
			return nil, fmt.Errorf("%s: the final value does not match", s.name)
		}
		t.Absorb(proofs[k].A, proofs[k].B)
		ends[k] = end
	}
	return ends, nil
}

// factorClaims are the claims of A and B on the blocks of s at the
// points pointA and pointB give for each step's end point.
func factorClaims(l *Layout, proofs []FactorProof, ends [][]fr.Element, blocks func(k int, end []fr.Element) (a, b int, pa, pb []fr.Element)) []pcs.Claim {
	var out []pcs.Claim
	for k := range proofs {
		a, b, pa, pb := blocks(k, ends[k])
		out = append(out,
			pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(a, pa), Value: proofs[k].A},
			pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(b, pb), Value: proofs[k].B})
	}
	return out
}
