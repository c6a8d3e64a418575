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

// ResidualAdd is one residual add of a segment, Sum = A + B, by the
// blocks of its three tensors (of one shape); IncomingBlock stands for the
// residual stream the segment reads (Proof.Incoming).
type ResidualAdd struct{ A, B, Sum int }

// IncomingBlock marks the incoming residual stream in a ResidualAdd (and
// a norm's input).
const IncomingBlock = -1

// Residuals are a segment's residual adds and the distinct blocks they
// read, in order of first appearance: the blocks whose values the proof
// states at the residual point.
type Residuals struct {
	Adds   []ResidualAdd
	Blocks []int
	// Pos maps a block to its place in Blocks.
	Pos map[int]int
	// Vars is the number of variables of every block involved.
	Vars int
}

// residualsOf lists the residual adds of segment seg whose three tensors
// are all committed by the segment: for every block i of the segment,
// Mid = Input + O.Out — Input being the embedding (i = 0), block i − 1's
// output, or for the segment's first block (From > 0) the incoming stream
// (Proof.Incoming) — and Output = Mid + Down.Out.
func residualsOf(tr *model.Trace, seg inference.Segment, l *Layout) (*Residuals, error) {
	r := &Residuals{Pos: map[int]int{}, Vars: -1}
	var incoming *model.Tensor
	if seg.From > 0 {
		incoming = &tr.Layers[seg.From-1].Output
	}
	block := func(t *model.Tensor) (int, error) {
		if t == incoming {
			return IncomingBlock, nil
		}
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
			_, n, err := poly.TensorVars(t.Shape)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("committed: residual tensor %s has a single entry", t.Name)
			}
			if r.Vars >= 0 && n != r.Vars {
				return fmt.Errorf("committed: residual tensors of %d and %d variables", r.Vars, n)
			}
			r.Vars = n
			if _, ok := r.Pos[ids[k]]; !ok {
				r.Pos[ids[k]] = len(r.Blocks)
				r.Blocks = append(r.Blocks, ids[k])
			}
		}
		r.Adds = append(r.Adds, ResidualAdd{A: ids[0], B: ids[1], Sum: ids[2]})
		return nil
	}
	for i := seg.From; i < seg.To; i++ {
		ly := &tr.Layers[i]
		input := &tr.Embedding
		if i > 0 {
			input = &tr.Layers[i-1].Output
		}
		if err := add(input, &ly.O.Out, &ly.Mid); err != nil {
			return nil, err
		}
		if err := add(&ly.Mid, &ly.Down.Out, &ly.Output); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// proveResiduals draws the residual point and states every residual
// tensor's MLE there (Proof.ResidualEvals, absorbed): from its block of
// the stacked table, or from the incoming stream's table.
func proveResiduals(t *pcs.Transcript, l *Layout, res *Residuals, stacked, incoming []fr.Element) ([]fr.Element, []fr.Element) {
	if len(res.Adds) == 0 {
		return nil, nil
	}
	t.Label("committed/residual")
	point := t.Challenges(res.Vars)
	evals := make([]fr.Element, len(res.Blocks))
	for k, b := range res.Blocks {
		if b == IncomingBlock {
			evals[k] = poly.Evaluate[fr.Element](incoming, point)
			continue
		}
		evals[k] = poly.Evaluate[fr.Element](blockOf(l, stacked, b), point)
	}
	t.Absorb(evals...)
	return point, evals
}

// verifyResiduals replays the residual step: it checks the number of
// values and every add on them, and returns the point.
func verifyResiduals(t *pcs.Transcript, l *Layout, res *Residuals, evals []fr.Element) ([]fr.Element, error) {
	if len(evals) != len(res.Blocks) {
		return nil, fmt.Errorf("%d residual values for %d residual tensors", len(evals), len(res.Blocks))
	}
	if len(res.Adds) == 0 {
		return nil, nil
	}
	t.Label("committed/residual")
	point := t.Challenges(res.Vars)
	t.Absorb(evals...)
	for _, a := range res.Adds {
		var sum fr.Element
		sum.Add(&evals[res.Pos[a.A]], &evals[res.Pos[a.B]])
		if !sum.Equal(&evals[res.Pos[a.Sum]]) {
			return nil, fmt.Errorf("residual add %s: the sum's value is not the sum of the addends'", l.Blocks[a.Sum].Tensor.Name)
		}
	}
	return point, nil
}

// residualClaims are the claims of the residual values: on the stacked
// MLE, or on the incoming stream's commitment (index incoming).
func residualClaims(l *Layout, res *Residuals, point, evals []fr.Element, incoming int) []pcs.Claim {
	if point == nil {
		return nil
	}
	out := make([]pcs.Claim, len(res.Blocks))
	for k, b := range res.Blocks {
		if b == IncomingBlock {
			out[k] = pcs.Claim{Commitment: incoming, Point: point, Value: evals[k]}
			continue
		}
		out[k] = pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(b, point), Value: evals[k]}
	}
	return out
}

