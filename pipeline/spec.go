package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// jobSpec is what a worker rebuilds a run's pass from: the model (a
// built-in one's name, or the id of one whose files are inputs), the pass (a single request's prompt and output, or a
// batch's requests) in its bucket, the cut into segments, the inner
// model id the statement states, and a batch's request slots.
type jobSpec struct {
	// Model is the built-in model's name, or "" for a model from a
	// directory, whose files are job inputs ([modelFiles]) and whose id
	// (model.Model.ID, its tokenizer's digest included) is Weights; BOS
	// is its tokenizer's beginning-of-sequence mode, "on" or "off" ("" for
	// a model without a tokenizer).
	Model    string              `json:"model"`
	Weights  string              `json:"weights,omitempty"`
	BOS      string              `json:"bos,omitempty"`
	Prompt   []int               `json:"prompt,omitempty"`
	Output   []int               `json:"output,omitempty"`
	Batch    []statement.Request `json:"batch,omitempty"`
	Rows     int                 `json:"rows"`
	Segments []inference.Segment `json:"segments"`
	ModelID  string              `json:"modelId"`
	Slots    int                 `json:"slots,omitempty"`
	// Shapes is what the aggregator knows of each segment circuit, from
	// which an aggregation job compiles it.
	Shapes []recursion.SegmentShape `json:"shapes"`
	// Wrap is what a wrap job needs besides (nil when the run is not
	// wrapped).
	Wrap *wrapSpec `json:"wrap,omitempty"`
	// Turn is a conversation's turn's part (nil for other passes).
	Turn *turnSpec `json:"turn,omitempty"`
}

// turnSpec is a turn's part of a spec: the conversation's cached tokens
// before the turn (the turn starts at their count), the cache's
// capacity, and the digests of the states in and out
// (committed.State.Digest), the turn's leaf's first and last words. The
// state in's commitments are the aggregation's input "state".
type turnSpec struct {
	History  []int  `json:"history"`
	Capacity int    `json:"capacity"`
	StateIn  string `json:"stateIn"`
	StateOut string `json:"stateOut"`
}

// check bounds a turn's part for a pass of rows rows.
func (t *turnSpec) check(rows int) error {
	if t.Capacity < 1 || t.Capacity > maxSpecRows || len(t.History) > t.Capacity || rows > t.Capacity-len(t.History) {
		return fmt.Errorf("a turn of %d rows after %d cached in a cache of %d", rows, len(t.History), t.Capacity)
	}
	for _, v := range []string{t.StateIn, t.StateOut} {
		x, err := parseHex(v)
		if err != nil {
			return fmt.Errorf("a turn's state: %w", err)
		}
		if x.BitLen() > statement.ModelIDBits {
			return fmt.Errorf("a turn's state %s beyond %d bits", v, statement.ModelIDBits)
		}
	}
	return nil
}

// wrapSpec is the wrapper's part of a spec: the aggregator's number of
// Pedersen commitments (which selects the wrapper circuit), and the
// model's deployment (its digest and bucket leaves, in hexadecimal, ""
// for an empty slot) with the slot of the run's bucket.
type wrapSpec struct {
	Commitments int      `json:"commitments"`
	ModelDigest string   `json:"modelDigest"`
	Leaves      []string `json:"leaves"`
	Slot        int      `json:"slot"`
}

// wrapSpecOf returns the wrap part of a run's spec.
func wrapSpecOf(keys *AggregatedKeys) *wrapSpec {
	w := &wrapSpec{Commitments: keys.Catalog.aggregatorCommitments, ModelDigest: keys.Deployment.ModelDigest.Text(16), Slot: keys.Slot}
	for _, l := range keys.Deployment.Leaves {
		if l == nil {
			w.Leaves = append(w.Leaves, "")
		} else {
			w.Leaves = append(w.Leaves, l.Text(16))
		}
	}
	return w
}

