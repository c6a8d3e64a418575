package committed

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/model"
)

// chunkedPass proves the built-in model's pass of 4 rows in segments of
// one block, the last without the LM head, and the LM head in chunks
// [0, 40), [40, 100), [100, 256): the output tokens (all 48 on this pass)
// are in the second, the first prompt row's target in the first, and the
// third holds no row's target.
func chunkedPass(t *testing.T) (*fixture, []inference.Segment, []*Proof) {
	t.Helper()
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	segs, err := inference.Segments(len(f.tr.Layers), 1)
	if err != nil {
		t.Fatal(err)
	}
	segs[len(segs)-1].NoHead = true
	for _, r := range [][2]int{{0, 40}, {40, 100}, {100, f.m.Config.Vocab}} {
		segs = append(segs, inference.Segment{From: len(f.tr.Layers), To: len(f.tr.Layers), VocabFrom: r[0], VocabTo: r[1]})
	}
	var proofs []*Proof
	for _, seg := range segs {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		proofs = append(proofs, proof)
	}
	return f, segs, proofs
}

// holds returns the rows whose target a chunk holds.
func holds(seg inference.Segment, targets []int) (out []int) {
	for i, tok := range targets {
		if tok >= seg.VocabFrom && tok < seg.VocabTo {
			out = append(out, i)
		}
	}
	return out
}

