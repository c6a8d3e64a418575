package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/veriformer/veriformer/model"
)

// StreamPlan is how [RunStream] cuts a generation into turns: the first
// turn proves the prompt and First generated tokens in a bucket of
// FirstRows rows, which they fill, so that it does not cache its last
// output token; every next turn proves one token, reading the last
// output token as its prompt in the bucket of one row. Buckets are the
// deployment's buckets, so that every turn states the same model id.
type StreamPlan struct {
	FirstRows, First int
	Buckets          []int
}

// PlanStream plans a stream of tokens generated tokens after a prompt of
// promptLen tokens: the first turn's bucket is bucket when set, else the
// smallest of buckets (or of all buckets when none are given) that holds
// the prompt; a deployment given in buckets must also hold the bucket of
// one row when the stream needs it.
func PlanStream(m *model.Model, promptLen, tokens, bucket int, buckets []int) (StreamPlan, error) {
	if promptLen < 1 || tokens < 1 {
		return StreamPlan{}, fmt.Errorf("pipeline: a stream of %d tokens after %d: want at least 1 of each", tokens, promptLen)
	}
	first := AggregatedOptions{Options: Options{Model: m, Bucket: bucket}, Buckets: buckets}
	rows, err := first.rows(promptLen, 1)
	if err != nil {
		return StreamPlan{}, err
	}
	p := StreamPlan{FirstRows: rows, First: min(tokens, rows-promptLen+1)}
	p.Buckets = []int{rows}
	if p.First < tokens && rows != 1 {
		p.Buckets = append(p.Buckets, 1)
	}
	if len(buckets) > 0 {
		for _, b := range p.Buckets {
			if !slices.Contains(buckets, b) {
				return StreamPlan{}, fmt.Errorf("pipeline: a stream needs the buckets %v, the deployment has %v", p.Buckets, buckets)
			}
		}
		p.Buckets = slices.Clone(buckets)
	}
	return p, nil
}

// RunStream proves a greedy generation token by token, as turns of one
// conversation ([RunTurn]): opts.Tokens tokens after opts.Prompt, over
// opts.History (the conversation so far, empty for a new one). The
// first turn proves the prompt and the tokens that fill its bucket
// ([PlanStream]); each next turn proves one token. done, when set, is
// called after each turn (to write its artifacts, so that a stream cut
// short continues from its last turn); an error from it stops the
// stream. The reports of the turns proven are returned, with the error
// that stopped the stream if one did.
func RunStream(ctx context.Context, opts TurnOptions, done func(*TurnReport) error) ([]*TurnReport, error) {
	if err := opts.checkRun(); err != nil {
		return nil, err
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	plan, err := PlanStream(opts.Model, len(opts.Prompt), opts.Tokens, opts.Bucket, opts.Buckets)
	if err != nil {
		return nil, err
	}
	if len(opts.History)+plan.FirstRows+opts.Tokens-plan.First > opts.Capacity {
		return nil, fmt.Errorf("pipeline: a history of %d rows, a first turn in a bucket of %d and %d one-row turns exceed the cache's %d rows",
			len(opts.History), plan.FirstRows, opts.Tokens-plan.First, opts.Capacity)
	}
	t := opts
	t.Bucket, t.Buckets = 0, plan.Buckets
	t.Tokens = plan.First
	// The turns after the first are all in the bucket of one row: their
	// keys' stages run once.
	t.keys = map[int]*AggregatedKeys{}
	var reports []*TurnReport
	for left := opts.Tokens; left > 0; {
		rep, err := RunTurn(ctx, t)
		if err != nil {
			return reports, fmt.Errorf("pipeline: the stream's turn %d: %w", len(reports)+1, err)
		}
		reports = append(reports, rep)
		if done != nil {
			if err := done(rep); err != nil {
				return reports, err
			}
		}
		if left -= len(rep.Output); left == 0 {
			break
		}
		last := rep.Output[len(rep.Output)-1]
		if n := len(t.History) + len(t.Prompt) + len(rep.Output) - 1; len(rep.History) != n {
			return reports, fmt.Errorf("pipeline: the stream's turn %d cached %d rows, want %d (all but its last output token)", len(reports), len(rep.History), n)
		}
		t.History, t.StateIn, t.Earlier = rep.History, rep.Turn.StateOut, rep.Turns
		t.Prompt, t.Tokens = []int{last}, 1
	}
	return reports, nil
}
