package committed

import (
	"errors"
	"fmt"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
)

// TestLayoutParts: the parts a layout leaves out are zero in the stacked
// and limb tables of a pass, and the tensors' and every used limb row's
// first part is kept.
func TestLayoutParts(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		l := mustLayout(t, f, seg)
		stacked, err := l.Table()
		if err != nil {
			t.Fatal(err)
		}
		limbs, err := l.LimbTable()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []int{l.NbVars - 3, l.NbVars - 1, l.NbVars, l.NbVars + 2} {
			parts := layoutParts(l, m)
			size := min(1<<m, 1<<l.NbVars)
			for i, kept := range parts {
				in := map[int]bool{}
				for _, p := range kept {
					in[p] = true
				}
				for p := range (1 << l.NbVars) / size {
					if in[p] {
						continue
					}
					for k := p * size; k < (p+1)*size; k++ {
						if i == 0 && !stacked[k].IsZero() || i > 0 && limbs[(i-1)<<l.NbVars+k] != 0 {
							t.Fatalf("segment %v, parts of %d variables: table %d has a value in part %d, left out", seg, m, i, p)
						}
					}
				}
			}
			if len(parts[0]) == 0 || parts[0][0] != 0 {
				t.Fatalf("segment %v, parts of %d variables: the tensors' first part is left out", seg, m)
			}
		}
	}
}

// TestParts proves the built-in model's segments with the stacked MLE,
// the limb rows, the multiplicities and the key's tables in parts of 12
// variables (the opening then runs over 12): the proofs verify under a
// key of the same parts and are rejected under the default key or with
// a part moved, dropped or added.
func TestParts(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	const m = 12
	vk, err := NewVerifyingKey(s, f.m, WithPartVars(m))
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(m))
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		shape, err := NewShape(f.tr, seg, f.pass, WithPartVars(m))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(proof.Opening.Opening.Evaluations); got != shape.OpeningVars() || got != m {
			t.Fatalf("segment %v: an opening of %d variables, the shape says %d", seg, got, shape.OpeningVars())
		}
		if len(proof.Commitments()) != shape.NbParts() || len(proof.Tensors) < 2 {
			t.Fatalf("segment %v: %d commitments (%d of the tensors), the shape has %d", seg, len(proof.Commitments()), len(proof.Tensors), shape.NbParts())
		}
		if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
			t.Errorf("segment %v: verified under a key of other parts: %v", seg, err)
		}
		var tampers []tamper
		for i := range proof.Tensors {
			tampers = append(tampers, tamper{fmt.Sprintf("Tensors[%d]", i), func(p *Proof) func() { return move(&p.Tensors[i]) }})
		}
		for j := range proof.Limbs {
			for i := range proof.Limbs[j] {
				tampers = append(tampers, tamper{fmt.Sprintf("Limbs[%d][%d]", j, i), func(p *Proof) func() { return move(&p.Limbs[j][i]) }})
			}
		}
		for i := range proof.Multiplicities {
			tampers = append(tampers, tamper{fmt.Sprintf("Multiplicities[%d]", i), func(p *Proof) func() { return move(&p.Multiplicities[i]) }})
		}
		tampers = append(tampers,
			dropLast("Multiplicities", func(p *Proof) *[]pcs.Commitment { return &p.Multiplicities }),
			dropLast("Tensors", func(p *Proof) *[]pcs.Commitment { return &p.Tensors }),
			dropLast("Limbs[0]", func(p *Proof) *[]pcs.Commitment { return &p.Limbs[0] }),
			tamper{"a tensors' part added", func(p *Proof) func() {
				saved := p.Tensors
				p.Tensors = append(append([]pcs.Commitment(nil), saved...), pcs.Commitment{})
				return func() { p.Tensors = saved }
			}})
		for _, c := range tampers {
			undo := c.do(proof)
			if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
				t.Errorf("segment %v: %s changed: %v", seg, c.name, err)
			}
			undo()
		}
		// The encoding carries the parts.
		data, err := proof.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalProof(data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(vk, f.m, f.st, f.pass, seg, back); err != nil {
			t.Fatalf("segment %v: the decoded proof: %v", seg, err)
		}
	}
	if _, _, err := Prove(s, f.m, f.st, f.pass, f.tr, inference.Segment{From: 0, To: 1}, WithPartVars(0)); err == nil {
		t.Error("parts of 0 variables accepted")
	}
	if _, err := NewVerifyingKey(s, f.m, WithPartVars(pcs.MaxNbVars+1)); err == nil {
		t.Error("a key with parts of too many variables accepted")
	}
}
