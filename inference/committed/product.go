package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// GatedProduct is one gated product of a segment: its requantization's
// index among the segment's requantizations, and its factors' blocks.
type GatedProduct struct {
	Q       int
	Act, Up int
	Vars    int
}

// gatedProducts lists the gated products (Llama MLP: Act ⊙ Up) of the
// segment's blocks, in block order.
func gatedProducts(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int) ([]GatedProduct, error) {
	var out []GatedProduct
	for i := seg.From; i < seg.To; i++ {
		ly := &tr.Layers[i]
		if ly.Product == nil {
			continue
		}
		act, okA := l.Index[&ly.Activation.Out]
		up, okU := l.Index[&ly.Up.Out]
		q, okQ := index[ly.Product]
		if !okA || !okU || !okQ {
			return nil, fmt.Errorf("committed: gated product of block %d: a factor or its requantization is not committed", i)
		}
		vars := l.Blocks[l.Index[&ly.Product.Out]].NbVars
		if l.Blocks[act].NbVars != vars || l.Blocks[up].NbVars != vars {
			return nil, fmt.Errorf("committed: gated product of block %d: factors of %d and %d variables, product %d", i, l.Blocks[act].NbVars, l.Blocks[up].NbVars, vars)
		}
		out = append(out, GatedProduct{Q: q, Act: act, Up: up, Vars: vars})
	}
	return out, nil
}

// productTerm is the summand eq·Act·Up over the tables (eq, Act, Up).
func productTerm() []sumcheck.Term[fr.Element] {
	return []sumcheck.Term[fr.Element]{{Coefficient: field.One[fr.Element](), Factors: []int{0, 1, 2}}}
}

// productSteps are the gated products' sum-checks (stacked is nil for
// the verifier).
func productSteps(l *Layout, gps []GatedProduct, stacked []fr.Element, points [][]fr.Element, acc []fr.Element) []factorStep {
	steps := make([]factorStep, len(gps))
	for k, g := range gps {
		r := points[g.Q]
		steps[k] = factorStep{
			name: fmt.Sprintf("gated product %d", k), sum: acc[g.Q], vars: g.Vars, terms: productTerm(), a: 1, b: 2,
			tables: func() [][]fr.Element {
				return [][]fr.Element{poly.EqTable[fr.Element](r), blockOf(l, stacked, g.Act), blockOf(l, stacked, g.Up)}
			},
			final: func(end []fr.Element, a, b fr.Element) fr.Element {
				v := poly.Eq[fr.Element](r, end)
				v.Mul(&v, &a)
				return *v.Mul(&v, &b)
			},
		}
	}
	return steps
}

// productClaims are the claims of the factors' values on their blocks.
func productClaims(l *Layout, gps []GatedProduct, ends [][]fr.Element, proofs []FactorProof) []pcs.Claim {
	return factorClaims(l, proofs, ends, func(k int, end []fr.Element) (int, int, []fr.Element, []fr.Element) {
		return gps[k].Act, gps[k].Up, end, end
	})
}
