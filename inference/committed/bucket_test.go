package committed

import (
	"errors"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// bucketRequest returns m's request of a prompt of s tokens and g
// generated in a bucket of rows, its pass and statement.
func bucketRequest(t *testing.T, m *model.Model, s, g, rows int) (Pass, *model.Trace, statement.Statement) {
	t.Helper()
	prompt := make([]int, s)
	for i := range prompt {
		prompt[i] = (i*37 + 11) % m.Config.Vocab
	}
	req, tr, err := inference.Generate(m, prompt, g, rows)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[fr.Element](m.ID(), req.Prompt, req.Output)
	if err != nil {
		t.Fatal(err)
	}
	return req, tr, st
}

// TestBucket: requests of 1 + 8, 3 + 4 and 6 + 2 tokens in a bucket of
// 8 rows have the same segment shapes (so one set of segment circuits
// and keys); a pass of 6 rows in that bucket is proven and verifies; it
// is refused as a proof of another bucket, with a token moved from the
// output to the prompt (the same pass tokens, another statement), and
// with a live row's target, a prompt row's target or a pad row's target
// changed.
func TestBucket(t *testing.T) {
	m := model.Default()
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	view, err := inference.ShapePass(m, 8)
	if err != nil {
		t.Fatal(err)
	}
	var first []*Shape
	for _, c := range [][2]int{{1, 8}, {3, 4}, {6, 2}} {
		req, _, _ := bucketRequest(t, m, c[0], c[1], 8)
		for k, seg := range segs {
			s, err := NewShape(view, seg, req, WithPartVars(testPartVars))
			if err != nil {
				t.Fatal(err)
			}
			if first == nil || len(first) <= k {
				first = append(first, s)
				continue
			}
			f := first[k]
			if s.NbParts() != f.NbParts() || !slices.Equal(s.OpeningParts(), f.OpeningParts()) || s.OpeningVars() != f.OpeningVars() || len(s.Layout.Blocks) != len(f.Layout.Blocks) {
				t.Errorf("%d + %d tokens, segment %v: another shape than the first request's", c[0], c[1], seg)
			}
		}
	}

	srs := testSRS(t, 1<<18)
	vk := testKey(t, srs, m)
	req, tr, st := bucketRequest(t, m, 3, 4, 8)
	proofs := make([]*Proof, len(segs))
	for k, seg := range segs {
		if proofs[k], _, err = Prove(srs, m, st, req, tr, seg, WithPartVars(testPartVars)); err != nil {
			t.Fatal(err)
		}
	}
	if err := VerifyPass(vk, m, st, req, segs, proofs); err != nil {
		t.Fatalf("3 + 4 tokens in a bucket of 8: %v", err)
	}
	rejected := func(name string, st statement.Statement, req Pass) {
		t.Helper()
		if err := VerifyPass(vk, m, st, req, segs, proofs); !errors.Is(err, ErrRejected) {
			t.Errorf("%s: %v", name, err)
		}
	}
	other := req
	other.Rows = 16
	rejected("verified as a proof of bucket 16", st, other)
	other.Rows = 7
	rejected("verified as a proof of bucket 7", st, other)
	moved := Pass{Prompt: append(slices.Clone(req.Prompt), req.Output[0]), Output: req.Output[1:], Rows: 8}
	movedSt, err := statement.Of[fr.Element](m.ID(), moved.Prompt, moved.Output)
	if err != nil {
		t.Fatal(err)
	}
	rejected("a token moved from the output to the prompt", movedSt, moved)
	// Rows 0 (a prompt row), 2 (the first live row) and 7 (a pad row).
	targets := proofs[1].Argmax.Targets
	for _, i := range []int{0, 2, 7} {
		saved := targets[i]
		targets[i] = (saved + 1) % m.Config.Vocab
		rejected("a row's target changed", st, req)
		targets[i] = saved
	}
	for _, n := range []int{7, 9} {
		saved := proofs[1].Argmax.Targets
		proofs[1].Argmax.Targets = append(slices.Clone(saved), 0)[:n]
		rejected("targets of another count", st, req)
		proofs[1].Argmax.Targets = saved
	}
}
