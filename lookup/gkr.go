package lookup

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// FractionProof proves the sum of fractions Σₓ p(x)/q(x) over 2ⁿ leaves by
// a binary tree of fractions reduced layer by layer with sum-checks
// (GKR). Root holds the four values of layer 1, (p₁(0), p₁(1), q₁(0),
// q₁(1)); Layers[j−1] reduces a claim on layer j to one on layer j+1.
type FractionProof[E field.Scalar] struct {
	Root   [4]E
	Layers []FractionLayer[E]
}

// FractionLayer is one GKR step: the degree-3 sum-check and the four values
// (p_{j+1}(r′,0), p_{j+1}(r′,1), q_{j+1}(r′,0), q_{j+1}(r′,1)) at its end
// point r′.
type FractionLayer[E field.Scalar] struct {
	SumCheck sumcheck.Proof[E]
	Evals    [4]E
}

// fractionLeaf is where a verified fraction tree ends: the root fraction
// P/Q, the leaf point ρ and the claimed leaf values p(ρ), q(ρ), which the
// caller must check.
type fractionLeaf[E field.Scalar] struct {
	P, Q   E
	Point  []E
	PValue E
	QValue E
}

// layerTerms is the summand of a layer sum-check, β(r,·)·(pₑ·qₒ + pₒ·qₑ +
// λ·qₑ·qₒ), without β (which [sumcheck.ProveEq] handles), over the tables
// (pₑ, pₒ, qₑ, qₒ).
func layerTerms[E field.Scalar, P field.Ptr[E]](lambda E) []sumcheck.Term[E] {
	one := field.One[E, P]()
	return []sumcheck.Term[E]{
		{Coefficient: one, Factors: []int{0, 3}},
		{Coefficient: one, Factors: []int{1, 2}},
		{Coefficient: lambda, Factors: []int{2, 3}},
	}
}

// onesLayerTerms is the summand of the leaf layer's sum-check when every
// leaf numerator is 1 (pₑ = pₒ = 1): qₒ + qₑ + λ·qₑ·qₒ over the tables
// (qₑ, qₒ). Its degree is [layerTerms]'s, so the rounds are the same.
func onesLayerTerms[E field.Scalar, P field.Ptr[E]](lambda E) []sumcheck.Term[E] {
	one := field.One[E, P]()
	return []sumcheck.Term[E]{
		{Coefficient: one, Factors: []int{1}},
		{Coefficient: one, Factors: []int{0}},
		{Coefficient: lambda, Factors: []int{0, 1}},
	}
}

// combineLayer returns pₑ·qₒ + pₒ·qₑ + λ·qₑ·qₒ from the four values.
func combineLayer[E field.Scalar, P field.Ptr[E]](ev *[4]E, lambda *E) E {
	var res, t E
	P(&res).Mul(&ev[0], &ev[3])
	P(&t).Mul(&ev[1], &ev[2])
	P(&res).Add(&res, &t)
	P(&t).Mul(&ev[2], &ev[3])
	P(&t).Mul(&t, lambda)
	P(&res).Add(&res, &t)
	return res
}

// line returns (1−γ)·a + γ·b.
func line[E field.Scalar, P field.Ptr[E]](a, b, gamma *E) E {
	var res E
	P(&res).Sub(b, a)
	P(&res).Mul(&res, gamma)
	P(&res).Add(&res, a)
	return res
}

