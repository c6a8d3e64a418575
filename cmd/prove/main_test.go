package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
)

// writeLlamaDir writes a small Llama-family model with a sentencepiece-
// style tokenizer.json (ids: <unk> 0, <s> 1, </s> 2, ▁ 3, h 4, i 5, ▁h 6,
// ▁hi 7) and the given tokenizer_config.json (none if nil).
func writeLlamaDir(t *testing.T, config []byte) string {
	t.Helper()
	c := &model.Config{Family: model.Llama, Vocab: 16, Hidden: 8, Layers: 1, Heads: 2, KVHeads: 1,
		Intermediate: 16, MaxPositions: 8, NormEps: 1e-6, RopeTheta: 10000}
	w, err := model.RandomWeights(c, 3, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	tok := map[string]any{
		"added_tokens": []any{
			map[string]any{"id": 0, "content": "<unk>", "special": true},
			map[string]any{"id": 1, "content": "<s>", "special": true},
			map[string]any{"id": 2, "content": "</s>", "special": true},
		},
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		}},
		"decoder": map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "},
			map[string]any{"type": "Fuse"},
			map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0},
		}},
		"model": map[string]any{"type": "BPE", "unk_token": "<unk>",
			"vocab":  map[string]int{"<unk>": 0, "<s>": 1, "</s>": 2, "▁": 3, "h": 4, "i": 5, "▁h": 6, "▁hi": 7},
			"merges": []string{"▁ h", "▁h i"}},
	}
	data, err := json.Marshal(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if config != nil {
		if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), config, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// source parses a --model argument.
func source(t *testing.T, arg string) model.Source {
	t.Helper()
	src, err := model.ParseSource(arg, model.Tiny)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// load loads the model of a --model argument.
func load(arg string, bos tokenizer.BOSMode) (*model.Model, error) {
	src, err := model.ParseSource(arg, model.Tiny)
	if err != nil {
		return nil, err
	}
	return src.LoadText(bos)
}

func TestEncodePromptBOS(t *testing.T) {
	llama := writeLlamaDir(t, []byte(`{"add_bos_token": true, "add_eos_token": false, "bos_token": "<s>"}`))
	for _, c := range []struct {
		mode tokenizer.BOSMode
		want []int
	}{{tokenizer.BOSAuto, []int{1, 7}}, {tokenizer.BOSOn, []int{1, 7}}, {tokenizer.BOSOff, []int{7}}} {
		got, err := encodePrompt(source(t, llama), "hi", c.mode, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("--bos %s: prompt %v, want %v", c.mode, got, c.want)
		}
	}
	// The loaded model carries the same rule, and the rule is part of
	// the model id.
	auto, err := load(llama, tokenizer.BOSAuto)
	if err != nil {
		t.Fatal(err)
	}
	off, err := load(llama, tokenizer.BOSOff)
	if err != nil {
		t.Fatal(err)
	}
	if auto.Tokenizer.BOS != 1 || off.Tokenizer.BOS != tokenizer.NoBOS {
		t.Fatalf("loaded BOS %d and %d, want 1 and none", auto.Tokenizer.BOS, off.Tokenizer.BOS)
	}
	if auto.ID().Cmp(off.ID()) == 0 {
		t.Error("the BOS rule does not change the model id")
	}
	// Without add_bos_token and without a template, no BOS (GPT-2's
	// convention); --bos on still finds bos_token.
	plain := writeLlamaDir(t, []byte(`{"bos_token": "<s>"}`))
	if got, err := encodePrompt(source(t, plain), "hi", tokenizer.BOSAuto, 1); err != nil || !reflect.DeepEqual(got, []int{7}) {
		t.Errorf("no add_bos_token: %v, %v", got, err)
	}
	if got, err := encodePrompt(source(t, plain), "hi", tokenizer.BOSOn, 1); err != nil || !reflect.DeepEqual(got, []int{1, 7}) {
		t.Errorf("no add_bos_token, --bos on: %v, %v", got, err)
	}
	if _, err := encodePrompt(source(t, ""), "hi", tokenizer.BOSOn, 1); err == nil {
		t.Error("--bos on accepted for the byte tokenizer")
	}
}

// TestEarlyChecks checks that bad flags and lengths are refused before
// the weights are read: the model directory has none.
func TestEarlyChecks(t *testing.T) {
	dir := writeLlamaDir(t, nil)
	if err := os.Remove(filepath.Join(dir, model.WeightsFile)); err != nil {
		t.Fatal(err)
	}
	// The context is 8: a prompt of 1 token and 8 generated need 8 rows,
	// 9 need 9.
	if _, err := encodePrompt(source(t, dir), "hi", tokenizer.BOSAuto, 8); err != nil {
		t.Fatalf("a pass of 8 rows refused: %v", err)
	}
	if _, err := encodePrompt(source(t, dir), "hi", tokenizer.BOSAuto, 9); err == nil || !strings.Contains(err.Error(), "context") {
		t.Fatalf("a pass of 9 rows: %v", err)
	}
	if _, err := encodePrompt(source(t, ""), strings.Repeat("x", 40), tokenizer.BOSAuto, 1); err == nil {
		t.Fatal("a prompt longer than the built-in model's context accepted")
	}
	saved := *deployFlags.Name
	defer func() { *deployFlags.Name = saved }()
	*deployFlags.Name = "aggregate"
	if _, err := checkFlags(); err == nil || !strings.Contains(err.Error(), "--design") {
		t.Fatalf("--design aggregate: %v", err)
	}
	*deployFlags.Name = "direct"
	if _, err := checkFlags(); err != nil {
		t.Fatal(err)
	}
	savedSRS, savedChunk := *deployFlags.SRS, *deployFlags.VocabChunk
	defer func() { *deployFlags.SRS, *deployFlags.VocabChunk = savedSRS, savedChunk }()
	for _, c := range []struct {
		design, srs string
		chunk       int
		err         string
	}{
		{"aggregated", "", 0, ""},
		{"aggregated", "ceremony.srs", 100, ""},
		{"opened", "", 0, "--design"},
		{"aggregated", "", -1, "--vocab-chunk"},
		{"direct", "ceremony.srs", 0, "--design aggregated"},
		{"direct", "", 100, "--design aggregated"},
	} {
		*deployFlags.Name, *deployFlags.SRS, *deployFlags.VocabChunk = c.design, c.srs, c.chunk
		_, err := checkFlags()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("--design %s --srs %q --vocab-chunk %d: %v, want an error naming %q", c.design, c.srs, c.chunk, err, c.err)
		}
	}
	*deployFlags.Name, *deployFlags.SRS, *deployFlags.VocabChunk = "aggregated", "", 0
	savedJobs := *jobsFlag
	defer func() { *jobsFlag = savedJobs }()
	for jobs, ok := range map[int]bool{-1: false, 0: true, 2: true} {
		*jobsFlag = jobs
		if _, err := checkFlags(); ok != (err == nil) || !ok && !strings.Contains(err.Error(), "--native-jobs") {
			t.Errorf("--native-jobs %d: %v", jobs, err)
		}
	}
	*jobsFlag = 0 // the map above leaves any of its values
	savedBucket := *bucketFlag
	defer func() { *bucketFlag = savedBucket }()
	for _, c := range []struct {
		design string
		bucket int
		err    string
	}{{"direct", 16, ""}, {"direct", -1, "--bucket"}, {"aggregated", 16, ""}, {"aggregated", 0, ""}} {
		*deployFlags.Name, *bucketFlag = c.design, c.bucket
		_, err := checkFlags()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("--design %s --bucket %d: %v, want an error naming %q", c.design, c.bucket, err, c.err)
		}
	}
}

