package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
)

// TestListFlags: a mixed list is proven in the aggregated design of a
// deployment with --mix and --capacity, without --batch, --continue,
// --stream, --prompt or --tokens.
func TestListFlags(t *testing.T) {
	for _, c := range []struct {
		design pipeline.Design
		set    []string
		err    string
	}{
		{pipeline.Aggregated, []string{"list", "mix", "capacity"}, ""},
		{pipeline.Aggregated, []string{"list", "mix", "capacity", "wrap", "workers", "plan", "bucket"}, ""},
		{pipeline.Direct, []string{"list", "mix", "capacity"}, "--design aggregated"},
		{pipeline.Aggregated, []string{"list", "capacity"}, "--mix"},
		{pipeline.Aggregated, []string{"list", "mix"}, "--capacity"},
		{pipeline.Aggregated, []string{"list", "mix", "capacity", "batch"}, "--batch"},
		{pipeline.Aggregated, []string{"list", "mix", "capacity", "continue"}, "--continue"},
		{pipeline.Aggregated, []string{"list", "mix", "capacity", "prompt"}, "--prompt"},
		{pipeline.Aggregated, []string{"mix", "capacity"}, ""},
	} {
		set := map[string]bool{}
		for _, name := range c.set {
			set[name] = true
		}
		err := checkListFlags(c.design, set)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s %v: %v, want an error naming %q", c.design, c.set, err, c.err)
		}
	}
}

// TestListLeaves reads a mixed list's file of the built-in model: the
// first request lines and turn lines its mix holds, a new conversation's
// and a saved one's turn (its history and state read), and every other
// line left out with its file and line; too few leaves, and a
// conversation of another capacity, refuse the list.
func TestListLeaves(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved")
	if err := os.Mkdir(saved, 0o755); err != nil {
		t.Fatal(err)
	}
	conv, err := json.Marshal(pipeline.Conversation{ModelID: "0x12", Capacity: 8, History: []int{72, 105}, State: "0xabc",
		Turns: []pipeline.ConversationTurn{{ModelID: "0x12", StateIn: "0x0", InputDigest: "0x5", OutputDigest: "0x6", StateOut: "0xabc"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(saved, "conversation.json"), conv, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "list.jsonl")
	lines := []string{
		`{"prompt": "Hi", "tokens": 2}`,
		`{"prompt": "Hi", "tokens": "two"}`,
		`{"conversation": "` + saved + `", "prompt": "!", "tokens": 1}`,
		`{"promptTokens": [72, 105], "tokens": 1}`,
		`{"promptTokens": [72], "tokens": 1}`,
		`{"conversation": "` + filepath.Join(dir, "new") + `", "prompt": "Yo", "tokens": 1}`,
		`{"conversation": "` + filepath.Join(dir, "third") + `", "prompt": "Yo", "tokens": 1}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs, turns, dirs, err := listLeaves(path, &pipeline.Mix{Requests: 2, Turns: 2}, 8, source(t, ""), tokenizer.BOSAuto)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Tokens != 2 || len(reqs[1].Prompt) != 2 {
		t.Fatalf("requests %+v", reqs)
	}
	if len(turns) != 2 || len(turns[0].History) != 2 || turns[0].StateIn.Int64() != 0xabc || len(turns[0].Earlier) != 1 ||
		turns[1].History != nil || turns[1].StateIn != nil || dirs[0] != saved || dirs[1] != filepath.Join(dir, "new") {
		t.Fatalf("turns %+v in %v", turns, dirs)
	}
	if _, _, _, err := listLeaves(path, &pipeline.Mix{Requests: 4, Turns: 1}, 8, source(t, ""), tokenizer.BOSAuto); err == nil || !strings.Contains(err.Error(), "--mix") {
		t.Fatalf("too few requests: %v", err)
	}
	if _, _, _, err := listLeaves(path, &pipeline.Mix{Requests: 1, Turns: 3}, 16, source(t, ""), tokenizer.BOSAuto); err == nil {
		t.Fatal("a conversation of another capacity, hence too few turns, accepted")
	}
}
