package lookup

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/lookup/table"
)

// FractionLayer is one GKR step of a fraction tree.
type FractionLayer struct {
	SumCheck sumcheck.Proof
	Evals    [4]frontend.Variable
}

// FractionProof proves the sum of fractions over the leaves of a tree.
type FractionProof struct {
	Root   [4]frontend.Variable
	Layers []FractionLayer
}

// placeholderFraction sizes the proof of a fraction tree over n
// variables.
func placeholderFraction(n int) FractionProof {
	var fp FractionProof
	for j := 1; j < n; j++ {
		fp.Layers = append(fp.Layers, FractionLayer{SumCheck: sumcheck.PlaceholderProof(j, 3)})
	}
	return fp
}

// leaf is where a verified fraction tree ends: the root fraction p/q,
// the leaf point and the claimed leaf values, which the caller checks.
type leaf struct {
	p, q           frontend.Variable
	point          []frontend.Variable
	pValue, qValue frontend.Variable
}

// verifyFraction replays the proof of a fraction tree over n variables in
// the native verifier's transcript order and returns its leaf.
func verifyFraction(api frontend.API, tr *transcript.Transcript, n int, proof *FractionProof) (leaf, error) {
	if n < 1 || len(proof.Layers) != n-1 {
		return leaf{}, fmt.Errorf("lookup: fraction proof has %d layers for %d variables", len(proof.Layers), n)
	}
	r := proof.Root
	l := leaf{
		p: api.Add(api.Mul(r[0], r[3]), api.Mul(r[1], r[2])),
		q: api.Mul(r[2], r[3]),
	}
	tr.Absorb(r[:]...)
	gamma := tr.Challenge()
	point := []frontend.Variable{gamma}
	claimP, claimQ := line(api, r[0], r[1], gamma), line(api, r[2], r[3], gamma)
	for j := 1; j < n; j++ {
		layer := &proof.Layers[j-1]
		lambda := tr.Challenge()
		sum := api.Add(claimP, api.Mul(lambda, claimQ))
		end, expected, err := sumcheck.Verify(api, tr, sum, 3, layer.SumCheck)
		if err != nil {
			return leaf{}, fmt.Errorf("lookup: layer %d: %w", j, err)
		}
		ev := layer.Evals
		summand := api.Add(api.Mul(ev[0], ev[3]), api.Mul(ev[1], ev[2]), api.Mul(lambda, ev[2], ev[3]))
		api.AssertIsEqual(api.Mul(poly.Eq(api, point, end), summand), expected)
		tr.Absorb(ev[:]...)
		gamma = tr.Challenge()
		point = append(append([]frontend.Variable(nil), end...), gamma)
		claimP, claimQ = line(api, ev[0], ev[1], gamma), line(api, ev[2], ev[3], gamma)
	}
	l.point, l.pValue, l.qValue = point, claimP, claimQ
	return l, nil
}

// line returns (1−γ)·a + γ·b.
func line(api frontend.API, a, b, gamma frontend.Variable) frontend.Variable {
	return api.Add(a, api.Mul(gamma, api.Sub(b, a)))
}

// fold returns Σ_c βᶜ·v_c.
func fold(api frontend.API, beta frontend.Variable, values []frontend.Variable) frontend.Variable {
	var res frontend.Variable = 0
	for c := len(values) - 1; c >= 0; c-- {
		res = api.Add(api.Mul(res, beta), values[c])
	}
	return res
}

// selector is the MLE of the valid entries of the shape at point, whose
// first `extra` variables must be 0.
func selector(api frontend.API, shape []int, point []frontend.Variable, extra int) frontend.Variable {
	var res frontend.Variable = 1
	for k := range extra {
		res = api.Mul(res, api.Sub(1, point[k]))
	}
	return api.Mul(res, poly.ShapeSelector(api, shape, point[extra:]))
}

// evaluateColumn evaluates a table column's MLE: affine columns as the
// linear form Offset + Σₖ 2^(n−k) rₖ (no constraint), dense ones from
// constants.
func evaluateColumn(api frontend.API, tbl *table.Table, c int, point []frontend.Variable) frontend.Variable {
	col := &tbl.Columns[c]
	if col.Values == nil {
		var res frontend.Variable = col.Offset
		for k := range point {
			res = api.Add(res, api.Mul(point[k], new(big.Int).Lsh(big.NewInt(1), uint(len(point)-1-k))))
		}
		return res
	}
	values := make([]frontend.Variable, len(col.Values))
	for i, v := range col.Values {
		values[i] = v
	}
	return poly.EvaluateDense(api, values, point)
}
