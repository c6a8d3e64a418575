package committed

import (
	"errors"
	"flag"
	"fmt"
	"reflect"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/tier"
	"github.com/veriformer/veriformer/model"
)

var everyStride = flag.Int("committed.every", 0, "TestEveryElementTampered changes one element in this many of a proof, and the first and last of each field (0: every element of the built-in model's proofs, one in 64 of GPT-2 small's)")

// site is one field element or one group element of a proof, reached
// through the proof's fields.
type site struct {
	// path names the element (Proof.Norms[2].Rows.Rounds[0][1]), field
	// the same without the indices (Proof.Norms.Rows.Rounds).
	path, field string
	do          func() func()
}

var (
	frType = reflect.TypeFor[fr.Element]()
	g1Type = reflect.TypeFor[bls12377.G1Affine]()
)

// sites lists every field element and every point reachable from v (a
// pointer), each with its path and a change that returns its undo:
// scalars gain one, points the generator.
func sites(v reflect.Value) []site {
	var out []site
	var walk func(v reflect.Value, path, field string)
	walk = func(v reflect.Value, path, field string) {
		switch v.Type() {
		case frType:
			x := v.Addr().Interface().(*fr.Element)
			out = append(out, site{path, field, func() func() { return bump(x) }})
			return
		case g1Type:
			p := v.Addr().Interface().(*bls12377.G1Affine)
			out = append(out, site{path, field, func() func() { return move(p) }})
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path, field)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if f := v.Type().Field(i); f.IsExported() {
					walk(v.Field(i), path+"."+f.Name, field+"."+f.Name)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), field)
			}
		}
	}
	walk(v, "Proof", "Proof")
	return out
}

// sample keeps every stride-th site and the first and last site of each
// field, so that every field is changed at least once.
func sample(all []site, stride int) []site {
	first, last := map[string]int{}, map[string]int{}
	for k, c := range all {
		if _, ok := first[c.field]; !ok {
			first[c.field] = k
		}
		last[c.field] = k
	}
	var out []site
	for k, c := range all {
		if k%stride == 0 || first[c.field] == k || last[c.field] == k {
			out = append(out, c)
		}
	}
	return out
}

// TestEveryElementTampered changes every field element and every point
// of a proof, one at a time, found by walking the proof's fields (so a
// field added to the proof is covered without a new case): the verifier
// rejects each change and accepts the restored proof. One element in
// eight and the first and last of each field in the default tier, every
// element in the full tier (one in 16 with -short) of the built-in
// model's two segments, its last
// block without the LM head and a chunk of the LM head, and a Llama
// segment (gated product, rotations); with
// -committed.gpt2small=true also GPT-2 small's block 1, its last block
// with the LM head and the first chunk of its LM head at
// -committed.rows rows, one element in 64 and the first and last of
// each field (-committed.every=N sets the stride).
func TestEveryElementTampered(t *testing.T) {
	stride := func(def int) int {
		if *everyStride > 0 {
			return *everyStride
		}
		if testing.Short() {
			return max(def, 16)
		}
		return def
	}
	t.Run("default", func(t *testing.T) {
		f := newFixture(t, model.Default(), 4)
		everyElementRejected(t, f, stride(tier.Stride(8)),
			inference.Segment{From: 0, To: 1},
			inference.Segment{From: 1, To: 2},
			inference.Segment{From: 1, To: 2, NoHead: true},
			inference.Segment{From: 2, To: 2, VocabFrom: 100, VocabTo: f.m.Config.Vocab})
	})
	t.Run("llama", func(t *testing.T) {
		m, err := model.Builtin(model.LlamaTiny)
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t, m, 4)
		everyElementRejected(t, f, stride(tier.Stride(8)), inference.Segment{From: 1, To: 2})
	})
	if !*gpt2Small {
		return
	}
	t.Run("gpt2-small", func(t *testing.T) {
		m := gpt2SmallModel(t, *benchRows)
		c := m.Config
		f := newFixture(t, m, *benchRows)
		everyElementRejected(t, f, stride(64),
			inference.Segment{From: 1, To: 2},
			inference.Segment{From: c.Layers - 1, To: c.Layers},
			inference.Segment{From: c.Layers, To: c.Layers, VocabFrom: 0, VocabTo: 1 << 14})
	})
}

func everyElementRejected(t *testing.T, f *fixture, stride int, segs ...inference.Segment) {
	s := testSRS(t, 1<<PartVars)
	vk := testKey(t, s, f.m)
	for _, seg := range segs {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); err != nil {
			t.Fatalf("segment %v: the honest proof is rejected: %v", seg, err)
		}
		all := sites(reflect.ValueOf(proof))
		if len(all) < 1000 {
			t.Fatalf("segment %v: only %d elements found in the proof", seg, len(all))
		}
		checked := sample(all, stride)
		fields := map[string]bool{}
		for _, c := range checked {
			fields[c.field] = true
			undo := c.do()
			if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); !errors.Is(err, ErrRejected) {
				t.Errorf("segment %v: %s changed: %v", seg, c.path, err)
			}
			undo()
		}
		if _, err := Verify(vk, f.m, f.st, f.pass, seg, proof); err != nil {
			t.Fatalf("segment %v: the restored proof is rejected: %v", seg, err)
		}
		t.Logf("segment %v: %d of %d elements (%d fields) changed one at a time, each rejected", seg, len(checked), len(all), len(fields))
	}
}
