package committed

import (
	"errors"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
)

// lookupCost returns the entries of a layout's lookup cube and table set
// with the limb width forced to w.
func lookupCost(t *testing.T, f *fixture, seg inference.Segment, w int) int {
	t.Helper()
	l, err := NewLayout(f.tr, seg, f.pass, WithLimbBits(w))
	if err != nil {
		t.Fatal(err)
	}
	if l.LimbBits != w {
		t.Fatalf("segment %v: forced to %d bits, the layout has %d", seg, w, l.LimbBits)
	}
	set, _, err := TableSet(l)
	if err != nil {
		t.Fatal(err)
	}
	return 1<<l.LookupVars + 1<<set.NbVars
}

// checkLimbChoice checks that a segment's layout takes the limb width
// want, and that no other width makes its lookup instance smaller.
func checkLimbChoice(t *testing.T, f *fixture, seg inference.Segment, want int) {
	t.Helper()
	l := mustLayout(t, f, seg)
	if l.LimbBits != want {
		t.Errorf("segment %v: %d-bit limbs, want %d", seg, l.LimbBits, want)
	}
	chosen := lookupCost(t, f, seg, l.LimbBits)
	for _, w := range limbWidths {
		if c := lookupCost(t, f, seg, w); c < chosen {
			t.Errorf("segment %v: %d-bit limbs give %d entries, the chosen %d bits %d", seg, w, c, l.LimbBits, chosen)
		}
	}
}

// TestLimbBits checks the layouts' choice of limb width: the built-in
// model's segments take 15-bit limbs (16 would double their table set),
// none has a smaller lookup instance with the other width; and a proof
// with 16-bit limbs, forced, verifies and is rejected under every change
// of TestTamperedProof. With -committed.gpt2small, GPT-2 small's shape
// takes 16 bits where that halves the lookup cube (a block and the LM
// head at 16 rows, the LM head at 64) and 15 where it does not (a block
// at 64 rows).
func TestLimbBits(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	for _, seg := range segs {
		checkLimbChoice(t, f, seg, 15)
	}

	s := testSRS(t, 1<<18)
	vk := *testKey(t, s, f.m)
	vk.LimbBits = 16
	for _, seg := range segs {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars), WithLimbBits(16))
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		if _, err := Verify(&vk, f.m, f.st, f.pass, seg, proof); err != nil {
			t.Fatalf("segment %v, 16-bit limbs: %v", seg, err)
		}
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("segment %v: a proof with 16-bit limbs under a key of 15-bit layouts: %v", seg, err)
		}
		if seg.From != 0 {
			continue
		}
		n := 0
		for _, c := range tampers(proof) {
			undo := c.do(proof)
			if _, err := Verify(&vk, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
				t.Errorf("16-bit limbs, %s changed: %v", c.name, err)
			}
			undo()
			n++
		}
		t.Logf("16-bit limbs: %d changes, each rejected", n)
	}

	if !*gpt2Small {
		return
	}
	m, err := model.Builtin(model.GPT2SmallRandom)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rows         int
		block, chunk int
	}{{16, 16, 16}, {64, 15, 16}} {
		g := newFixture(t, m, c.rows)
		checkLimbChoice(t, g, inference.Segment{From: 1, To: 2}, c.block)
		checkLimbChoice(t, g, inference.Segment{From: 12, To: 12, VocabFrom: 0, VocabTo: m.Config.Vocab}, c.chunk)
	}
}
