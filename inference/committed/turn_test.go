package committed

import (
	"errors"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

// withForgedWrites makes a turn's prover write rows changed by forge in
// place of its new keys and values (tests only).
func withForgedWrites(forge func(layer int, keys, values []int64)) Option {
	return func(c *config) { c.forgeWrites = forge }
}

// turnRequest decodes g tokens greedily after prompt over cache (cache
// unchanged) and returns the turn's request in a bucket of rows and its
// statement.
func turnRequest(t *testing.T, m *model.Model, cache *model.Cache, prompt []int, g, rows int) (Pass, statement.Statement) {
	t.Helper()
	out, err := m.Continue(cache, prompt, g)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.Of[fr.Element](m.ID(), prompt, out)
	if err != nil {
		t.Fatal(err)
	}
	return Pass{Prompt: prompt, Output: out, Rows: rows}, st
}

// turnFixture is one proven turn: its request, statement, the cache it
// leaves and its segment proofs.
type turnFixture struct {
	pass   Pass
	st     statement.Statement
	next   *model.Cache
	proofs []*Proof
}

func proveTurn(t *testing.T, srs *pcs.SRS, m *model.Model, cache *model.Cache, pass Pass, st statement.Statement, capacity int, segs []inference.Segment, opts ...Option) *turnFixture {
	t.Helper()
	tr, next, err := TurnTrace(m, cache, pass, capacity)
	if err != nil {
		t.Fatal(err)
	}
	f := &turnFixture{pass: pass, st: st, next: next}
	turn := Turn{Start: cache.Len, Capacity: capacity}
	for _, seg := range segs {
		p, _, err := ProveTurn(srs, m, st, pass, tr, seg, turn, append([]Option{WithPartVars(testPartVars)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		f.proofs = append(f.proofs, p)
	}
	return f
}

// cacheState commits to a model cache as a state of the given capacity.
func cacheState(t *testing.T, srs *pcs.SRS, m *model.Model, c *model.Cache, capacity int) *State {
	t.Helper()
	s, err := StateOf(srs, m, c, capacity)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTurns proves a conversation of two turns of the built-in model (3
// prompt tokens and 3 generated, then 2 and 4, in a bucket of 8 rows over
// a cache of 16) with one shape for both, then two turns of one row
// (token by token), verifies each from the state the previous left, and
// checks that the state out commits to the model's cache. It rejects the second turn from another state (the
// empty one, another conversation's, the first turn's state with a
// row count changed), proven over a cache with a row changed, two rows
// swapped or a row dropped, with rows written that are not its new keys
// or values, and with each cache value of its proof changed.
func TestTurns(t *testing.T) {
	m := model.Default()
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	const capacity, rows = 16, 8
	srs := testSRS(t, 1<<18)
	vk := testKey(t, srs, m)
	empty := EmptyState(m.Config.Layers, capacity)
	if empty.Digest().Sign() != 0 {
		t.Fatal("the empty state's digest is not statement.EmptyState")
	}

	pass1, st1 := turnRequest(t, m, m.NewCache(), []int{5, 17, 42}, 3, rows)
	turn1 := proveTurn(t, srs, m, m.NewCache(), pass1, st1, capacity, segs)
	state1, err := VerifyTurn(vk, m, st1, pass1, empty, segs, turn1.proofs)
	if err != nil {
		t.Fatalf("turn 1: %v", err)
	}
	if state1.Rows != 6 || !sameState(state1, cacheState(t, srs, m, turn1.next, capacity)) {
		t.Fatalf("turn 1 leaves %d rows and commitments other than the cache's", state1.Rows)
	}

	pass2, st2 := turnRequest(t, m, turn1.next, []int{9, 3}, 4, rows)
	turn2 := proveTurn(t, srs, m, turn1.next, pass2, st2, capacity, segs)
	state2, err := VerifyTurn(vk, m, st2, pass2, state1, segs, turn2.proofs)
	if err != nil {
		t.Fatalf("turn 2: %v", err)
	}
	if state2.Rows != 12 || !sameState(state2, cacheState(t, srs, m, turn2.next, capacity)) {
		t.Fatalf("turn 2 leaves %d rows and commitments other than the cache's", state2.Rows)
	}
	if state2.Digest().Cmp(state1.Digest()) == 0 {
		t.Fatal("two states share a digest")
	}
	// Each segment alone, as a coordinator checks a worker's: from the
	// state in, and from no other.
	for k, seg := range segs {
		if err := VerifyTurnSegment(vk, m, st2, pass2, state1, seg, turn2.proofs[k]); err != nil {
			t.Fatalf("turn 2, segment %d alone: %v", k, err)
		}
		if err := VerifyTurnSegment(vk, m, st2, pass2, empty, seg, turn2.proofs[k]); !errors.Is(err, ErrRejected) {
			t.Errorf("turn 2, segment %d alone from the empty state: %v", k, err)
		}
		if err := VerifyTurnSegment(vk, m, st2, pass2, state1, segs[1-k], turn2.proofs[k]); !errors.Is(err, ErrRejected) {
			t.Errorf("turn 2, segment %d's proof as segment %d: %v", k, 1-k, err)
		}
	}
	// The turns' continuation is the model's: the second turn's tokens
	// are those of one pass over the whole conversation.
	whole := append(append(slices.Clone(pass1.Prompt), pass1.Output...), pass2.Prompt...)
	g, err := m.Generate(whole, len(pass2.Output))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Tokens, pass2.Output) {
		t.Fatalf("turn 2 generated %v, one pass over the conversation %v", pass2.Output, g.Tokens)
	}

	// Token by token: turns of one row, each feeding the token the one
	// before generated (not cached by it: its pass has no row for it).
	cache, state, fed := turn2.next, state2, 7
	for k := range 2 {
		pass, st := turnRequest(t, m, cache, []int{fed}, 1, 1)
		f := proveTurn(t, srs, m, cache, pass, st, capacity, segs)
		next, err := VerifyTurn(vk, m, st, pass, state, segs, f.proofs)
		if err != nil {
			t.Fatalf("token %d: %v", k, err)
		}
		if next.Rows != state.Rows+1 || !sameState(next, cacheState(t, srs, m, f.next, capacity)) {
			t.Fatalf("token %d leaves %d rows and commitments other than the cache's", k, next.Rows)
		}
		cache, state, fed = f.next, next, pass.Output[0]
	}

	rejected := func(name string, in *State, proofs []*Proof) {
		t.Helper()
		_, err := VerifyTurn(vk, m, st2, pass2, in, segs, proofs)
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, ErrRejected) {
			t.Errorf("%s: %v", name, err)
		}
	}
	rejected("turn 2 from the empty state", empty, turn2.proofs)
	other1, otherSt := turnRequest(t, m, m.NewCache(), []int{5, 17, 43}, 3, rows)
	other := proveTurn(t, srs, m, m.NewCache(), other1, otherSt, capacity, segs)
	otherState, err := VerifyTurn(vk, m, otherSt, other1, empty, segs, other.proofs)
	if err != nil {
		t.Fatal(err)
	}
	rejected("turn 2 replayed on another conversation", otherState, turn2.proofs)
	moved := *state1
	moved.Rows = 5
	rejected("turn 2 from the first state with 5 rows", &moved, turn2.proofs)

	// A prover that changes the history: each is a valid turn of its own
	// cache, which is not the state the first turn left.
	kvd := m.Config.HeadLayout().KVDim()
	for _, c := range []struct {
		name   string
		change func(c *model.Cache)
	}{
		{"a cache row changed", func(c *model.Cache) { c.Keys[1][2*kvd+3]++ }},
		{"two cache rows swapped", func(c *model.Cache) {
			for _, rows := range [][]int64{c.Keys[0], c.Values[0]} {
				a, b := rows[1*kvd:2*kvd], rows[4*kvd:5*kvd]
				tmp := slices.Clone(a)
				copy(a, b)
				copy(b, tmp)
			}
		}},
	} {
		forged := turn1.next.Clone()
		c.change(forged)
		f := proveTurn(t, srs, m, forged, pass2, st2, capacity, segs)
		if _, err := VerifyTurn(vk, m, st2, pass2, cacheState(t, srs, m, forged, capacity), segs, f.proofs); err != nil {
			t.Fatalf("%s: the turn over its own cache: %v", c.name, err)
		}
		rejected(c.name, state1, f.proofs)
	}
	dropped := turn1.next.Clone()
	if err := dropped.Truncate(5); err != nil {
		t.Fatal(err)
	}
	rejected("a history row dropped", state1, proveTurn(t, srs, m, dropped, pass2, st2, capacity, segs).proofs)

	// Rows written that are not the new keys (values): W commits them
	// consistently, so the claim it leaves on the new rows fails.
	for _, keys := range []bool{true, false} {
		forge := withForgedWrites(func(layer int, k, v []int64) {
			if layer == 1 {
				if keys {
					k[kvd+1]++
				} else {
					v[2*kvd]--
				}
			}
		})
		rejected("a written row not the new one", state1, proveTurn(t, srs, m, turn1.next, pass2, st2, capacity, segs, forge).proofs)
	}

	// Each cache value of the proof, changed.
	var one fr.Element
	one.SetOne()
	cp := &turn2.proofs[1].Cache[0]
	for name, v := range map[string]*fr.Element{
		"y_prev of the keys read": &cp.ReadKeys.Prev, "y_X of the values read": &cp.ReadValues.New,
		"W of the keys": &cp.KeysEval, "W of the values": &cp.ValuesEval,
		"y_X of the keys written": &cp.WriteKeys.New, "a round of the values written": &cp.WriteValues.Shift.Rounds[0][1],
		"a round of the keys read": &cp.ReadKeys.Shift.Rounds[2][0],
	} {
		v.Add(v, &one)
		rejected(name, state1, turn2.proofs)
		v.Sub(v, &one)
	}
	saved := cp.Keys
	cp.Keys = cp.Values
	rejected("the written values' commitment as the keys'", state1, turn2.proofs)
	cp.Keys = saved
	if _, err := VerifyTurn(vk, m, st2, pass2, state1, segs, turn2.proofs); err != nil {
		t.Fatalf("turn 2 after the tampers were undone: %v", err)
	}

	// The proof round-trips its encoding.
	data, err := turn2.proofs[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalProof(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyTurn(vk, m, st2, pass2, state1, segs, []*Proof{back, turn2.proofs[1]}); err != nil {
		t.Fatalf("decoded turn proof: %v", err)
	}
}

func sameState(a, b *State) bool {
	eq := func(x, y pcs.Commitment) bool { return x.Equal(&y) }
	return a.Rows == b.Rows && a.Capacity == b.Capacity && slices.EqualFunc(a.Keys, b.Keys, eq) && slices.EqualFunc(a.Values, b.Values, eq)
}
