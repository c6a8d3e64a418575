package pcs

import (
	"fmt"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/pcs"
)

// GroupProof is the field part of a native pcs.GroupProof, a grouped
// opening: the grouping sum-check, the opening's evaluation triples, and
// the digests (native.Digest) of its folds and of its quotient point,
// which the aggregator recomputes from the points.
type GroupProof struct {
	SumCheck       sumcheck.Proof
	Evaluations    [][3]frontend.Variable
	FoldDigest     frontend.Variable
	QuotientDigest frontend.Variable
}

// ValueOfGroupProof returns the assignment of a native proof, its point
// digests computed natively.
func ValueOfGroupProof(p *native.GroupProof) GroupProof {
	out := GroupProof{
		SumCheck:       sumcheck.ValueOfProof(&p.SumCheck),
		Evaluations:    make([][3]frontend.Variable, len(p.Opening.Evaluations)),
		FoldDigest:     digest(p.Opening.Folds),
		QuotientDigest: digest([]bls12377.G1Affine{p.Opening.Quotient}),
	}
	for i := range p.Opening.Evaluations {
		e := &p.Opening.Evaluations[i]
		out.Evaluations[i] = [3]frontend.Variable{field.BigInt(&e[0]), field.BigInt(&e[1]), field.BigInt(&e[2])}
	}
	return out
}

// digest is native.Digest as a witness value.
func digest(points []bls12377.G1Affine) frontend.Variable {
	d := native.Digest(points)
	return field.BigInt(&d)
}

// Claim is a claim on commitment Commitment: its MLE at Point is Value.
type Claim struct {
	Commitment int
	Point      []frontend.Variable
	Value      frontend.Variable
}

// GroupCheck holds the scalars of the pairing check that the group part
// (native.VerifyGroup, or the aggregator) completes, as native.GroupCheck.
type GroupCheck struct {
	Commitments []frontend.Variable
	Folds       []frontend.Variable
	Quotient    [2]frontend.Variable
	Generator   [3]frontend.Variable
}

// VerifyGroupFieldParts is native.VerifyGroupFieldParts in circuit: with
// the commitments and the claims' points already bound to t, it absorbs
// the claimed values, replays the grouping sum-check and the opening's
// transcript, asserts the fold consistency and β ∉ {0, 1, −1}, and
// returns the scalars of the pairing check. The commitments are in
// native.Parts(nⱼ, m) parts each (one part each with m =
// native.MaxNbVars), the opening runs over min(n, m) variables (the
// proof's size: a sum-check of n rounds, min(n, m) evaluation triples),
// and GroupCheck.Commitments holds one scalar per part, commitment by
// commitment.
func VerifyGroupFieldParts(api frontend.API, t *transcript.Transcript, nbCommitments int, claims []Claim, proof GroupProof, m int) (*GroupCheck, error) {
	targets, lengths := make([]int, len(claims)), make([]int, len(claims))
	for k, c := range claims {
		targets[k], lengths[k] = c.Commitment, len(c.Point)
	}
	vars, n, err := native.GroupShape(nbCommitments, targets, lengths)
	if err != nil {
		return nil, err
	}
	if m < 1 {
		return nil, fmt.Errorf("pcs: group: an opening of %d variables", m)
	}
	k := min(n, m)
	if len(proof.Evaluations) != k || len(proof.SumCheck.Rounds) != n {
		return nil, fmt.Errorf("pcs: group: a proof of %d rounds and %d evaluation triples for %d variables opened over %d", len(proof.SumCheck.Rounds), len(proof.Evaluations), n, k)
	}
	// Grouping: α, the powers αᵏ and Σₖ αᵏ vₖ (label "pcs/batch", as natively).
	t.Label("pcs/batch")
	for _, c := range claims {
		t.Absorb(c.Value)
	}
	alpha := t.Challenge()
	powers := make([]frontend.Variable, len(claims))
	var sum frontend.Variable = 0
	for k, c := range claims {
		if k == 0 {
			powers[k] = 1
		} else {
			powers[k] = api.Mul(powers[k-1], alpha)
		}
		sum = api.Add(sum, api.Mul(powers[k], c.Value))
	}
	point, final, err := sumcheck.Verify(api, t, sum, 2, proof.SumCheck)
	if err != nil {
		return nil, err
	}
	// Aⱼ(r*) = ∏_{i<oⱼ} (1 − r*ᵢ) · Σ_{k on j} αᵏ eq(pₖ, r*[oⱼ:]).
	combination := make([]frontend.Variable, nbCommitments)
	for j := range combination {
		combination[j] = 0
	}
	for k, c := range claims {
		j := c.Commitment
		eq := poly.Eq(api, c.Point, point[n-vars[j]:])
		combination[j] = api.Add(combination[j], api.Mul(eq, powers[k]))
	}
	var scalars []frontend.Variable
	for j := range combination {
		o := n - vars[j]
		for i := range o {
			combination[j] = api.Mul(combination[j], api.Sub(1, point[i]))
		}
		// The parts' coefficients (native.OpenGroupParts):
		// Aⱼ(r*)·∏_{i<min(oⱼ, n−k)} (1 − r*ᵢ), times eq(r*[oⱼ : n−k], p)
		// for part p when nⱼ > k.
		scale := combination[j]
		for i := range min(o, n-k) {
			scale = api.Mul(scale, api.Sub(1, point[i]))
		}
		if vars[j] <= k {
			scalars = append(scalars, scale)
			continue
		}
		for _, e := range poly.EqTable(api, point[o:n-k]) {
			scalars = append(scalars, api.Mul(scale, e))
		}
	}
	return verifyField(api, t, point[n-k:], final, proof, scalars), nil
}