func TestDescribeHeads(t *testing.T) {
	for _, c := range []struct {
		c    *model.Config
		want string
	}{
		{model.DefaultConfig(), "4 heads"},
		{&model.Config{Family: model.Llama, Vocab: 64, Hidden: 896, Layers: 1, Heads: 14, KVHeads: 2, Intermediate: 32, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000},
			"14 heads (2 key/value) of 64, padded to 16 heads (2 key/value) of 64"},
	} {
		if got := describeHeads(c.c); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestTurnFlags: a conversation's turn is refused outside the aggregated
// design, with a negative capacity, with both --capacity and --continue,
// not with --chain, --submit, --wrap or --plan; --stream
// needs --capacity or --continue; a turn from a directory without its
// conversation file fails before anything is proven.
func TestTurnFlags(t *testing.T) {
	savedDesign, savedCapacity, savedContinue := *deployFlags.Name, *capacityFlag, *continueFlag
	defer func() { *deployFlags.Name, *capacityFlag, *continueFlag = savedDesign, savedCapacity, savedContinue }()
	for _, c := range []struct {
		design   string
		capacity int
		cont     string
		err      string
	}{
		{"aggregated", 16, "", ""},
		{"aggregated", 0, "dir", ""},
		{"direct", 16, "", "--design aggregated"},
		{"aggregated", -1, "", "--capacity"},
		{"aggregated", 16, "dir", "--continue"},
	} {
		*deployFlags.Name, *capacityFlag, *continueFlag = c.design, c.capacity, c.cont
		_, err := checkFlags()
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("--design %s --capacity %d --continue %q: %v, want an error naming %q", c.design, c.capacity, c.cont, err, c.err)
		}
	}
	*deployFlags.Name, *capacityFlag, *continueFlag = "aggregated", 16, ""
	for _, name := range []string{"chain", "submit", "wrap", "plan"} {
		if err := checkTurnFlags(pipeline.Aggregated, map[string]bool{name: true}); err != nil {
			t.Errorf("a turn with --%s: %v", name, err)
		}
	}
	// --stream goes with a conversation's turn.
	*deployFlags.Name, *capacityFlag, *continueFlag, *streamFlag = "aggregated", 0, "", true
	_, err := checkFlags()
	*streamFlag = false
	if err == nil || !strings.Contains(err.Error(), "--stream") {
		t.Errorf("--stream without --capacity or --continue: %v", err)
	}
	*capacityFlag, *continueFlag = 0, t.TempDir()
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	err = runTurn(context.Background(), pipeline.AggregatedOptions{Options: pipeline.Options{Model: m, Prompt: []int{1}, Tokens: 1}}, m.Tokenizer)
	if err == nil || !strings.Contains(err.Error(), "conversation.json") {
		t.Fatalf("a conversation without its file: %v", err)
	}
}