// deployment decodes the wrap part's deployment.
func (w *wrapSpec) deployment() (*recursion.Deployment, error) {
	if len(w.Leaves) != recursion.BucketSlots || w.Slot < 0 || w.Slot >= recursion.BucketSlots || w.Commitments < 0 || w.Commitments > 64 {
		return nil, fmt.Errorf("a wrap of %d leaves, slot %d, %d commitments", len(w.Leaves), w.Slot, w.Commitments)
	}
	hexInt := func(v string) (*big.Int, error) {
		x, ok := new(big.Int).SetString(v, 16)
		if !ok || x.Sign() < 0 || x.BitLen() > 256 {
			return nil, fmt.Errorf("%q is not a field element in hexadecimal", v)
		}
		return x, nil
	}
	d := &recursion.Deployment{}
	var err error
	if d.ModelDigest, err = hexInt(w.ModelDigest); err != nil {
		return nil, err
	}
	for i, l := range w.Leaves {
		if l == "" {
			continue
		}
		if d.Leaves[i], err = hexInt(l); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// builtinName returns the name of the built-in model m is, or "".
func builtinName(m *model.Model) string {
	id := m.ID()
	for _, name := range model.BuiltinNames() {
		c, err := model.BuiltinConfig(name)
		if err != nil || *c != m.Config {
			continue
		}
		b, err := model.Builtin(name)
		if err == nil && b.ID().Cmp(id) == 0 {
			return name
		}
	}
	return ""
}

// specOf returns the spec of a run's pass and keys. A model that is not
// built in is sent by its files, from opts.ModelDir.
func specOf(opts *Options, keys *AggregatedKeys, pass committed.Pass, conv *turnProving) (*jobSpec, error) {
	m := opts.Model
	name := opts.ModelName
	if c, err := model.BuiltinConfig(name); name == "" || err != nil || *c != m.Config {
		name = ""
		if opts.ModelDir == "" {
			name = builtinName(m)
		}
	}
	s := &jobSpec{Model: name, Prompt: pass.Prompt, Output: pass.Output, Batch: pass.Batch, Rows: pass.Rows,
		Segments: keys.Segments, ModelID: keys.ModelID.Text(16), Slots: keys.Catalog.Slots, Shapes: keys.Shapes}
	if conv != nil {
		s.Turn = &turnSpec{History: conv.history, Capacity: conv.turn.Capacity, StateIn: fmt.Sprintf("%#x", conv.in.Digest()), StateOut: fmt.Sprintf("%#x", conv.out.Digest())}
	}
	if s.Model == "" {
		if opts.ModelDir == "" {
			return nil, errors.New("pipeline: a distributed run of a model that is not built in needs the directory it was loaded from (Options.ModelDir), whose files the workers load")
		}
		s.Weights = m.ID().Text(16)
		if m.Tokenizer != nil {
			s.BOS = tokenizer.BOSOn.String()
			if m.Tokenizer.BOS == tokenizer.NoBOS {
				s.BOS = tokenizer.BOSOff.String()
			}
		}
	}
	return s, nil
}

// modelFiles are the files of a model directory a worker loads it from,
// by their roles among a job's inputs; the first two are required, the
// tokenizer's are sent when the model has a tokenizer and the directory
// the file.
var modelFiles = []struct {
	role, file string
	max        int64
}{
	{"model-config", model.ConfigFile, 1 << 20},
	{"model-weights", model.WeightsFile, 1 << 40},
	{"model-tokenizer", "tokenizer.json", 1 << 30},
	{"model-tokenizer-config", "tokenizer_config.json", 1 << 24},
	{"model-vocab", "vocab.json", 1 << 30},
	{"model-merges", "merges.txt", 1 << 30},
}

// The bounds of a job's inputs and outputs, checked before anything is
// allocated (what the object store records of a blob is not trusted).
const (
	maxManifest = 1 << 20
	maxGroth16  = 1 << 20  // a Groth16 proof
	maxVK       = 64 << 20 // a Groth16 verifying key
	maxNative   = 1 << 30  // a native committed proof
	maxState    = 8 << 20  // a turn's state (committed.State's encoding)
)

// maxSRS bounds the SRS of a spec: 2^n powers for the largest opening
// of its shapes, at most 512 bytes each in the cache's encoding.
func (s *jobSpec) maxSRS() int64 {
	vars := 1
	for _, sh := range s.Shapes {
		vars = max(vars, sh.NbVars)
	}
	return int64(512)<<vars + 1<<20
}

// maxProvingKey bounds a proving key of a manifest: 2 KiB a
// constraint (BW6-761's points are the largest) and 64 MiB.
func maxProvingKey(mf *setup.Manifest) int64 {
	return int64(mf.Constraints)<<11 + 64<<20
}

// parseSpec decodes and checks a job's spec; it never panics (fuzzed).
// Every failure is the input's (deterministic).
func parseSpec(data []byte) (*jobSpec, error) {
	fail := func(err error) (*jobSpec, error) {
		return nil, distributed.Deterministic(fmt.Errorf("pipeline: job spec: %w", err))
	}
	if len(data) > maxSpec {
		return fail(fmt.Errorf("%d bytes", len(data)))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s jobSpec
	if err := dec.Decode(&s); err != nil {
		return fail(err)
	}
	if dec.More() {
		return fail(errors.New("data after the spec"))
	}
	if (s.Model == "") == (s.Weights == "") {
		return fail(fmt.Errorf("model %q and weights %q: want one of the two", s.Model, s.Weights))
	}
	if s.Model == "" {
		if w, ok := new(big.Int).SetString(s.Weights, 16); !ok || w.Sign() < 0 || w.BitLen() > 256 {
			return fail(fmt.Errorf("weights id %q", s.Weights))
		}
	}
	if s.BOS != "" && (s.Model != "" || (s.BOS != tokenizer.BOSOn.String() && s.BOS != tokenizer.BOSOff.String())) {
		return fail(fmt.Errorf("BOS mode %q", s.BOS))
	}
	id, ok := new(big.Int).SetString(s.ModelID, 16)
	if !ok || id.Sign() < 0 || id.BitLen() > statement.ModelIDBits {
		return fail(fmt.Errorf("model id %q", s.ModelID))
	}
	if len(s.Segments) == 0 || len(s.Segments) > recursion.MaxArity || s.Slots < 0 || s.Slots > statement.MaxLeaves || len(s.Shapes) != len(s.Segments) {
		return fail(fmt.Errorf("%d segments, %d shapes, %d slots", len(s.Segments), len(s.Shapes), s.Slots))
	}
	if s.Rows < 1 || s.Rows > maxSpecRows || len(s.Prompt) > maxSpecRows || len(s.Output) > maxSpecRows || len(s.Batch) > statement.MaxLeaves {
		return fail(fmt.Errorf("%d rows, %d prompt and %d output tokens, %d requests", s.Rows, len(s.Prompt), len(s.Output), len(s.Batch)))
	}
	for _, b := range s.Batch {
		if len(b.Prompt) > maxSpecRows || len(b.Output) > maxSpecRows || b.Rows < 0 || b.Rows > maxSpecRows || b.Batch != nil {
			return fail(fmt.Errorf("a batch's request of %d prompt and %d output tokens, %d rows", len(b.Prompt), len(b.Output), b.Rows))
		}
	}
	// Every shape bounded before anything is allocated from it.
	for k, seg := range s.Segments {
		if seg.From < 0 || seg.To < seg.From || seg.To > maxSpecBlocks || seg.VocabFrom < 0 || seg.VocabTo < seg.VocabFrom || seg.VocabTo > maxSpecVocab {
			return fail(fmt.Errorf("segment %d is %v", k, seg))
		}
		if err := s.Shapes[k].Check(); err != nil {
			return fail(err)
		}
	}
	if s.Wrap != nil {
		if _, err := s.Wrap.deployment(); err != nil {
			return fail(err)
		}
	}
	if s.Turn != nil {
		if s.Batch != nil || s.Slots != 0 {
			return fail(errors.New("a turn of a batch"))
		}
		if err := s.Turn.check(s.Rows); err != nil {
			return fail(err)
		}
	}
	return &s, nil
}

// maxSpec bounds a spec's encoding (a batch's requests are in it),
// maxSpecRows a pass's rows and tokens, maxSpecBlocks and maxSpecVocab
// a segment's blocks and vocabulary range.
const (
	maxSpec       = 64 << 20
	maxSpecRows   = 1 << 20
	maxSpecBlocks = 1 << 12
	maxSpecVocab  = 1 << 24
)

// workerModels holds the last model a worker's jobs rebuilt: a worker's
// jobs of one run share one model, built or loaded once.
type workerModels struct {
	mu  sync.Mutex
	dir string // the key cache, models fetched under dir/models
	key string
	m   *model.Model
}

// get returns the model of a spec: the built-in one of its name, or the
// one loaded from its files (fetched into the worker's cache the first
// time), whose id must be the spec's.
func (c *workerModels) get(s *jobSpec, job *distributed.Job, in *distributed.Inputs) (*model.Model, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := "builtin " + s.Model
	if s.Model == "" {
		key = "weights " + s.Weights
	}
	if key == c.key {
		return c.m, nil
	}
	var m *model.Model
	if s.Model != "" {
		var err error
		if m, err = model.Builtin(s.Model); err != nil {
			return nil, distributed.Deterministic(err)
		}
	} else {
		var err error
		if m, err = c.load(s, job, in); err != nil {
			return nil, err
		}
	}
	c.key, c.m = key, m
	return m, nil
}

// load returns the model of a spec's files: from the worker's model
// cache when a directory there gives the spec's id, else fetched into a
// new directory, loaded and checked, and only then put in the cache
// (replacing a directory that gives another id). Files of a model that
// does not load, or loads to another id, are never left in the cache.
func (c *workerModels) load(s *jobSpec, job *distributed.Job, in *distributed.Inputs) (*model.Model, error) {
	bos := tokenizer.BOSOff
	if s.BOS == tokenizer.BOSOn.String() {
		bos = tokenizer.BOSOn
	}
	models := filepath.Join(c.dir, "models")
	dir := filepath.Join(models, s.Weights)
	if m, err := model.LoadBOS(dir, bos); err == nil && m.ID().Text(16) == s.Weights {
		return m, nil
	}
	if err := os.MkdirAll(models, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(models, s.Weights+".part-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for i, f := range modelFiles {
		if _, ok := job.Inputs[f.role]; !ok && i >= 2 {
			continue // a tokenizer file the model's directory has not
		}
		if err := in.Fetch(f.role, filepath.Join(tmp, f.file), f.max); err != nil {
			return nil, err
		}
	}
	m, err := model.LoadBOS(tmp, bos)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	if got := m.ID().Text(16); got != s.Weights {
		return nil, distributed.Deterministic(fmt.Errorf("pipeline: the model's files give id %s, the job's spec %s", got, s.Weights))
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, err
	}
	return m, nil
}

// jobPass is what a worker rebuilds from a job's spec: the spec, the
// model, the pass, its statement and the list it proves, and for a
// turn the turn.
type jobPass struct {
	spec *jobSpec
	m    *model.Model
	pass committed.Pass
	st   statement.Statement
	list statement.List
	turn *committed.Turn
}

// decodeSpec decodes a job's spec and rebuilds its model, pass and
// statement; a failure of the spec's is deterministic.
func decodeSpec(models *workerModels, job *distributed.Job, in *distributed.Inputs) (*jobPass, error) {
	data, err := in.Get("spec", maxSpec)
	if err != nil {
		return nil, err
	}
	s, err := parseSpec(data)
	if err != nil {
		return nil, err
	}
	m, err := models.get(s, job, in)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*jobPass, error) {
		return nil, distributed.Deterministic(fmt.Errorf("pipeline: job spec: %w", err))
	}
	p := &jobPass{spec: s, m: m, pass: committed.Pass{Prompt: s.Prompt, Output: s.Output, Rows: s.Rows, Batch: s.Batch}}
	if err := p.pass.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return fail(err)
	}
	id, _ := new(big.Int).SetString(s.ModelID, 16)
	if p.st, p.list, err = passStatement(id, p.pass); err != nil {
		return fail(err)
	}
	if t := s.Turn; t != nil {
		if t.Capacity > m.Config.MaxPositions {
			return fail(fmt.Errorf("a cache of %d rows, the model's context %d", t.Capacity, m.Config.MaxPositions))
		}
		for _, tok := range t.History {
			if tok < 0 || tok >= m.Config.Vocab {
				return fail(fmt.Errorf("a cached token %d, the model's vocabulary %d", tok, m.Config.Vocab))
			}
		}
		in, _ := parseHex(t.StateIn)
		out, _ := parseHex(t.StateOut)
		p.turn = &committed.Turn{Start: len(t.History), Capacity: t.Capacity}
		p.list = statement.List{ModelID: p.st.ModelID, Leaves: []statement.Leaf{statement.TurnLeaf(in, p.st.InputDigest, p.st.OutputDigest, out)}}
	}
	return p, nil
}

// trace runs the model's pass over the pass's tokens: stacked for a
// batch's, after the cached tokens for a turn's.
func (p *jobPass) trace() (*model.Trace, error) {
	m, pass := p.m, p.pass
	if begins := pass.Begins(); begins != nil {
		return m.ForwardStacked(pass.Tokens(), begins)
	}
	if p.turn == nil {
		return m.Forward(m.NewCache(), pass.Tokens())
	}
	cache := m.NewCache()
	if len(p.spec.Turn.History) > 0 {
		if _, err := m.Forward(cache, p.spec.Turn.History); err != nil {
			return nil, err
		}
	}
	tr, _, err := committed.TurnTrace(m, cache, pass, p.turn.Capacity)
	return tr, err
}

// shapes returns the native shapes of the pass's segments.
func (p *jobPass) shapes() ([]*committed.Shape, error) {
	return committedShapes(p.m, p.spec.Segments, p.pass, p.turn)
}

// circuitShapes returns the shapes the run's catalog compiled the
// segment circuits from: of the bucket's placeholder pass, a turn's
// from row 0.
func (p *jobPass) circuitShapes() ([]*committed.Shape, error) {
	var turn *committed.Turn
	if p.turn != nil {
		turn = &committed.Turn{Capacity: p.turn.Capacity}
	}
	return committedShapes(p.m, p.spec.Segments, placeholderPass(p.spec.Rows, p.spec.Batch != nil), turn)
}

// proveOptions are the native prover's options of the pass.
func (p *jobPass) proveOptions() []committed.Option {
	if p.turn == nil {
		return nil
	}
	return []committed.Option{committed.WithTurn(*p.turn)}
}

// srsCache holds the last SRS a worker's jobs read, by its blob name:
// a worker's jobs of one deployment share one SRS, decoded once.
type srsCache struct {
	mu   sync.Mutex
	blob string
	srs  *pcs.SRS
}

// get returns a job's "srs" input (pcs.SRS.WriteCache's encoding),
// decoded.
func (c *srsCache) get(s *jobSpec, job *distributed.Job, in *distributed.Inputs, logger *log.Logger) (*pcs.SRS, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if blob := job.Inputs["srs"]; blob != "" && blob == c.blob {
		return c.srs, nil
	}
	data, err := in.Get("srs", s.maxSRS())
	if err != nil {
		return nil, err
	}
	srs, err := readSRS(data, logger)
	if err != nil {
		return nil, err
	}
	c.blob, c.srs = job.Inputs["srs"], srs
	return srs, nil
}

// jobIndex returns the segment index of a job id "<kind>-<k>".
func jobIndex(id string, segments int) (int, error) {
	_, n, ok := strings.Cut(id, "-")
	k, err := strconv.Atoi(n)
	if !ok || err != nil || k < 0 || k >= segments {
		return 0, distributed.Deterministic(fmt.Errorf("pipeline: job %q is not one of %d segments", id, segments))
	}
	return k, nil
}

// readSRS decodes an SRS in the cache's encoding (pcs.SRS.WriteCache)
// through a temporary file.
func readSRS(data []byte, logger *log.Logger) (*pcs.SRS, error) {
	f, err := os.CreateTemp("", "srs-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	s, err := pcs.ReadCache(f.Name(), nil, logger)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return s, nil
}

// encodeSRS encodes an SRS in the cache's encoding.
func encodeSRS(s *pcs.SRS, development bool) ([]byte, error) {
	dir, err := os.MkdirTemp("", "srs-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "srs")
	if err := s.WriteCache(path, development); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