// TestChunks proves the LM head in chunks of the vocabulary: the pass
// verifies; every value of a chunk's argmax proof changed is rejected;
// a chunk proven against other chosen logits verifies alone but not in
// the pass; a chunk whose token's logit is not the chosen one is
// rejected; cuts that do not cover the blocks and the vocabulary in
// order are refused; a chunk reading another stream breaks the chain.
func TestChunks(t *testing.T) {
	f, segs, proofs := chunkedPass(t)
	s := testSRS(t, 1<<18)
	vk := testKey(t, s, f.m)
	if err := VerifyPass(vk, f.m, f.st, f.pass, segs, proofs); err != nil {
		t.Fatal(err)
	}
	chunks := segs[len(f.tr.Layers):]
	for _, tok := range f.pass.Output {
		if tok < 40 || tok >= 100 {
			t.Fatalf("output tokens %v: the chunks no longer hold them as the test means", f.pass.Output)
		}
	}
	targets := proofs[len(proofs)-1].Argmax.Targets
	if len(holds(chunks[2], targets)) != 0 {
		t.Fatalf("targets %v: the last chunk holds one, the test means it to hold none", targets)
	}

	// The encoding keeps Local.
	c := len(f.tr.Layers)
	data, err := proofs[c].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalProof(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.MarshalBinary()
	if err != nil || !bytes.Equal(data, again) || len(back.Argmax.Local) != f.pass.Rows {
		t.Fatalf("a chunk's proof does not round-trip: %v", err)
	}

	for i, seg := range chunks {
		proof := proofs[c+i]
		rejectsEach(t, s, f, seg, proof, func(p *Proof) []tamper {
			out := []tamper{
				{"Argmax.Local[0]", func(p *Proof) func() { return bump(&p.Argmax.Local[0]) }},
				{"Argmax.Local[last]", func(p *Proof) func() { return bump(&p.Argmax.Local[len(p.Argmax.Local)-1]) }},
				dropLast("Argmax.Local", func(p *Proof) *[]fr.Element { return &p.Argmax.Local }),
				{"Argmax.Local removed", func(p *Proof) func() {
					saved := p.Argmax.Local
					p.Argmax.Local = nil
					return func() { p.Argmax.Local = saved }
				}},
				{"Incoming", func(p *Proof) func() { return move(p.Incoming) }},
			}
			return append(out, argmaxTampers(true)...)
		})
		// The chunk as another chunk, or as the LM head of the whole
		// vocabulary.
		other := seg
		other.VocabTo--
		if _, err := Verify(vk, f.m, f.st, f.pass, other, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("chunk %v verified as %v: %v", seg, other, err)
		}
		whole := inference.Segment{From: 1, To: 2}
		if _, err := Verify(vk, f.m, f.st, f.pass, whole, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("chunk %v verified as %v: %v", seg, whole, err)
		}
	}

	// A prover states chosen logits one above the true ones in a chunk:
	// where the chunk holds no row's target, its margins (committed
	// against them) are in range and it verifies alone; the pass refuses
	// it. Where it holds one, the target's logit is not the chosen one.
	for i, seg := range chunks {
		raise := func(l *Layout) ([]uint16, error) {
			for k := range l.Chosen {
				l.Chosen[k]++
			}
			for j := range l.Margins.Data {
				l.Margins.Data[j]++
			}
			return l.LimbTable()
		}
		forged, _, err := prove(s, f.st, f.pass, f.tr, seg, raise, lookup.SetMultiplicities, WithPartVars(testPartVars))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Verify(vk, f.m, f.st, f.pass, seg, forged)
		if len(holds(seg, targets)) > 0 {
			if !errors.Is(err, ErrRejected) {
				t.Errorf("chunk %v, holding the targets of rows %v, with chosen logits raised: %v", seg, holds(seg, targets), err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("chunk %v with chosen logits raised, alone: %v", seg, err)
		}
		forgedPass := slices.Clone(proofs)
		forgedPass[c+i] = forged
		if err := VerifyPass(vk, f.m, f.st, f.pass, segs, forgedPass); !errors.Is(err, ErrRejected) {
			t.Errorf("a pass with chunk %v proven against other chosen logits: %v", seg, err)
		}
	}

	// Cuts.
	for name, cut := range map[string][]int{
		"chunks swapped":      {0, 1, 3, 2, 4},
		"a chunk missing":     {0, 1, 2, 3},
		"a chunk repeated":    {0, 1, 2, 2, 3, 4},
		"a block missing":     {1, 2, 3, 4},
		"chunks first":        {2, 3, 4, 0, 1},
		"no chunk":            {0, 1},
		"chunks only":         {2, 3, 4},
		"the last chunk only": {0, 1, 4},
	} {
		var cs []inference.Segment
		var ps []*Proof
		for _, k := range cut {
			cs, ps = append(cs, segs[k]), append(ps, proofs[k])
		}
		if err := VerifyPass(vk, f.m, f.st, f.pass, cs, ps); !errors.Is(err, ErrRejected) {
			t.Errorf("%s: %v", name, err)
		}
	}
	withHead := slices.Clone(segs)
	withHead[1].NoHead = false
	if err := VerifyPass(vk, f.m, f.st, f.pass, withHead, proofs); !errors.Is(err, ErrRejected) {
		t.Errorf("chunks after a segment with the LM head: %v", err)
	}

	// The chain: a chunk whose incoming stream is not the others'.
	undo := move(proofs[c+1].Incoming)
	if err := CheckChain(segs, proofs); !errors.Is(err, ErrRejected) {
		t.Errorf("a chunk reading another stream: %v", err)
	}
	undo()
	if err := VerifyPass(vk, f.m, f.st, f.pass, segs, proofs); err != nil {
		t.Fatalf("the restored pass: %v", err)
	}
}

// TestCheckSegment refuses chunks that are not of the LM head, empty or
// outside the vocabulary, and NoHead before the last block.
func TestCheckSegment(t *testing.T) {
	for _, seg := range []inference.Segment{
		{From: 1, To: 2, VocabFrom: 0, VocabTo: 4},
		{From: 2, To: 2},
		{From: 2, To: 2, VocabFrom: 4, VocabTo: 4},
		{From: 2, To: 2, VocabFrom: 200, VocabTo: 257},
		{From: 2, To: 2, VocabFrom: -1, VocabTo: 4},
		{From: 2, To: 2, NoHead: true, VocabTo: 4},
		{From: 0, To: 1, NoHead: true},
	} {
		if err := checkSegment(seg, 2, 256); err == nil {
			t.Errorf("segment %v accepted", seg)
		}
	}
	for _, seg := range []inference.Segment{{From: 0, To: 2}, {From: 1, To: 2, NoHead: true}, {From: 2, To: 2, VocabTo: 256}, {From: 2, To: 2, VocabFrom: 255, VocabTo: 256}} {
		if err := checkSegment(seg, 2, 256); err != nil {
			t.Errorf("segment %v: %v", seg, err)
		}
	}
}

// TestChunkMargins checks the margins of a chunk against the tie rule:
// with the chosen logit of the whole row, every chunk's margins are in
// range exactly for the first of the tied maxima.
func TestChunkMargins(t *testing.T) {
	tr := &model.Trace{LMHead: model.MatMul{Requant: model.Requant{Out: model.Tensor{Shape: []int{1, 6}, Data: []int64{3, 5, 1, 5, 0, 2}, Min: -8, Max: 8}}}}
	for tok, ok := range []bool{false, true, false, false, false, false} {
		inRange := true
		for lo := 0; lo < 6; lo += 2 {
			d := marginsTensor(tr, []int{tok}, lo, lo+2)
			if !slices.Equal(d.Shape, []int{1, 2}) {
				t.Fatalf("margins of shape %v", d.Shape)
			}
			inRange = inRange && slices.Min(d.Data) >= 0
		}
		if inRange != ok {
			t.Errorf("token %d: margins in range %v", tok, inRange)
		}
	}
}
