package recursion

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/pcs"
)

// AggregatorTurn is a turn aggregator's constant shape: the model's
// blocks and the cache's capacity.
type AggregatorTurn struct {
	Layers, Capacity int
}

// TurnState is a turn's state in (native committed State: its rows and
// per block the commitments to the keys' and values' cache) and the
// number of rows the turn keeps, which every segment's public Keep
// states. The aggregator checks that every segment reads the state in's
// commitments and Start = Rows, and derives the state out: per block
// the state in's commitments plus the segment's written rows' (Keys,
// Values), Rows + Keep rows. Its digests are native State.Digest's:
// pcs.DigestWith("committed/state", (rows, capacity), K₀, V₀, …), and 0
// for the empty state (every commitment the identity, asserted).
type TurnState struct {
	Rows         frontend.Variable
	Keys, Values []sw_bls12377.G1Affine
	Keep         frontend.Variable
}

// checkTurnShapes checks that the shapes are a turn's exactly when turn
// is set, and that the segments' blocks cover the model's once, in order.
func checkTurnShapes(shapes []SegmentShape, turn *AggregatorTurn) error {
	next := 0
	for i, s := range shapes {
		if (s.Turn != nil) != (turn != nil) {
			return fmt.Errorf("recursion: committed segment %d is a turn's exactly when the aggregator is", i)
		}
		if s.Turn == nil || s.Turn.Blocks == 0 {
			continue
		}
		if s.Turn.From != next {
			return fmt.Errorf("recursion: turn segment %d caches blocks from %d, want %d", i, s.Turn.From, next)
		}
		next += s.Turn.Blocks
	}
	if turn != nil && (next != turn.Layers || turn.Capacity < 1) {
		return fmt.Errorf("recursion: a turn's segments cache %d of %d blocks (capacity %d)", next, turn.Layers, turn.Capacity)
	}
	return nil
}

// checkStates asserts, for a turn, that every segment reads the state
// in's commitments, and that StateIn and StateOut are the digests of the
// state in and of the state out it derives (see [TurnState]).
func checkStates(api frontend.API, pass *Pass, shape PassShape) error {
	st := &pass.State[0]
	layers := shape.Turn.Layers
	if len(st.Keys) != layers || len(st.Values) != layers {
		return fmt.Errorf("recursion: a state of %d and %d blocks for %d", len(st.Keys), len(st.Values), layers)
	}
	outKeys := make([]sw_bls12377.G1Affine, layers)
	outValues := make([]sw_bls12377.G1Affine, layers)
	equal := func(a, b *sw_bls12377.G1Affine) {
		api.AssertIsEqual(a.X, b.X)
		api.AssertIsEqual(a.Y, b.Y)
	}
	for i := range pass.Segments {
		t := shape.Segments[i].Turn
		for b := range t.Blocks {
			l, first := t.From+b, t.Cache+cacheCommitments*b
			cm := pass.Segments[i].Commitments
			equal(&cm[first], &st.Keys[l])
			equal(&cm[first+1], &st.Values[l])
			// The identity is (0, 0), which AddUnified handles.
			outKeys[l] = st.Keys[l]
			outKeys[l].AddUnified(api, cm[first+2])
			outValues[l] = st.Values[l]
			outValues[l].AddUnified(api, cm[first+3])
		}
	}
	interleave := func(keys, values []sw_bls12377.G1Affine) []sw_bls12377.G1Affine {
		out := make([]sw_bls12377.G1Affine, 0, 2*layers)
		for l := range layers {
			out = append(out, keys[l], values[l])
		}
		return out
	}
	// The empty state: no row, every commitment the identity, digest 0.
	empty := api.IsZero(st.Rows)
	for l := range layers {
		for _, v := range []frontend.Variable{st.Keys[l].X, st.Keys[l].Y, st.Values[l].X, st.Values[l].Y} {
			api.AssertIsEqual(api.Mul(empty, v), 0)
		}
	}
	in, err := gpcs.PointsDigestWith(api, stateLabel, []frontend.Variable{st.Rows, shape.Turn.Capacity}, interleave(st.Keys, st.Values))
	if err != nil {
		return err
	}
	api.AssertIsEqual(pass.States[0], api.Mul(api.Sub(1, empty), in))
	// Keep ≥ 1 (the request has a prompt), Rows + Keep ≤ Capacity: the
	// segments' cache steps assert Start + Rows ≤ Capacity.
	rows := api.Add(st.Rows, st.Keep)
	out, err := gpcs.PointsDigestWith(api, stateLabel, []frontend.Variable{rows, shape.Turn.Capacity}, interleave(outKeys, outValues))
	if err != nil {
		return err
	}
	api.AssertIsEqual(pass.States[1], out)
	return nil
}

// stateLabel is native committed State.Digest's label.
const stateLabel = "committed/state"

// TurnWitness is the witness of a turn's aggregator beyond its segments:
// the digests of the states in and out, the state in's rows and per block
// the commitments to its keys' and values' cache, and the rows the turn
// keeps.
type TurnWitness struct {
	StateIn, StateOut *big.Int
	Rows              int
	Keys, Values      []pcs.Commitment
	Keep              int
}