// incomingTable is the table of the residual stream t as the previous
// segment commits to it on its own (its Boundary): t's MLE over its
// padded shape, at least one variable.
// streamVars is the number of variables of incomingTable(t).
func streamVars(t *model.Tensor) int {
	_, vars, _ := poly.TensorVars(t.Shape)
	return max(vars, 1)
}

func incomingTable(t *model.Tensor) ([]fr.Element, error) {
	_, vars, err := poly.TensorVars(t.Shape)
	if err != nil {
		return nil, err
	}
	out := make([]fr.Element, 1<<max(vars, 1))
	return out, fillPadded(out, t)
}

// Incoming returns the commitment an honest proof of segment seg of the
// pass tr states as its Incoming: the residual stream the previous
// segment hands on, as [Prove] commits to it (nil for a segment from the
// first block). A party that ran the pass itself checks each segment's
// links at once with it ([CheckLinks]), before the other segments'
// proofs are there.
func Incoming(srs *pcs.SRS, tr *model.Trace, seg inference.Segment) (*pcs.Commitment, error) {
	if seg.From == 0 {
		return nil, nil
	}
	if seg.From > len(tr.Layers) {
		return nil, fmt.Errorf("committed: segment %v of a pass of %d blocks", seg, len(tr.Layers))
	}
	table, err := incomingTable(&tr.Layers[seg.From-1].Output)
	if err != nil {
		return nil, err
	}
	c, err := pcs.Commit(srs, table)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// CheckLinks checks the links of one segment's proof, proof of segs[k],
// against the honest commitments incoming[i] of every segment
// ([Incoming]): its Incoming is incoming[k], and its Boundary the next
// segment's incoming (none for the last segment; for a chunk of the LM
// head followed by another, the next one reads the same Incoming and
// this Boundary is not a link). Proofs that each pass this check chain
// ([CheckChain]); a proof that verifies alone but fails it proves a
// stream the pass did not hand on.
func CheckLinks(segs []inference.Segment, incoming []*pcs.Commitment, k int, proof *Proof) error {
	if k < 0 || k >= len(segs) || len(incoming) != len(segs) || proof == nil {
		return fmt.Errorf("%w: segment %d of %d, %d incoming commitments", ErrRejected, k, len(segs), len(incoming))
	}
	same := func(a, b *pcs.Commitment) bool {
		return (a == nil) == (b == nil) && (a == nil || a.Equal(b))
	}
	if !same(proof.Incoming, incoming[k]) {
		return fmt.Errorf("%w: segment %d does not read the residual stream the pass hands it", ErrRejected, k)
	}
	if k == len(segs)-1 {
		if proof.Boundary != nil {
			return fmt.Errorf("%w: the last segment hands a residual stream on", ErrRejected)
		}
		return nil
	}
	if segs[k+1].Chunk() && segs[k].Chunk() {
		return nil
	}
	if proof.Boundary == nil || !same(proof.Boundary, incoming[k+1]) {
		return fmt.Errorf("%w: segment %d does not hand on the residual stream of the pass", ErrRejected, k)
	}
	return nil
}

// CheckChain checks that consecutive segment proofs of one pass
// (proofs[k] of segs[k]) are linked: each proof's Incoming is the previous
// one's Boundary — or, for a chunk of the LM head after another, the
// previous chunk's Incoming, so that every chunk reads the stream the last
// segment of blocks handed on —, the first has no Incoming and the last no
// Boundary. Each proof is verified on its own by [Verify]; together with
// this check the residual stream a segment reads is the one the previous
// segment proved.
func CheckChain(segs []inference.Segment, proofs []*Proof) error {
	if len(proofs) == 0 || len(segs) != len(proofs) {
		return fmt.Errorf("%w: %d segment proofs for %d segments", ErrRejected, len(proofs), len(segs))
	}
	if proofs[0].Incoming != nil || proofs[len(proofs)-1].Boundary != nil {
		return fmt.Errorf("%w: the chain does not start at the first segment or end at the last", ErrRejected)
	}
	for k := 1; k < len(proofs); k++ {
		prev, next := proofs[k-1].Boundary, proofs[k].Incoming
		if segs[k].Chunk() && segs[k-1].Chunk() {
			prev = proofs[k-1].Incoming
		}
		if prev == nil || next == nil || !prev.Equal(next) {
			return fmt.Errorf("%w: segment %d does not read the residual stream segment %d committed", ErrRejected, k, k-1)
		}
	}
	return nil
}
