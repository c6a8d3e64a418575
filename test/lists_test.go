//go:build full

package test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

// TestRunListOnChain proves, with the wrapper's keys, a conversation's
// first turn of the built-in micro model alone ("H" and one token, bucket
// 2, a cache of 4 rows) and then a mixed list of two requests and the
// conversation's second turn in the same deployment (--capacity 4 --mix
// 2,1), one final model id for both. The list's run records the first
// turn and then the list on a new simulated chain through the one
// verifier: every leaf isVerified, an event per leaf, the turn's state
// out recorded. On a registry that never recorded the first turn the
// list is refused (UnknownState), and the list submitted again after it
// is recorded is taken quietly. Run it with
//
//	go test -tags full ./test -run TestRunListOnChain -timeout 90m -v
func TestRunListOnChain(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Minute)
	defer cancel()
	deployment := pipeline.AggregatedOptions{
		Options:     pipeline.Options{Model: m, Bucket: 2, Chain: true, Log: testWriter{t}},
		SegmentSize: 1, Capacity: 4, Mix: &pipeline.Mix{Requests: 2, Turns: 1}, Wrap: true,
	}
	turn := pipeline.TurnOptions{AggregatedOptions: deployment}
	turn.Prompt, turn.Tokens = []int{'H'}, 1
	first, err := pipeline.RunTurn(ctx, turn)
	if err != nil {
		t.Fatal(err)
	}
	list := pipeline.ListOptions{AggregatedOptions: deployment,
		Requests: []pipeline.ListRequest{{Prompt: []int{'H'}, Tokens: 2}, {Prompt: []int{'B', 'C'}, Tokens: 1}},
		Turns: []pipeline.ListTurn{{ListRequest: pipeline.ListRequest{Prompt: []int{'i'}, Tokens: 1},
			History: first.History, StateIn: first.Turn.StateOut, Earlier: first.Turns}},
	}
	rep, err := pipeline.RunList(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.List.ModelID.Cmp(first.List.ModelID) != 0 {
		t.Fatalf("the list states model id %#x, the first turn %#x", rep.List.ModelID, first.List.ModelID)
	}
	if len(rep.Gas) != 2 || rep.Turns[0].Turn.StateIn.Cmp(first.Turn.StateOut) != 0 {
		t.Fatalf("%d submissions, the turn from %#x", len(rep.Gas), rep.Turns[0].Turn.StateIn)
	}
	t.Logf("submit gas: the first turn %d, the list of %d leaves %d", rep.Gas[0], len(rep.List.Leaves), rep.Gas[1])

	chain, sim, err := pipeline.SimulatedChain()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	dep, err := chain.DeployVerifierAndRegistry(ctx, rep.Contracts, rep.List.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.Submit(ctx, dep.Registry, rep.Proof, rep.List)
	var revert *solidity.RevertError
	if !errors.As(err, &revert) || !strings.HasPrefix(revert.Reason, "UnknownState(") {
		t.Fatalf("the list on a registry without the first turn: %v, want an UnknownState revert", err)
	}
	if _, err := chain.Submit(ctx, dep.Registry, first.Proof, first.List); err != nil {
		t.Fatal(err)
	}
	if _, err := chain.Submit(ctx, dep.Registry, rep.Proof, rep.List); err != nil {
		t.Fatal(err)
	}
	replay, err := chain.Submit(ctx, dep.Registry, rep.Proof, rep.List)
	if err != nil {
		t.Fatalf("a replayed list: %v", err)
	}
	events, err := solidity.TurnEvents(replay, dep.Registry)
	if err != nil || len(events) != 0 {
		t.Fatalf("a replayed list emitted %d turn events (%v)", len(events), err)
	}
	for i := range rep.List.Leaves {
		if ok, err := solidity.IsVerified(ctx, chain.Backend(), dep.Registry, rep.List, i); err != nil || !ok {
			t.Fatalf("leaf %d is not verified (%v)", i, err)
		}
	}
}