// proveFraction proves Σₓ p(x)/q(x) for leaf tables of 2ⁿ entries, n ≥ 1;
// p nil stands for leaf numerators that are all 1 (the leaf layer's
// sum-check then reads the denominators alone, [onesLayerTerms]: the
// same proof without the numerators' tables).
// Children of node x of layer j are 2x and 2x+1 of layer j+1: the new
// variable is the last (least significant) one.
// It returns the proof and the leaf point ρ.
func proveFraction[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], p, q []E) (FractionProof[E], []E, error) {
	n, err := poly.NbVars(len(q))
	if err != nil || n < 1 || (p != nil && len(q) != len(p)) {
		return FractionProof[E]{}, nil, fmt.Errorf("lookup: fraction tree over %d numerators and %d denominators", len(p), len(q))
	}
	// layers[j] = (p_j, q_j), 2ʲ entries each; layers[n] are the leaves.
	ps := make([][]E, n+1)
	qs := make([][]E, n+1)
	ps[n], qs[n] = p, q
	for j := n - 1; j >= 1; j-- {
		size := 1 << j
		ps[j], qs[j] = hugepage.Make[E](size), hugepage.Make[E](size)
		p1, q1 := ps[j+1], qs[j+1]
		pj, qj := ps[j], qs[j]
		parallel.Execute(size, parallelChunk, func(start, end int) {
			var t E
			for i := start; i < end; i++ {
				if p1 == nil {
					P(&pj[i]).Add(&q1[2*i+1], &q1[2*i])
				} else {
					P(&pj[i]).Mul(&p1[2*i], &q1[2*i+1])
					P(&t).Mul(&p1[2*i+1], &q1[2*i])
					P(&pj[i]).Add(&pj[i], &t)
				}
				P(&qj[i]).Mul(&q1[2*i], &q1[2*i+1])
			}
		})
	}
	var proof FractionProof[E]
	one := field.One[E, P]()
	if n == 1 && p == nil {
		proof.Root = [4]E{one, one, qs[1][0], qs[1][1]}
	} else {
		proof.Root = [4]E{ps[1][0], ps[1][1], qs[1][0], qs[1][1]}
	}
	tr.Absorb(proof.Root[:]...)
	gamma := tr.Challenge()
	point := []E{gamma}
	root := &proof.Root
	claimP, claimQ := line[E, P](&root[0], &root[1], &gamma), line[E, P](&root[2], &root[3], &gamma)
	for j := 1; j < n; j++ {
		lambda := tr.Challenge()
		var sum E
		P(&sum).Mul(&lambda, &claimQ)
		P(&sum).Add(&sum, &claimP)
		ones := ps[j+1] == nil // the leaves, every numerator 1
		var tables [][]E
		terms := layerTerms[E, P](lambda)
		if ones {
			tables = [][]E{split(qs[j+1]), splitOdd(qs[j+1])}
			terms = onesLayerTerms[E, P](lambda)
		} else {
			tables = [][]E{split(ps[j+1]), splitOdd(ps[j+1]), split(qs[j+1]), splitOdd(qs[j+1])}
		}
		// The sum-check reads the halves: the layer itself is not needed
		// any more (the leaves are the largest tables of the proof).
		ps[j+1], qs[j+1] = nil, nil
		// The halves are this prover's copies: folded in place.
		all := make([]int, len(tables))
		for k := range all {
			all[k] = k
		}
		sc, opening, err := sumcheck.ProveEq(tr, point, tables, terms, sum, sumcheck.Overwrite(all...))
		if err != nil {
			return FractionProof[E]{}, nil, fmt.Errorf("lookup: layer %d: %w", j, err)
		}
		layer := FractionLayer[E]{SumCheck: sc}
		if ones {
			layer.Evals = [4]E{one, one, opening.Evaluations[1], opening.Evaluations[2]}
		} else {
			copy(layer.Evals[:], opening.Evaluations[1:5])
		}
		tr.Absorb(layer.Evals[:]...)
		gamma = tr.Challenge()
		point = append(append([]E(nil), opening.Point...), gamma)
		claimP = line[E, P](&layer.Evals[0], &layer.Evals[1], &gamma)
		claimQ = line[E, P](&layer.Evals[2], &layer.Evals[3], &gamma)
		proof.Layers = append(proof.Layers, layer)
	}
	return proof, point, nil
}

// verifyFraction replays a fraction proof over n ≥ 1 variables and returns
// the root fraction and the leaf claims, which the caller checks.
func verifyFraction[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], n int, proof *FractionProof[E]) (fractionLeaf[E], error) {
	var leaf fractionLeaf[E]
	if n < 1 || len(proof.Layers) != n-1 {
		return leaf, fmt.Errorf("lookup: fraction proof has %d layers for %d variables", len(proof.Layers), n)
	}
	r := &proof.Root
	var t E
	P(&leaf.P).Mul(&r[0], &r[3])
	P(&t).Mul(&r[1], &r[2])
	P(&leaf.P).Add(&leaf.P, &t)
	P(&leaf.Q).Mul(&r[2], &r[3])
	tr.Absorb(r[:]...)
	gamma := tr.Challenge()
	point := []E{gamma}
	claimP, claimQ := line[E, P](&r[0], &r[1], &gamma), line[E, P](&r[2], &r[3], &gamma)
	for j := 1; j < n; j++ {
		layer := &proof.Layers[j-1]
		lambda := tr.Challenge()
		var sum E
		P(&sum).Mul(&lambda, &claimQ)
		P(&sum).Add(&sum, &claimP)
		end, expected, err := sumcheck.Verify(tr, sum, 3, j, layer.SumCheck)
		if err != nil {
			return leaf, fmt.Errorf("lookup: layer %d: %w", j, err)
		}
		got := combineLayer[E, P](&layer.Evals, &lambda)
		eq := poly.Eq[E, P](point, end)
		P(&got).Mul(&got, &eq)
		if !P(&got).Equal(&expected) {
			return leaf, fmt.Errorf("lookup: layer %d: the claimed values do not match the sum-check", j)
		}
		tr.Absorb(layer.Evals[:]...)
		gamma = tr.Challenge()
		point = append(append([]E(nil), end...), gamma)
		claimP = line[E, P](&layer.Evals[0], &layer.Evals[1], &gamma)
		claimQ = line[E, P](&layer.Evals[2], &layer.Evals[3], &gamma)
	}
	leaf.Point, leaf.PValue, leaf.QValue = point, claimP, claimQ
	return leaf, nil
}

// parallelChunk is the least number of entries a worker takes in the
// prover's element-wise loops.
const parallelChunk = 1 << 12

// split returns the entries at even indices (last variable = 0).
func split[E field.Scalar](v []E) []E { return every(v, 0) }

// splitOdd returns the entries at odd indices (last variable = 1).
func splitOdd[E field.Scalar](v []E) []E { return every(v, 1) }

// every returns v[2i + odd] for i < len(v)/2.
func every[E field.Scalar](v []E, odd int) []E {
	out := hugepage.Make[E](len(v) / 2)
	parallel.Execute(len(out), parallelChunk, func(start, end int) {
		for i := start; i < end; i++ {
			out[i] = v[2*i+odd]
		}
	})
	return out
}
