//go:build full

package test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/statement"
)

// TestRunTurns proves a conversation of two turns of the built-in micro
// model in the aggregated design (bucket 4, a cache of its 8 positions):
// "Hi" and two generated tokens, then "!" and two more over the first
// turn's history. Both turns share one set of turn circuits and keys;
// the second turn's state in is the first's state out, recomputed by the
// prover from the history and derived by the first turn's aggregator;
// its output is the greedy continuation of the whole conversation; the
// turn wrapper (gnark's test engine) states the second turn's digest.
// Run it with
//
//	go test -tags full ./test -run TestRunTurns -timeout 60m -v
func TestRunTurns(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	opts := pipeline.TurnOptions{AggregatedOptions: pipeline.AggregatedOptions{
		Options:     pipeline.Options{Model: m, Prompt: []int{'H', 'i'}, Tokens: 2, Bucket: 4, Log: testWriter{t}},
		SegmentSize: 1, Capacity: 8,
	}}
	first, err := pipeline.RunTurn(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if first.StateIn.Digest().Cmp(statement.EmptyState) != 0 || first.StateOut.Rows != 4 || len(first.History) != 4 {
		t.Fatalf("turn 1: state in %#x, state out of %d rows, a history of %d tokens", first.StateIn.Digest(), first.StateOut.Rows, len(first.History))
	}
	opts.History, opts.Prompt = first.History, []int{'!'}
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
	if second.Turn.ModelID.Cmp(first.Turn.ModelID) != 0 {
		t.Fatal("the two turns state two model ids")
	}
	whole, err := m.Generate(append(slices.Clone(first.History), '!'), 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(whole.Tokens, second.Output) {
		t.Fatalf("turn 2 generated %v, one pass over the conversation %v", second.Output, whole.Tokens)
	}
	if second.StateOut.Rows != 7 || len(second.History) != 7 {
		t.Fatalf("turn 2 leaves %d rows, a history of %d", second.StateOut.Rows, len(second.History))
	}
	a := second.Aggregated
	placeholder, err := recursion.NewTurnWrapper(a.Commitments)
	if err != nil {
		t.Fatal(err)
	}
	assignment, final, err := recursion.TurnWrapperAssignment(a.Proof, a.Key, a.Statement, second.Turn.StateIn, second.Turn.StateOut, a.Deployment, a.Slot)
	if err != nil {
		t.Fatal(err)
	}
	if final.String() != second.Turn.String() {
		t.Fatalf("the wrapper states %v, the run %v", final, second.Turn)
	}
	if err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField()); err != nil {
		t.Fatal(err)
	}
}
