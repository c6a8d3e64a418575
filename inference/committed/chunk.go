package committed

import (
	"fmt"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
)

// checkSegment refuses a segment that is not one of a pass of nbLayers
// blocks and a vocabulary of vocab: a range of blocks 0 ≤ From < To ≤
// nbLayers (NoHead only with To = nbLayers), or a chunk of the LM head,
// From = To = nbLayers and 0 ≤ VocabFrom < VocabTo ≤ vocab.
func checkSegment(seg inference.Segment, nbLayers, vocab int) error {
	if seg.Chunk() {
		if seg.From != nbLayers || seg.To != nbLayers || seg.NoHead || seg.VocabFrom < 0 || seg.VocabFrom >= seg.VocabTo || seg.VocabTo > vocab {
			return fmt.Errorf("committed: segment %v of a model of %d blocks and a vocabulary of %d", seg, nbLayers, vocab)
		}
		return nil
	}
	if seg.From < 0 || seg.To > nbLayers || seg.From >= seg.To || (seg.NoHead && seg.To != nbLayers) {
		return fmt.Errorf("committed: segment %v of a model of %d blocks", seg, nbLayers)
	}
	return nil
}

// headChunk returns the trace a chunk segment proves: tr with its LM head
// restricted to the chunk's output columns [VocabFrom, VocabTo) — the
// weight's rows, the bias, the per-column multipliers, and the columns of
// the accumulator, the logits and the remainders, each keeping its range.
// Every other part is tr's (the blocks are shared, so the chunk's
// incoming stream is the last block's output). Other segments get tr.
func headChunk(tr *model.Trace, seg inference.Segment) *model.Trace {
	if !seg.Chunk() {
		return tr
	}
	lo, hi := seg.VocabFrom, seg.VocabTo
	c := *tr
	h := &c.LMHead
	full := &tr.LMHead
	w := *full.Weight
	in := w.Shape[1]
	w.Shape = []int{hi - lo, in}
	w.Data = full.Weight.Data[lo*in : hi*in]
	h.Weight = &w
	if full.Bias != nil {
		h.Bias = full.Bias[lo:hi]
	}
	if len(full.Multiplier) > 1 {
		h.Multiplier = full.Multiplier[lo:hi]
	}
	h.Acc = columns(&full.Acc, lo, hi)
	h.Out = columns(&full.Out, lo, hi)
	h.Rem = columns(&full.Rem, lo, hi)
	return &c
}

// columns returns the columns [lo, hi) of the matrix t, with t's name and
// range.
func columns(t *model.Tensor, lo, hi int) model.Tensor {
	rows, cols := t.Shape[0], t.Shape[1]
	out := *t
	out.Shape = []int{rows, hi - lo}
	out.Data = make([]int64, rows*(hi-lo))
	for r := range rows {
		copy(out.Data[r*(hi-lo):], t.Data[r*cols+lo:r*cols+hi])
	}
	return out
}
