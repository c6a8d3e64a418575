package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/recursion"
)

// goodSpec is a spec that parses: the micro model's request "Hi" and one
// token, one segment, wrapped.
func goodSpec() *jobSpec {
	w := &wrapSpec{Commitments: 1, ModelDigest: "2a", Leaves: make([]string, recursion.BucketSlots), Slot: 2}
	w.Leaves[2] = "1f"
	return &jobSpec{Model: model.Micro, Prompt: []int{'H', 'i'}, Output: []int{'!'}, Rows: 4,
		Segments: []inference.Segment{{From: 0, To: 1}}, ModelID: "abc", Wrap: w,
		Shapes: []recursion.SegmentShape{{NbCommitments: 4, NbTables: 2, NbVars: 10, Multiplicities: 1, NbMultiplicities: 1, Boundary: -1, Incoming: -1}}}
}

// TestParseSpec: a spec parses and its deployment decodes; each bad
// field is refused, deterministically.
func TestParseSpec(t *testing.T) {
	data, err := json.Marshal(goodSpec())
	if err != nil {
		t.Fatal(err)
	}
	s, err := parseSpec(data)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Wrap.deployment()
	if err != nil || d.ModelDigest.Cmp(big.NewInt(0x2a)) != 0 || d.Leaves[2].Cmp(big.NewInt(0x1f)) != 0 || d.Leaves[0] != nil {
		t.Fatalf("deployment %+v, %v", d, err)
	}
	for name, change := range map[string]func(s *jobSpec){
		"model and weights": func(s *jobSpec) { s.Weights = "12" },
		"neither":           func(s *jobSpec) { s.Model = "" },
		"bad weights":       func(s *jobSpec) { s.Model, s.Weights = "", "xyz" },
		"bad model id":      func(s *jobSpec) { s.ModelID = "-1" },
		"no segment":        func(s *jobSpec) { s.Segments, s.Shapes = nil, nil },
		"shapes":            func(s *jobSpec) { s.Shapes = nil },
		"slots":             func(s *jobSpec) { s.Slots = -1 },
		"rows":              func(s *jobSpec) { s.Rows = 0 },
		"leaves":            func(s *jobSpec) { s.Wrap.Leaves = s.Wrap.Leaves[1:] },
		"bos of a built-in": func(s *jobSpec) { s.BOS = "on" },
		"bos":               func(s *jobSpec) { s.Model, s.Weights, s.BOS = "", "12", "auto" },
		"leaf":              func(s *jobSpec) { s.Wrap.Leaves[0] = "g" },
		"slot":              func(s *jobSpec) { s.Wrap.Slot = recursion.BucketSlots },
		"digest":            func(s *jobSpec) { s.Wrap.ModelDigest = "" },
		"commitments":       func(s *jobSpec) { s.Wrap.Commitments = 65 },
		"2^45 commitments":  func(s *jobSpec) { s.Shapes[0].NbCommitments = 1 << 45 },
		"2^40 tables":       func(s *jobSpec) { s.Shapes[0].NbTables = 1 << 40 },
		"2^40 chosen":       func(s *jobSpec) { s.Shapes[0].NbChosen = 1 << 40 },
		"a turn's cache":    func(s *jobSpec) { s.Shapes[0].Turn = &recursion.SegmentTurn{From: 1 << 40, Blocks: 1, Cache: 2} },
		"2^40 blocks":       func(s *jobSpec) { s.Segments[0].To = 1 << 40 },
		"a vocabulary":      func(s *jobSpec) { s.Segments[0].VocabTo = 1 << 40 },
		"2^21 prompt":       func(s *jobSpec) { s.Prompt = make([]int, 1<<21) },
		"a turn's capacity": func(s *jobSpec) { s.Turn = goodTurn(); s.Turn.Capacity = 1 << 40 },
		"a turn's history":  func(s *jobSpec) { s.Turn = goodTurn(); s.Turn.History = make([]int, 17) },
		"a turn's rows":     func(s *jobSpec) { s.Turn = goodTurn(); s.Turn.History = make([]int, 14) },
		"a turn's state":    func(s *jobSpec) { s.Turn = goodTurn(); s.Turn.StateIn = "12" },
		"a 251-bit state":   func(s *jobSpec) { s.Turn = goodTurn(); s.Turn.StateOut = "0x4" + strings.Repeat("0", 62) },
		"a turn of a batch": func(s *jobSpec) { s.Turn, s.Slots = goodTurn(), 2 },
	} {
		s := goodSpec()
		change(s)
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseSpec(data); err == nil || !distributed.IsDeterministic(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	s.Turn = goodTurn()
	if data, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if _, err := parseSpec(data); err != nil {
		t.Fatalf("a turn: %v", err)
	}
	for _, bad := range []string{`{"model":"micro","extra":1}`, `{} {}`, `[`} {
		if _, err := parseSpec([]byte(bad)); err == nil || !distributed.IsDeterministic(err) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// FuzzParseSpec: parseSpec never panics, and a spec it accepts has a
// deployment that decodes.
// goodTurn is a turn's part of goodSpec's pass: 3 cached rows of 16.
func goodTurn() *turnSpec {
	return &turnSpec{History: []int{1, 2, 3}, Capacity: 16, StateIn: "0x1f", StateOut: "0x2e"}
}

func FuzzParseSpec(f *testing.F) {
	data, err := json.Marshal(goodSpec())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"model":"","weights":"ff"}`))
	s := goodSpec()
	s.Turn = goodTurn()
	if data, err = json.Marshal(s); err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseSpec(data)
		if err != nil {
			return
		}
		if s.Wrap != nil {
			if _, err := s.Wrap.deployment(); err != nil {
				t.Fatalf("accepted a spec whose deployment does not decode: %v", err)
			}
		}
	})
}

// localQueues starts an embedded server with a coordinator and a worker
// w of its own, and returns their connections; everything stops when
// the test ends.
func localQueues(t *testing.T, ctx context.Context) (coordinator, worker *distributed.Queue) {
	t.Helper()
	e, err := distributed.StartLocal(t.TempDir(), "coordinator", "w")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	for i, id := range []*distributed.Identity{e.Coordinator, e.Workers[0]} {
		q, err := distributed.Connect(ctx, e.URL(), distributed.Config{Identity: id})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(q.Close)
		if i == 0 {
			coordinator = q
		} else {
			worker = q
		}
	}
	return coordinator, worker
}

// TestWorkerModels: a worker loads a model that is not built in from
// the files a run put in the object store, into its cache, and checks
// its id; files of another model are refused, deterministically.
func TestWorkerModels(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, wq := localQueues(t, ctx)
	micro, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := micro.Save(src); err != nil {
		t.Fatal(err)
	}
	// A tokenizer of a few tokens, part of the model's id.
	tok := `{"model":{"type":"BPE","vocab":{"h":0,"i":1,"hi":2},"merges":["h i"]}}`
	if err := os.WriteFile(filepath.Join(src, "tokenizer.json"), []byte(tok), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.LoadBOS(src, tokenizer.BOSOff)
	if err != nil {
		t.Fatal(err)
	}
	if m.Tokenizer == nil {
		t.Fatal("no tokenizer")
	}
	files := map[string]string{}
	for _, f := range modelFiles[:3] {
		if files[f.role], err = q.PutFile(ctx, filepath.Join(src, f.file), ""); err != nil {
			t.Fatal(err)
		}
	}
	id := m.ID().Text(16)
	other := new(big.Int).Add(m.ID(), big.NewInt(1)).Text(16)
	weights := map[string]string{"same": id, "other": other}
	cache := t.TempDir()
	models := &workerModels{dir: cache}
	w := &distributed.Worker{Queue: wq, Name: "w", Poll: 20 * time.Millisecond, Handlers: map[string]distributed.Handler{
		"load": func(_ context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			spec := &jobSpec{Weights: weights[job.ID], BOS: "off"}
			got, err := models.get(spec, job, in)
			if err != nil {
				return nil, err
			}
			return []byte(got.ID().Text(16)), nil
		},
	}}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	want := func(out []byte) error {
		if string(out) != id {
			return errors.New("another model")
		}
		return nil
	}
	if _, err := q.Run(ctx, "load-1", []*distributed.Task{{ID: "same", Kind: "load", Inputs: files, Verify: want}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range modelFiles[:3] {
		if _, err := os.Stat(filepath.Join(cache, "models", id, f.file)); err != nil {
			t.Fatalf("%s is not in the worker's cache: %v", f.file, err)
		}
	}
	// The same files claimed as another model's: refused, and nothing
	// of them left in the cache under the other id.
	_, err = q.Run(ctx, "load-2", []*distributed.Task{{ID: "other", Kind: "load", Inputs: files, Verify: want}}, nil)
	if err == nil || !strings.Contains(err.Error(), "failed twice") || !strings.Contains(err.Error(), "the model's files give id") {
		t.Fatalf("files of another model: %v", err)
	}
	if entries, err := os.ReadDir(filepath.Join(cache, "models")); err != nil || len(entries) != 1 || entries[0].Name() != id {
		t.Fatalf("the model cache holds %v (%v), want the one model", entries, err)
	}
	// A poisoned cache (a tokenizer of another model in the model's
	// directory): the model is fetched again, and the run goes on.
	if err := os.WriteFile(filepath.Join(cache, "models", id, "tokenizer.json"), []byte(`{"model":{"type":"BPE","vocab":{"x":0},"merges":[]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	models.key, models.m = "", nil
	if _, err := q.Run(ctx, "load-3", []*distributed.Task{{ID: "same", Kind: "load", Inputs: files, Verify: want}}, nil); err != nil {
		t.Fatalf("after the cache was poisoned: %v", err)
	}
}
