package inference

import (
	"fmt"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/transcript"
)

// Segment is a contiguous range [From, To) of the blocks of a pass: the
// unit of one segment proof in the aggregated shape. The first segment
// (From = 0) also covers the embedding, the last (To = number of blocks)
// the final norm, the LM head and the output tokens' argmax.
//
// The committed proofs (inference/committed) can also prove the LM head
// in segments of its own, one per range of the vocabulary: the last
// segment of blocks then sets NoHead (it ends at the last block and hands
// its residual stream on), and each chunk has From = To = the number of
// blocks and [VocabFrom, VocabTo) the LM head's output columns it covers
// ([Segment.Chunk]). Each chunk proves the final norm, its columns of the
// LM head and the output tokens' argmax margins over them. The opened
// proofs refuse both.
type Segment struct {
	From, To           int
	NoHead             bool
	VocabFrom, VocabTo int
}

// Chunk reports whether s is a segment of the LM head alone over a range
// of the vocabulary.
func (s Segment) Chunk() bool { return s.VocabFrom != 0 || s.VocabTo != 0 }

// HasHead reports whether s proves the final norm and the LM head in a
// model of nbLayers blocks: a chunk, or the last segment of blocks
// unless it sets NoHead.
func (s Segment) HasHead(nbLayers int) bool { return s.To == nbLayers && !s.NoHead }

// String formats s as its blocks, then "without the LM head" or its
// vocabulary range.
func (s Segment) String() string {
	switch {
	case s.Chunk():
		return fmt.Sprintf("[%d, %d) vocabulary [%d, %d)", s.From, s.To, s.VocabFrom, s.VocabTo)
	case s.NoHead:
		return fmt.Sprintf("[%d, %d) without the LM head", s.From, s.To)
	}
	return fmt.Sprintf("[%d, %d)", s.From, s.To)
}

// ChunkedSegments cuts nbLayers blocks into segments of size blocks, the
// last without the LM head, followed by the LM head's segments over a
// vocabulary of vocab columns, width columns each (the last chunk may be
// narrower).
func ChunkedSegments(nbLayers, size, vocab, width int) ([]Segment, error) {
	segs, err := Segments(nbLayers, size)
	if err != nil {
		return nil, err
	}
	if vocab < 1 || width < 1 {
		return nil, fmt.Errorf("inference: a vocabulary of %d in chunks of %d", vocab, width)
	}
	segs[len(segs)-1].NoHead = true
	for from := 0; from < vocab; from += width {
		segs = append(segs, Segment{From: nbLayers, To: nbLayers, VocabFrom: from, VocabTo: min(from+width, vocab)})
	}
	return segs, nil
}

// Segments cuts nbLayers blocks into segments of size blocks (the last may
// be shorter).
func Segments(nbLayers, size int) ([]Segment, error) {
	if nbLayers < 1 || size < 1 {
		return nil, fmt.Errorf("inference: %d blocks in segments of %d", nbLayers, size)
	}
	var out []Segment
	for from := 0; from < nbLayers; from += size {
		out = append(out, Segment{From: from, To: min(from+size, nbLayers)})
	}
	return out, nil
}

// SegmentProof proves one segment of a pass. Segments are chained: segment
// k ends with the chain value C(S_k, D_k) — S_k its transcript state, D_k
// the digest of the residual stream it hands on ([BoundaryDigest]) and C
// the transcript's compression — and segment k+1 opens S_k (Previous) and
// that residual stream (Boundary), checks that they give its chain input,
// and continues the transcript from S_k. The first segment's chain input
// is the statement-seeded initial state ([InitialChain]); the last
// segment's chain output is its final state.
type SegmentProof[E field.Scalar] struct {
	Previous E
	Boundary []int64
	Proof[E]
}

// InitialChain is the chain input of the first segment: the state of the
// transcript seeded with the statement.
func InitialChain[E field.Scalar, P field.Ptr[E]](st statement.Statement) E {
	return transcript.New[E, P](Domain, statement.Elements[E, P](st)...).State()
}

// BoundaryDigest is the digest of a residual-stream tensor handed from one
// segment to the next: a transcript for domain "boundary" that absorbs it
// packed over its range.
func BoundaryDigest[E field.Scalar, P field.Ptr[E]](t *model.Tensor, values []int64) (E, error) {
	tr := transcript.New[E, P]("boundary")
	if err := tr.AbsorbPacked(values, t.Min, t.Max); err != nil {
		var z E
		return z, err
	}
	return tr.State(), nil
}

// chain returns C(state, digest) = the state after absorbing digest.
func chain[E field.Scalar, P field.Ptr[E]](state, digest E) E {
	t := transcript.Resume[E, P](state)
	t.Absorb(digest)
	return t.State()
}

