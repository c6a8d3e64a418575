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

// ProductProof proves one gated product's accumulator claim, Acc(r) =
// Σₓ eq(r, x)·Act(x)·Up(x) over its padded shape: a degree-3 sum-check
// and the two factors' values at its end point (claims on their blocks).
type ProductProof struct {
	SumCheck sumcheck.Proof[fr.Element]
	Act, Up  fr.Element
}

// gatedProduct is one gated product of a segment: its requantization's
// index among the segment's requantizations, and its factors' blocks.
type gatedProduct struct {
	q       int
	act, up int
	vars    int
}

// gatedProducts lists the gated products (Llama MLP: Act ⊙ Up) of the
// segment's blocks, in block order.
func gatedProducts(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int) ([]gatedProduct, error) {
	var out []gatedProduct
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
		out = append(out, gatedProduct{q: q, act: act, up: up, vars: vars})
	}
	return out, nil
}

// productTerm is the summand eq·Act·Up over the tables (eq, Act, Up).
func productTerm() []sumcheck.Term[fr.Element] {
	return []sumcheck.Term[fr.Element]{{Coefficient: field.One[fr.Element](), Factors: []int{0, 1, 2}}}
}

// proveProducts proves every gated product's accumulator claim
// (points[q], acc[q]).
func proveProducts(t *pcs.Transcript, l *Layout, gps []gatedProduct, stacked []fr.Element, points [][]fr.Element, acc []fr.Element) ([]ProductProof, [][]fr.Element, error) {
	if len(gps) == 0 {
		return nil, nil, nil
	}
	t.Label("committed/product")
	proofs := make([]ProductProof, len(gps))
	ends := make([][]fr.Element, len(gps))
	for k, g := range gps {
		block := func(b int) []fr.Element {
			blk := &l.Blocks[b]
			return stacked[blk.Offset : blk.Offset+1<<blk.NbVars]
		}
		eq := poly.EqTable[fr.Element](points[g.q])
		sc, opening, err := sumcheck.Prove(t, [][]fr.Element{eq, block(g.act), block(g.up)}, productTerm(), acc[g.q])
		if err != nil {
			return nil, nil, fmt.Errorf("committed: gated product: %w", err)
		}
		proofs[k] = ProductProof{SumCheck: sc, Act: opening.Evaluations[1], Up: opening.Evaluations[2]}
		t.Absorb(proofs[k].Act, proofs[k].Up)
		ends[k] = opening.Point
	}
	return proofs, ends, nil
}

// verifyProducts replays the gated products' sum-checks and returns their
// end points.
func verifyProducts(t *pcs.Transcript, gps []gatedProduct, points [][]fr.Element, acc []fr.Element, proofs []ProductProof) ([][]fr.Element, error) {
	if len(proofs) != len(gps) {
		return nil, fmt.Errorf("%d gated product proofs for %d gated products", len(proofs), len(gps))
	}
	if len(gps) == 0 {
		return nil, nil
	}
	t.Label("committed/product")
	ends := make([][]fr.Element, len(gps))
	for k, g := range gps {
		end, expected, err := sumcheck.Verify(t, acc[g.q], 3, g.vars, proofs[k].SumCheck)
		if err != nil {
			return nil, fmt.Errorf("gated product %d: %w", k, err)
		}
		v := poly.Eq[fr.Element](points[g.q], end)
		v.Mul(&v, &proofs[k].Act)
		v.Mul(&v, &proofs[k].Up)
		if !v.Equal(&expected) {
			return nil, fmt.Errorf("gated product %d: the final value does not match", k)
		}
		t.Absorb(proofs[k].Act, proofs[k].Up)
		ends[k] = end
	}
	return ends, nil
}

// productClaims are the claims of the factors' values on their blocks.
func productClaims(l *Layout, gps []gatedProduct, ends [][]fr.Element, proofs []ProductProof) []pcs.Claim {
	var out []pcs.Claim
	for k, g := range gps {
		out = append(out,
			pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(g.act, ends[k]), Value: proofs[k].Act},
			pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(g.up, ends[k]), Value: proofs[k].Up})
	}
	return out
}
