//go:build full

package test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// TestRunTurns proves a conversation of two turns of the built-in micro
// model in the aggregated design (bucket 4, a cache of its 8 positions):
// "Hi" and two generated tokens, then "!" and two more over the first
// turn's history. Both turns share one set of turn circuits and keys;
// the second turn's state in is the first's state out, recomputed by the
// prover from the history and derived by the first turn's aggregator;
// its output is the greedy continuation of the whole conversation. Each
// turn ends with the wrapper's proof of its list of one, recorded by the
// registry on a simulated chain: the second run records the first turn
// again and then the second, linked to it; on a registry that never
// recorded the first, the second turn is refused. Run it with
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
		SegmentSize: 1, Capacity: 8, Wrap: true,
	}}
	opts.Chain = true
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
	if len(first.Turns) != 1 || len(first.TurnGas) != 1 || len(first.Turns[0].Proof) == 0 {
		t.Fatalf("turn 1 recorded %d turns (%d gas figures)", len(first.Turns), len(first.TurnGas))
	}
	opts.History, opts.Prompt, opts.StateIn, opts.Earlier = first.History, []int{'!'}, first.Turn.StateOut, first.Turns
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
	if len(second.Turns) != 2 || len(second.TurnGas) != 2 || second.Turns[0].Turn.String() != first.Turn.String() {
		t.Fatalf("turn 2 recorded %d turns (%d gas figures), want turn 1 and turn 2", len(second.Turns), len(second.TurnGas))
	}
	t.Logf("submit gas: turn 1 %d, turn 2 %d", second.TurnGas[0], second.TurnGas[1])

	// A registry that never recorded turn 1 refuses turn 2.
	chain, sim, err := pipeline.SimulatedChain()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	dep, err := chain.DeployVerifierAndRegistry(ctx, second.Contracts, second.List.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.Submit(ctx, dep.Registry, second.Proof, second.List)
	var revert *solidity.RevertError
	if !errors.As(err, &revert) || !strings.HasPrefix(revert.Reason, "UnknownState(") {
		t.Fatalf("turn 2 on a registry without turn 1: %v, want an UnknownState revert", err)
	}
}
