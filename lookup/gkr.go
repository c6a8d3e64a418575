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

// halves is a layer of a fraction tree stored as its entries at even
// and odd indices: v[2i+b] = h[b][i]. The children of a node, 2x and
// 2x+1, are then h[0][x] and h[1][x], which the layer's sum-check reads
// as two tables: stored so, a layer is never split into copies.
type halves[E any] [2][]E

// newHalves returns the halves of a zero layer of n entries (n even).
func newHalves[E any](n int) halves[E] {
	return halves[E]{hugepage.Make[E](n / 2), hugepage.Make[E](n / 2)}
}

// evaluateCounts returns the MLE of the counts m at point.
func evaluateCounts[E field.Scalar, P field.Ptr[E]](m []uint64, point []E) E {
	t := hugepage.Make[E](len(m))
	parallel.Execute(len(m), parallelChunk, func(start, end int) {
		for i := start; i < end; i++ {
			P(&t[i]).SetUint64(m[i])
		}
	})
	return poly.Evaluate[E, P](t, point)
}

// set writes x at entry i of the layer.
func (h halves[E]) set(i int, x *E) { h[i&1][i>>1] = *x }

// proveFraction proves Σₓ p(x)/q(x) for leaf tables of 2ⁿ entries, n ≥ 1,
// given as halves, which it folds in place (they are given to it); p
// nil stands for leaf numerators that are all 1 (the leaf layer's
// sum-check then reads the denominators alone, [onesLayerTerms]: the
// same proof without the numerators' tables).
// Children of node x of layer j are 2x and 2x+1 of layer j+1: the new
// variable is the last (least significant) one.
// It returns the proof and the leaf point ρ. With again not nil (it
// yields the same leaves anew), the leaves are dropped once the layer
// above them is built, and generated again for the last sum-check: the
// tree's upper layers and its leaves are never held together.
func proveFraction[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], p, q halves[E], again func() (p, q halves[E])) (FractionProof[E], []E, error) {
	size := 2 * len(q[0])
	n, err := poly.NbVars(size)
	if err != nil || n < 1 || len(q[1]) != len(q[0]) || (p[0] != nil && (len(p[0]) != len(q[0]) || len(p[1]) != len(q[0]))) {
		return FractionProof[E]{}, nil, fmt.Errorf("lookup: fraction tree over %d numerators and %d denominators", len(p[0])+len(p[1]), len(q[0])+len(q[1]))
	}
	// layers[j] = (p_j, q_j), 2ʲ entries each as halves; layers[n] are
	// the leaves.
	ps := make([]halves[E], n+1)
	qs := make([]halves[E], n+1)
	ps[n], qs[n] = p, q
	for j := n - 1; j >= 1; j-- {
		size := 1 << j
		for b := range 2 {
			ps[j][b], qs[j][b] = hugepage.Make[E](size/2), hugepage.Make[E](size/2)
		}
		p1, q1 := ps[j+1], qs[j+1]
		pj, qj := ps[j], qs[j]
		// Node i of layer j is entry i&1 of pair i>>1 of its halves.
		parallel.Execute(size/2, parallelChunk/2, func(start, end int) {
			var t E
			for k := start; k < end; k++ {
				for b := range 2 {
					i := 2*k + b
					if p1[0] == nil {
						P(&pj[b][k]).Add(&q1[1][i], &q1[0][i])
					} else {
						P(&pj[b][k]).Mul(&p1[0][i], &q1[1][i])
						P(&t).Mul(&p1[1][i], &q1[0][i])
						P(&pj[b][k]).Add(&pj[b][k], &t)
					}
					P(&qj[b][k]).Mul(&q1[0][i], &q1[1][i])
				}
			}
		})
		if j == n-1 && again != nil {
			ps[n], qs[n], p, q = halves[E]{}, halves[E]{}, halves[E]{}, halves[E]{}
		}
	}
	var proof FractionProof[E]
	one := field.One[E, P]()
	if n == 1 && p[0] == nil {
		proof.Root = [4]E{one, one, qs[1][0][0], qs[1][1][0]}
	} else {
		proof.Root = [4]E{ps[1][0][0], ps[1][1][0], qs[1][0][0], qs[1][1][0]}
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
		if j == n-1 && again != nil {
			ps[n], qs[n] = again()
		}
		ones := ps[j+1][0] == nil // the leaves, every numerator 1
		var tables [][]E
		terms := layerTerms[E, P](lambda)
		if ones {
			tables = [][]E{qs[j+1][0], qs[j+1][1]}
			terms = onesLayerTerms[E, P](lambda)
		} else {
			tables = [][]E{ps[j+1][0], ps[j+1][1], qs[j+1][0], qs[j+1][1]}
		}
		// The sum-check reads the layer's halves, this prover's (the
		// leaves given to it): folded in place, and not needed after.
		ps[j+1], qs[j+1] = halves[E]{}, halves[E]{}
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
