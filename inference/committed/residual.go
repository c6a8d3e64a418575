package committed

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
)

// residualAdd is one residual add of a segment, Sum = A + B, by the
// blocks of its three tensors (of one shape).
type residualAdd struct{ a, b, sum int }

// residuals are a segment's residual adds and the distinct blocks they
// read, in order of first appearance: the blocks whose values the proof
// states at the residual point.
type residuals struct {
	adds   []residualAdd
	blocks []int
	// pos maps a block to its place in blocks.
	pos map[int]int
	// vars is the number of variables of every block involved.
	vars int
}

// residualsOf lists the residual adds of segment seg whose three tensors
// are all committed by the segment: for every block i of the segment,
// Mid = Input + O.Out — Input being the embedding (i = 0) or block i − 1's
// output — and Output = Mid + Down.Out. The first add of a segment that
// does not start the pass reads the previous segment's residual stream,
// which this proof does not commit: it is left out (doc.go, "Left").
func residualsOf(tr *model.Trace, seg inference.Segment, l *Layout) (*residuals, error) {
	r := &residuals{pos: map[int]int{}, vars: -1}
	block := func(t *model.Tensor) (int, error) {
		b, ok := l.Index[t]
		if !ok {
			return 0, fmt.Errorf("committed: residual tensor %s is not committed", t.Name)
		}
		return b, nil
	}
	add := func(a, b, sum *model.Tensor) error {
		var ids [3]int
		for k, t := range []*model.Tensor{a, b, sum} {
			var err error
			if ids[k], err = block(t); err != nil {
				return err
			}
			if !slices.Equal(t.Shape, sum.Shape) {
				return fmt.Errorf("committed: residual add %s of shapes %v and %v", sum.Name, t.Shape, sum.Shape)
			}
			n := l.Blocks[ids[k]].NbVars
			if r.vars >= 0 && n != r.vars {
				return fmt.Errorf("committed: residual tensors of %d and %d variables", r.vars, n)
			}
			r.vars = n
			if _, ok := r.pos[ids[k]]; !ok {
				r.pos[ids[k]] = len(r.blocks)
				r.blocks = append(r.blocks, ids[k])
			}
		}
		r.adds = append(r.adds, residualAdd{a: ids[0], b: ids[1], sum: ids[2]})
		return nil
	}
	for i := seg.From; i < seg.To; i++ {
		ly := &tr.Layers[i]
		var input *model.Tensor
		switch {
		case i == 0:
			input = &tr.Embedding
		case i > seg.From:
			input = &tr.Layers[i-1].Output
		}
		if input != nil {
			if err := add(input, &ly.O.Out, &ly.Mid); err != nil {
				return nil, err
			}
		}
		if err := add(&ly.Mid, &ly.Down.Out, &ly.Output); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// proveResiduals draws the residual point and states every residual
// block's MLE there (Proof.ResidualEvals, absorbed).
func proveResiduals(t *pcs.Transcript, l *Layout, res *residuals, stacked []fr.Element) ([]fr.Element, []fr.Element) {
	if len(res.adds) == 0 {
		return nil, nil
	}
	t.Label("committed/residual")
	point := t.Challenges(res.vars)
	evals := make([]fr.Element, len(res.blocks))
	for k, b := range res.blocks {
		blk := &l.Blocks[b]
		evals[k] = poly.Evaluate[fr.Element](stacked[blk.Offset:blk.Offset+1<<blk.NbVars], point)
	}
	t.Absorb(evals...)
	return point, evals
}

// verifyResiduals replays the residual step: it checks the number of
// values and every add on them, and returns the point.
func verifyResiduals(t *pcs.Transcript, l *Layout, res *residuals, evals []fr.Element) ([]fr.Element, error) {
	if len(evals) != len(res.blocks) {
		return nil, fmt.Errorf("%d residual values for %d residual tensors", len(evals), len(res.blocks))
	}
	if len(res.adds) == 0 {
		return nil, nil
	}
	t.Label("committed/residual")
	point := t.Challenges(res.vars)
	t.Absorb(evals...)
	for _, a := range res.adds {
		var sum fr.Element
		sum.Add(&evals[res.pos[a.a]], &evals[res.pos[a.b]])
		if !sum.Equal(&evals[res.pos[a.sum]]) {
			return nil, fmt.Errorf("residual add %s: the sum's value is not the sum of the addends'", l.Blocks[a.sum].Tensor.Name)
		}
	}
	return point, nil
}

// residualClaims are the claims on the stacked MLE of the residual values.
func residualClaims(l *Layout, res *residuals, point, evals []fr.Element) []pcs.Claim {
	if point == nil {
		return nil
	}
	out := make([]pcs.Claim, len(res.blocks))
	for k, b := range res.blocks {
		out[k] = pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(b, point), Value: evals[k]}
	}
	return out
}
