//go:build !full

package turns

import (
	"context"
	"math/big"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/test/internal/local"
)

// TestRunTwoTurns proves a conversation of two turns of the built-in micro
// model in the aggregated design with real keys, in the smallest shape a
// conversation has: bucket 2, a cache of 4 rows. Turn 1 proves "H" and one
// generated token from the empty state; turn 2 proves "i" and one more
// over turn 1's two cached rows, in the same circuits with the same keys.
// The second turn's state in is the first's state out, recomputed by the
// prover from the history; its output is the greedy continuation of the
// whole conversation; both state one model id; the wrapper's witness for
// turn 2's aggregator proof states the turn's list the report gives. The
// second turn is proven on the workers of an embedded NATS JetStream
// server (two in-process workers that read the run's key cache, as
// prove --workers has them, and never write it): its
// native, segment and aggregation jobs, each result verified by the
// coordinator from the turn's state in, the aggregator's proof on the
// turn's leaf, whose state out the coordinator states before the jobs
// run. The full tier's TestRunTurns runs a longer conversation with the wrapper's
// Groth16 keys and records both turns on a simulated chain; the
// registry's chaining of turns is tested with real proofs by solidity's
// TestRegistryLists.
func TestRunTwoTurns(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	opts := pipeline.TurnOptions{AggregatedOptions: pipeline.AggregatedOptions{
		Options:     pipeline.Options{Model: m, Prompt: []int{'H'}, Tokens: 1, Bucket: 2, Log: testWriter{t}},
		SegmentSize: 1, Capacity: 4,
	}}
	first, err := pipeline.RunTurn(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if first.Turn.StateIn.Cmp(statement.EmptyState) != 0 || first.StateOut.Rows != 2 || len(first.History) != 2 {
		t.Fatalf("turn 1: state in %#x, state out of %d rows, a history of %d tokens", first.Turn.StateIn, first.StateOut.Rows, len(first.History))
	}
	opts.History, opts.Prompt, opts.StateIn = first.History, []int{'i'}, first.Turn.StateOut
	cache, err := setup.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	opts.Queue = local.Queue(t, ctx, nil, cache)
	second, err := pipeline.RunTurn(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := second.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if second.Turn.StateIn.Cmp(first.Turn.StateOut) != 0 {
		t.Fatalf("turn 2 reads state %#x, turn 1 left %#x", second.Turn.StateIn, first.Turn.StateOut)
	}
	if second.List.ModelID.Cmp(first.List.ModelID) != 0 {
		t.Fatal("the two turns state two model ids")
	}
	if second.StateOut.Rows != 4 || len(second.History) != 4 {
		t.Fatalf("turn 2 leaves %d rows, a history of %d", second.StateOut.Rows, len(second.History))
	}
	whole, err := m.Generate(append(slices.Clone(first.History), 'i'), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(whole.Tokens, second.Output) {
		t.Fatalf("turn 2 generated %v, one pass over the conversation %v", second.Output, whole.Tokens)
	}

	// The wrapper's witness for turn 2's aggregator proof states the
	// report's list of the one turn. Solving the wrapper on it (most of a
	// minute) is left to the full tier; recursion's TestWrapperTestEngine
	// solves the one wrapper on a toy proof of a list with a turn.
	a := second.Aggregated
	if a == nil {
		t.Fatal("no aggregator proof in turn 2's report")
	}
	w, final, err := recursion.WrapperAssignment(a.Proof, a.Key, a.List, a.Deployment, a.Slot)
	if err != nil {
		t.Fatal(err)
	}
	if len(final.Leaves) != 1 || final.Leaves[0].String() != second.Turn.String() {
		t.Fatalf("the wrapper states %v, the report %v", final, second.Turn)
	}
	digest, err := second.List.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := w.StatementDigest.(*big.Int); !ok || got.Cmp(digest) != 0 {
		t.Fatalf("the wrapper's public input is %v, the turn's list's statement digest %#x", w.StatementDigest, digest)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
