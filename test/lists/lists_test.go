//go:build !full

package lists

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

// TestRunList proves a conversation's first turn alone and then a mixed
// list holding two requests and the conversation's second turn, of the
// built-in micro model with real keys in the smallest shapes a mixed
// deployment has (bucket 2, a cache of 4 rows, lists of two requests and
// one turn), both on the workers of an embedded NATS JetStream server
// (two in-process workers reading the run's key cache, as prove
// --workers has them), each result verified by the coordinator. The
// first turn proves "H" and one generated token from the empty state
// (its native, segment and aggregation jobs, the aggregator's proof on
// the turn's leaf, whose state out the coordinator states before the
// jobs run); the list proves the requests "H" and "BC" and the turn "i"
// over the first turn's history, whose state in the prover recomputes
// and compares with the state the first turn left (each of its three
// passes' native and segment jobs; one aggregator completes the list in
// the run). Each request's output is its greedy generation and
// the turn's the greedy continuation of the whole conversation; the list
// holds the two request leaves and the turn leaf in order; the lone turn
// and the list state one final model id (one deployment, one id, so the
// turns chain on chain); and the wrapper's witness for the aggregator's
// proof states the report's list. The full tier's TestRunListOnChain
// wraps both and records them on a simulated chain.
func TestRunList(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	deployment := pipeline.AggregatedOptions{
		Options:     pipeline.Options{Model: m, Bucket: 2, Log: local.Writer{T: t}},
		SegmentSize: 1, Capacity: 4, Mix: &pipeline.Mix{Requests: 2, Turns: 1},
	}
	cache, err := setup.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	deployment.Queue = local.Queue(t, ctx, nil, cache)
	lone := pipeline.TurnOptions{AggregatedOptions: deployment}
	lone.Prompt, lone.Tokens = []int{'H'}, 1
	first, err := pipeline.RunTurn(ctx, lone)
	if err != nil {
		t.Fatal(err)
	}
	if first.Turn.StateIn.Cmp(statement.EmptyState) != 0 || first.StateOut.Rows != 2 || len(first.History) != 2 {
		t.Fatalf("turn 1: state in %#x, state out of %d rows, a history of %d tokens", first.Turn.StateIn, first.StateOut.Rows, len(first.History))
	}
	history := first.History

	opts := pipeline.ListOptions{AggregatedOptions: deployment,
		Requests: []pipeline.ListRequest{{Prompt: []int{'H'}, Tokens: 2}, {Prompt: []int{'B', 'C'}, Tokens: 1}},
		Turns: []pipeline.ListTurn{{ListRequest: pipeline.ListRequest{Prompt: []int{'i'}, Tokens: 1},
			History: history, StateIn: first.Turn.StateOut, Earlier: first.Turns}},
	}
	rep, err := pipeline.RunList(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}

	for i, q := range opts.Requests {
		gen, err := m.Generate(q.Prompt, q.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gen.Tokens, rep.Outputs[i]) {
			t.Fatalf("request %d generated %v, greedy %v", i+1, rep.Outputs[i], gen.Tokens)
		}
	}
	turn := rep.Turns[0]
	whole, err := m.Generate(append(slices.Clone(history), 'i'), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(whole.Tokens, turn.Output) {
		t.Fatalf("the turn generated %v, one pass over the conversation %v", turn.Output, whole.Tokens)
	}
	leaves := rep.List.Leaves
	if len(leaves) != 3 || leaves[0].Kind != statement.KindRequest || leaves[1].Kind != statement.KindRequest || leaves[2].String() != turn.Turn.String() {
		t.Fatalf("the list %v, want two requests and the turn %v", leaves, turn.Turn)
	}
	if turn.StateIn.Rows != len(history) || turn.Turn.StateIn.Cmp(turn.StateIn.Digest()) != 0 || turn.StateOut.Rows != 4 {
		t.Fatalf("the turn from a state of %d rows (%#x) to one of %d", turn.StateIn.Rows, turn.Turn.StateIn, turn.StateOut.Rows)
	}
	if got := turn.Turns[len(turn.Turns)-1].List(); got.ModelID.Cmp(rep.List.ModelID) != 0 || len(got.Leaves) != 3 {
		t.Fatalf("the turn is recorded in %v", got)
	}

	if rep.List.ModelID.Cmp(first.List.ModelID) != 0 {
		t.Fatalf("the lone turn states model id %#x, the list %#x", first.List.ModelID, rep.List.ModelID)
	}
	if turn.Turn.StateIn.Cmp(first.Turn.StateOut) != 0 || len(turn.Turns) != 2 {
		t.Fatalf("the list's turn reads state %#x after %d turns, turn 1 left %#x", turn.Turn.StateIn, len(turn.Turns)-1, first.Turn.StateOut)
	}

	// The wrapper's witness for the aggregator's proof states the list.
	a := rep.Aggregated
	w, final, err := recursion.WrapperAssignment(a.Proof, a.Key, a.List, a.Deployment, a.Slot)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := rep.List.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := w.StatementDigest.(*big.Int); !ok || got.Cmp(digest) != 0 || len(final.Leaves) != 3 {
		t.Fatalf("the wrapper's public input is %v, the list's statement digest %#x", w.StatementDigest, digest)
	}
}