// verifyField is the field part of the opening of Σⱼ combination[j]·fⱼ at
// point with value (native verifyField).
func verifyField(api frontend.API, t *transcript.Transcript, point []frontend.Variable, value frontend.Variable, proof GroupProof, combination []frontend.Variable) *GroupCheck {
	n := len(point)
	t.Label("pcs/hyperkzg")
	t.Absorb(value, proof.FoldDigest)
	beta := t.Challenge()
	api.AssertIsDifferent(beta, 0)
	api.AssertIsDifferent(beta, 1)
	api.AssertIsDifferent(beta, -1)
	for _, e := range proof.Evaluations {
		t.Absorb(e[:]...)
	}
	q := t.Challenge()
	t.Absorb(proof.QuotientDigest)

	// 2β·F_{i+1}(β²) = β·(Fᵢ(β)+Fᵢ(−β)) + r·((Fᵢ(β)−Fᵢ(−β)) − β·(Fᵢ(β)+Fᵢ(−β))).
	twoBeta := api.Add(beta, beta)
	for i := range n {
		r := point[n-1-i]
		e := proof.Evaluations[i]
		next := value
		if i+1 < n {
			next = proof.Evaluations[i+1][2]
		}
		s := api.Add(e[0], e[1])
		bs := api.Mul(beta, s)
		diff := api.Sub(e[0], e[1])
		rhs := api.Add(bs, api.Mul(r, api.Sub(diff, bs)))
		api.AssertIsEqual(api.Mul(twoBeta, next), rhs)
	}

	// bⱼ = Σᵢ qⁱ·evaluations[i][j].
	var b [3]frontend.Variable
	for j := range b {
		b[j] = 0
		for i := n - 1; i >= 0; i-- {
			b[j] = api.Add(api.Mul(b[j], q), proof.Evaluations[i][j])
		}
	}
	// I interpolates B at β, −β, β² (native interpolation): with
	// E = (b₀ + b₁)/2, I₁ = (b₀ − b₁)/(2β), I₂ = (b₂ − E − I₁β²)/(β⁴ − β²),
	// I₀ = E − I₂β²; the divisors are not zero as β ∉ {0, 1, −1}.
	beta2 := api.Mul(beta, beta)
	e := api.Div(api.Add(b[0], b[1]), 2)
	i1 := api.Div(api.Sub(b[0], b[1]), twoBeta)
	i2 := api.Div(api.Sub(b[2], e, api.Mul(i1, beta2)), api.Sub(api.Mul(beta2, beta2), beta2))
	i0 := api.Sub(e, api.Mul(i2, beta2))
	check := &GroupCheck{
		Commitments: combination,
		Folds:       make([]frontend.Variable, n-1),
		Quotient:    [2]frontend.Variable{api.Neg(api.Mul(beta2, beta2)), beta2},
		Generator:   [3]frontend.Variable{api.Neg(i0), api.Neg(i1), api.Neg(i2)},
	}
	var qi frontend.Variable = q
	for i := range check.Folds {
		check.Folds[i] = qi
		qi = api.Mul(qi, q)
	}
	return check
}
