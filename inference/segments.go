package inference

import "fmt"

// Segment is a contiguous range [From, To) of the blocks of a pass: the
// unit of one segment proof in the aggregated design (inference/committed;
// the direct design proves the whole pass as one segment). The first segment
// (From = 0) also covers the embedding, the last (To = number of blocks)
// the final norm, the LM head and the output tokens' argmax.
//
// The committed proofs (inference/committed) can also prove the LM head
// in segments of its own, one per range of the vocabulary: the last
// segment of blocks then sets NoHead (it ends at the last block and hands
// its residual stream on), and each chunk has From = To = the number of
// blocks and [VocabFrom, VocabTo) the LM head's output columns it covers
// ([Segment.Chunk]). Each chunk proves the final norm, its columns of the
// LM head and the output tokens' argmax margins over them.
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