// ProveSegments proves a pass cut into segments and returns the proofs
// and the chain values (len(segs) + 1 of them: chain[k] is segment k's
// input, chain[k+1] its output).
func ProveSegments[E field.Scalar, P field.Ptr[E]](m *model.Model, st statement.Statement, tr *model.Trace, segs []Segment) ([]*SegmentProof[E], []E, error) {
	if err := supported(m); err != nil {
		return nil, nil, err
	}
	if err := checkSegments(segs, len(tr.Layers)); err != nil {
		return nil, nil, err
	}
	chains := []E{InitialChain[E, P](st)}
	var proofs []*SegmentProof[E]
	var state E
	for k, seg := range segs {
		sp := &SegmentProof[E]{}
		run := &protocolRun[E, P]{m: m, tr: tr, seg: seg, proof: &sp.Proof, prove: true}
		if k == 0 {
			run.t = transcript.New[E, P](Domain, statement.Elements[E, P](st)...)
		} else {
			sp.Previous = state
			sp.Boundary = tr.Layers[seg.From-1].Output.Data
			run.t = transcript.Resume[E, P](state)
		}
		WalkSegment(tr, seg, func(t *model.Tensor) { sp.Tensors = append(sp.Tensors, t.Data) })
		if err := run.run(); err != nil {
			return nil, nil, fmt.Errorf("inference: segment %d: %w", k, err)
		}
		state = run.t.State()
		out := state
		if seg.To != len(tr.Layers) {
			d, err := BoundaryDigest[E, P](&tr.Layers[seg.To-1].Output, tr.Layers[seg.To-1].Output.Data)
			if err != nil {
				return nil, nil, err
			}
			out = chain[E, P](state, d)
		}
		chains = append(chains, out)
		proofs = append(proofs, sp)
	}
	return proofs, chains, nil
}

// VerifySegment checks one segment proof of model m for the statement
// (whose digests must be those of prompt and output) between the chain
// values chainIn and chainOut. The statement's model id is only bound into
// the transcript: in the aggregated shape it is a digest of the segment
// circuits' verifying keys, which the aggregator checks.
func VerifySegment[E field.Scalar, P field.Ptr[E]](m *model.Model, st statement.Statement, prompt, output []int, seg Segment, chainIn, chainOut E, proof *SegmentProof[E]) error {
	if err := supported(m); err != nil {
		return err
	}
	if len(prompt) == 0 || len(output) == 0 {
		return fmt.Errorf("%w: empty prompt or output", ErrRejected)
	}
	if st.ModelID == nil {
		return fmt.Errorf("%w: the statement has no model id", ErrRejected)
	}
	want, err := statement.Of[E, P](st.ModelID, prompt, output)
	if err != nil || want.InputDigest.Cmp(st.InputDigest) != 0 || want.OutputDigest.Cmp(st.OutputDigest) != 0 {
		return fmt.Errorf("%w: the statement's digests are not those of these tokens", ErrRejected)
	}
	view, err := ShapePass(m, len(prompt)+len(output)-1)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if seg.From < 0 || seg.To > len(view.Layers) || seg.From >= seg.To || seg.Chunk() || seg.NoHead {
		return fmt.Errorf("%w: segment %v of a model of %d blocks", ErrRejected, seg, len(view.Layers))
	}
	run := &protocolRun[E, P]{m: m, tr: view, seg: seg, proof: &proof.Proof}
	if seg.From == 0 {
		run.t = transcript.New[E, P](Domain, statement.Elements[E, P](st)...)
		if s := run.t.State(); !P(&s).Equal(&chainIn) {
			return fmt.Errorf("%w: the chain input is not the statement's initial state", ErrRejected)
		}
	} else {
		boundary := &view.Layers[seg.From-1].Output
		if err := checkWindow(boundary, proof.Boundary); err != nil {
			return fmt.Errorf("%w: %w", ErrRejected, err)
		}
		boundary.Data = proof.Boundary
		d, err := BoundaryDigest[E, P](boundary, proof.Boundary)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrRejected, err)
		}
		run.t = transcript.Resume[E, P](proof.Previous)
		if c := chain[E, P](proof.Previous, d); !P(&c).Equal(&chainIn) {
			return fmt.Errorf("%w: the boundary and previous state do not give the chain input", ErrRejected)
		}
	}
	if err := bind(view, seg, proof.Tensors); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if err := checkSegment(m, view, seg, Sequence(prompt, output)); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if seg.To == len(view.Layers) {
		if err := checkOutput(view, len(prompt), output); err != nil {
			return fmt.Errorf("%w: %w", ErrRejected, err)
		}
	}
	if err := run.run(); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	out := run.t.State()
	if seg.To != len(view.Layers) {
		d, err := BoundaryDigest[E, P](&view.Layers[seg.To-1].Output, view.Layers[seg.To-1].Output.Data)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrRejected, err)
		}
		out = chain[E, P](out, d)
	}
	if !P(&out).Equal(&chainOut) {
		return fmt.Errorf("%w: the segment does not end in its chain output", ErrRejected)
	}
	return nil
}

func checkSegments(segs []Segment, nbLayers int) error {
	next := 0
	for k, s := range segs {
		if s.From != next || s.To <= s.From || s.To > nbLayers || s.Chunk() || s.NoHead {
			return fmt.Errorf("inference: segment %d covers blocks [%d, %d), want a cut of [0, %d) continuing at %d", k, s.From, s.To, nbLayers, next)
		}
		next = s.To
	}
	if next != nbLayers {
		return fmt.Errorf("inference: segments cover %d of %d blocks", next, nbLayers)
	}
	return nil
}
