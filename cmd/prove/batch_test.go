package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
)

// TestBatchFlags: a batch is proven in the aggregated design, not with a
// conversation's flags, a plan, --prompt or --tokens; --batch-slots goes
// with --batch (its bounds are flags.Deployment's).
func TestBatchFlags(t *testing.T) {
	saved := *slotsFlag
	defer func() { *slotsFlag = saved }()
	for _, c := range []struct {
		design pipeline.Design
		set    []string
		slots  int
		err    string
	}{
		{pipeline.Aggregated, []string{"batch"}, 0, ""},
		{pipeline.Aggregated, []string{"batch", "batch-slots", "wrap", "chain", "submit", "bucket", "buckets"}, 4, ""},
		{pipeline.Direct, []string{"batch"}, 0, "--design aggregated"},
		{pipeline.Aggregated, []string{"batch", "capacity"}, 0, "--capacity"},
		{pipeline.Aggregated, []string{"batch", "stream"}, 0, "--stream"},
		{pipeline.Aggregated, []string{"batch", "plan"}, 0, ""},
		{pipeline.Aggregated, []string{"batch", "prompt"}, 0, "--prompt"},
		{pipeline.Aggregated, []string{"batch", "tokens"}, 0, "--tokens"},
		{pipeline.Aggregated, []string{"batch-slots"}, 4, "--batch"},
	} {
		set := map[string]bool{}
		for _, name := range c.set {
			set[name] = true
		}
		*slotsFlag = c.slots
		err := checkBatchFlags(c.design, set)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %v --batch-slots %d: %v, want an error naming %q", c.design, c.set, c.slots, err, c.err)
		}
	}
}

// TestBatchRequests reads a batch file of the built-in model: text
// prompts are encoded, token prompts taken as they are, and a line that
// cannot be read or encoded becomes a request carrying its error, and
// every request's place names the file and line.
func TestBatchRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests.jsonl")
	lines := []string{
		`{"prompt": "Hi", "tokens": 2}`,
		`{"prompt": "Hi", "tokens": "two"}`,
		`{"promptTokens": [72, 105], "tokens": 1}`,
		`{"prompt": "` + strings.Repeat("x", 40) + `", "tokens": 1}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	requests, where, err := batchRequests(path, source(t, ""), tokenizer.BOSAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(requests) != 4 {
		t.Fatalf("%d requests", len(requests))
	}
	if requests[0].Err != nil || len(requests[0].Prompt) == 0 || requests[0].Tokens != 2 {
		t.Fatalf("request 1: %+v", requests[0])
	}
	if requests[2].Err != nil || len(requests[2].Prompt) != 2 {
		t.Fatalf("request 3: %+v", requests[2])
	}
	for _, i := range []int{1, 3} {
		if requests[i].Err == nil {
			t.Errorf("request %d accepted", i+1)
		}
	}
	for i := range requests {
		if want := path + ":" + string(rune('1'+i)); where[i] != want {
			t.Errorf("request %d is at %q, want %q", i+1, where[i], want)
		}
	}
	if _, _, err := batchRequests(filepath.Join(t.TempDir(), "none.jsonl"), source(t, ""), tokenizer.BOSAuto); err == nil {
		t.Fatal("a missing file accepted")
	}
}
