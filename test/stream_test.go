//go:build full

package test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/statement"
)

// TestRunStream proves a generation of the built-in micro model token by
// token (prove --stream): "Hi" and four tokens in a cache of 8 rows, a
// first turn in the bucket of 2 rows, then three turns of one row. The
// tokens are the greedy generation's, every turn starts from the state
// the one before left and states the same model id (the deployment of
// buckets 2 and 1). Run it with
//
//	go test -tags full ./test -run TestRunStream -timeout 60m -v
func TestRunStream(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	prompt := []int{'H', 'i'}
	opts := pipeline.TurnOptions{AggregatedOptions: pipeline.AggregatedOptions{
		Options:     pipeline.Options{Model: m, Prompt: prompt, Tokens: 4, Log: testWriter{t}},
		SegmentSize: 1, Capacity: 8,
	}}
	var turns int
	reports, err := pipeline.RunStream(ctx, opts, func(rep *pipeline.TurnReport) error {
		turns++
		t.Logf("turn %d: %v in the bucket of %d, %v (native %v)", turns, rep.Output, rep.Rows, rep.Duration().Round(time.Millisecond), rep.Duration("native segment proofs").Round(time.Millisecond))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := m.Generate(prompt, 4)
	if err != nil {
		t.Fatal(err)
	}
	var output []int
	state := statement.EmptyState
	for i, rep := range reports {
		output = append(output, rep.Output...)
		wantRows := 1
		if i == 0 {
			wantRows = 2
		}
		if rep.Rows != wantRows || len(rep.Output) != 1 {
			t.Fatalf("turn %d: %d tokens in the bucket of %d, want 1 in %d", i+1, len(rep.Output), rep.Rows, wantRows)
		}
		if rep.Turn.StateIn.Cmp(state) != 0 || rep.List.ModelID.Cmp(reports[0].List.ModelID) != 0 {
			t.Fatalf("turn %d: state in %#x, model id %#x; want %#x and %#x", i+1, rep.Turn.StateIn, rep.List.ModelID, state, reports[0].List.ModelID)
		}
		state = rep.Turn.StateOut
	}
	if turns != 4 || len(reports) != 4 || !slices.Equal(output, whole.Tokens) {
		t.Fatalf("%d turns generated %v, the greedy generation %v", len(reports), output, whole.Tokens)
	}
	if last := reports[3]; last.StateOut.Rows != 5 || len(last.History) != 5 {
		t.Fatalf("the stream leaves %d rows, a history of %d; want 5 (all but the last token)", last.StateOut.Rows, len(last.History))
	}
}
