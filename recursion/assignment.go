package recursion

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/statement"
)

// PassWitness is one pass's witness for [AggregatorAssignment]: its
// statement as its segments state it (the model id the inner one), its
// segments' witnesses and, for a turn's pass, its [TurnWitness].
type PassWitness struct {
	Statement statement.Statement
	Segments  []SegmentProof
	Turn      *TurnWitness
}

// AggregatorAssignment returns the assignment of the committed
// aggregator of the passes of layout for the list l they prove (its
// model id the inner one, every pass's) and the passes' witnesses. It
// refuses a list that is not the passes' leaves in order: a request's
// or a turn's leaf per pass, or a list's requests.
func AggregatorAssignment(layout []PassShape, key gpcs.Key, l statement.List, passes []PassWitness) (*Aggregator, error) {
	if err := checkLayout(layout); err != nil {
		return nil, err
	}
	if len(passes) != len(layout) {
		return nil, fmt.Errorf("recursion: %d passes for a layout of %d", len(passes), len(layout))
	}
	if err := l.Check(); err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	if layout[0].List {
		if err := checkListPass(passes[0].Statement, l); err != nil {
			return nil, err
		}
	} else if len(l.Leaves) != len(layout) {
		return nil, fmt.Errorf("recursion: %d passes prove a list of %d leaves", len(layout), len(l.Leaves))
	}
	list, err := l.ListDigest()
	if err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	a := &Aggregator{ModelID: l.ModelID, ListDigest: list, Passes: make([]Pass, len(passes)), layout: layout, key: key}
	for p, w := range passes {
		shape := layout[p]
		if err := checkStatement(w.Statement); err != nil {
			return nil, fmt.Errorf("pass %d: %w", p, err)
		}
		if w.Statement.ModelID.Cmp(l.ModelID) != 0 {
			return nil, fmt.Errorf("recursion: pass %d states another model id than the list's", p)
		}
		if (shape.Turn != nil) != (w.Turn != nil) {
			return nil, fmt.Errorf("recursion: pass %d: a turn's witness exactly for a turn's pass", p)
		}
		if len(w.Segments) != len(shape.Segments) {
			return nil, fmt.Errorf("recursion: pass %d has %d segments, its shape %d", p, len(w.Segments), len(shape.Segments))
		}
		if !shape.List {
			if err := checkLeaf(w, l.Leaves[p]); err != nil {
				return nil, fmt.Errorf("pass %d: %w", p, err)
			}
		}
		pass := Pass{InputDigest: w.Statement.InputDigest, OutputDigest: w.Statement.OutputDigest, Segments: w.Segments}
		if t := w.Turn; t != nil {
			pass.States = []frontend.Variable{t.StateIn, t.StateOut}
			ts := TurnState{Rows: t.Rows, Keep: t.Keep}
			for b := range t.Keys {
				ts.Keys = append(ts.Keys, sw_bls12377.NewG1Affine(t.Keys[b]))
				ts.Values = append(ts.Values, sw_bls12377.NewG1Affine(t.Values[b]))
			}
			pass.State = []TurnState{ts}
		}
		a.Passes[p] = pass
	}
	return a, nil
}

// checkListPass checks that l is the list a list's pass of statement st
// proves: of requests only, whose list digest and count st states.
func checkListPass(st statement.Statement, l statement.List) error {
	if err := checkStatement(st); err != nil {
		return err
	}
	digest, err := l.ListDigest()
	if err != nil {
		return fmt.Errorf("recursion: %w", err)
	}
	if digest.Cmp(st.InputDigest) != 0 || st.OutputDigest.Cmp(big.NewInt(int64(len(l.Leaves)))) != 0 {
		return errors.New("recursion: the list is not the one the pass states")
	}
	for i, leaf := range l.Leaves {
		if leaf.Kind != statement.KindRequest {
			return fmt.Errorf("recursion: leaf %d of a list's pass is a %v", i, leaf.Kind)
		}
	}
	return nil
}

// checkLeaf checks that leaf is the one a request's or a turn's pass
// proves.
func checkLeaf(w PassWitness, leaf statement.Leaf) error {
	st := w.Statement
	want := statement.RequestLeaf(st.InputDigest, st.OutputDigest)
	if w.Turn != nil {
		want = statement.TurnLeaf(w.Turn.StateIn, st.InputDigest, st.OutputDigest, w.Turn.StateOut)
	}
	got, err := leaf.Words()
	if err != nil {
		return fmt.Errorf("recursion: %w", err)
	}
	words, err := want.Words()
	if err != nil {
		return fmt.Errorf("recursion: %w", err)
	}
	if len(got) != len(words) {
		return errors.New("recursion: the list's leaf is not the pass's")
	}
	for i := range words {
		if got[i].Cmp(words[i]) != 0 {
			return errors.New("recursion: the list's leaf is not the pass's")
		}
	}
	return nil
}
