package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/distributed"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// The kinds of the jobs an aggregated run hands to workers
// ([AggregatedOptions.Queue], [WorkerHandlers]).
const (
	// JobNative is a segment's native committed proof: inputs "spec"
	// and "srs"; output the proof (committed.Proof.MarshalBinary).
	JobNative = "native"
	// JobSegment is a segment's Groth16 proof of its native proof:
	// inputs "spec", "native" (the native proof), "manifest", "vk" and
	// "pk" (the segment circuit's key files); output the Groth16 proof
	// (gnark's binary encoding).
	JobSegment = "segment"
	// JobAggregate is the aggregator's BW6-761 proof of the segments'
	// proofs: inputs "spec", "srs", for each segment k "native-k",
	// "segment-k" (its Groth16 proof) and "segvk-k" (its verifying key),
	// and the aggregator's "manifest", "vk" and "pk"; output the
	// aggregator's proof.
	JobAggregate = "aggregate"
	// JobWrap is the BN254 wrapper's proof of the aggregator's proof:
	// inputs "spec" (with its wrap part), "aggregate" (the aggregator's
	// proof), "aggvk" (the aggregator's verifying key) and the wrapper's
	// "manifest", "vk" and "pk"; output the wrapper's proof, the one a
	// Solidity verifier checks.
	JobWrap = "wrap"
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
func specOf(opts *Options, keys *AggregatedKeys, pass committed.Pass) (*jobSpec, error) {
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
	if len(s.Segments) == 0 || len(s.Segments) > recursion.MaxArity || s.Slots < 0 || s.Slots > statement.MaxBatch || len(s.Shapes) != len(s.Segments) {
		return fail(fmt.Errorf("%d segments, %d shapes, %d slots", len(s.Segments), len(s.Shapes), s.Slots))
	}
	if s.Rows < 1 || s.Rows > maxSpecRows || len(s.Prompt) > maxSpecRows || len(s.Output) > maxSpecRows || len(s.Batch) > statement.MaxBatch {
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

// decodeSpec decodes a job's spec and rebuilds its model, pass and
// statement; a failure of the spec's is deterministic.
func decodeSpec(models *workerModels, job *distributed.Job, in *distributed.Inputs) (*jobSpec, *model.Model, committed.Pass, statement.Statement, error) {
	fail := func(err error) (*jobSpec, *model.Model, committed.Pass, statement.Statement, error) {
		return nil, nil, committed.Pass{}, statement.Statement{}, err
	}
	data, err := in.Get("spec", maxSpec)
	if err != nil {
		return fail(err)
	}
	s, err := parseSpec(data)
	if err != nil {
		return fail(err)
	}
	m, err := models.get(s, job, in)
	if err != nil {
		return fail(err)
	}
	pass := committed.Pass{Prompt: s.Prompt, Output: s.Output, Rows: s.Rows, Batch: s.Batch}
	if err := pass.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return fail(distributed.Deterministic(fmt.Errorf("pipeline: job spec: %w", err)))
	}
	id, _ := new(big.Int).SetString(s.ModelID, 16)
	st, err := passStatement(id, pass)
	if err != nil {
		return fail(distributed.Deterministic(fmt.Errorf("pipeline: job spec: %w", err)))
	}
	return s, m, pass, st, nil
}

// passTrace runs the model's pass over a pass's tokens: stacked for a
// batch's.
func passTrace(m *model.Model, pass committed.Pass) (*model.Trace, error) {
	if begins := pass.Begins(); begins != nil {
		return m.ForwardStacked(pass.Tokens(), begins)
	}
	return m.Forward(m.NewCache(), pass.Tokens())
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

// workerDirs are a worker's directories: its own cache (compiled
// circuits, fetched keys under fetched/, models under models/) and the
// trusted key cache it reads and never writes ("" for none).
type workerDirs struct{ own, trusted string }

// runner returns a runner of a worker's compiles: into its own cache,
// after a look in the trusted one.
func (d workerDirs) runner(m *model.Model, w io.Writer) *runner {
	return &runner{opts: &Options{Model: m, Log: w}, report: &Report{}, circuitsFrom: d.trusted}
}

// WorkerConfig is a worker's: its key cache ("" for the default), where
// its progress goes (nil for nowhere), and the loader of a model it
// loads before a job needs it (nil for none): a built-in one of
// ModelName, or one from a directory (ModelName ""), known to jobs by
// its id.
type WorkerConfig struct {
	CacheDir  string
	Log       io.Writer
	Model     func() (*model.Model, error)
	ModelName string
	// TrustedDir is a trusted key cache the worker reads compiled
	// circuits and keys from, and never writes to ("" for none): the
	// cache of the coordinator that started local workers. Keys found
	// there are used only at the digests a job pins.
	TrustedDir string
}

// WorkerHandlers returns the handlers of an aggregated run's jobs for a
// worker whose circuits and keys are cached in cfg.CacheDir (keys
// fetched from the object store the first time a circuit needs them,
// and checked against their manifest). cfg.Model, when set, is loaded
// in the background, so that the worker's first job of it does not wait
// for it.
func WorkerHandlers(cfg WorkerConfig) (map[string]distributed.Handler, error) {
	own, err := keyCacheDir(cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	if cfg.TrustedDir != "" {
		a, err1 := filepath.Abs(own)
		b, err2 := filepath.Abs(cfg.TrustedDir)
		if err1 != nil || err2 != nil || a == b {
			return nil, fmt.Errorf("pipeline: a worker's cache %s is the trusted cache it reads: give it one of its own", own)
		}
	}
	dirs := workerDirs{own: own, trusted: cfg.TrustedDir}
	w := cfg.Log
	if w == nil {
		w = io.Discard
	}
	logger := log.New(w, "  ", 0)
	var srsc srsCache
	models := &workerModels{dir: own}
	if cfg.Model != nil {
		// Held until the model is loaded: a job that needs a model
		// waits for it.
		models.mu.Lock()
		go func() {
			defer models.mu.Unlock()
			m, err := cfg.Model()
			if err != nil {
				logger.Printf("the model to load first: %v", err)
				return
			}
			models.m, models.key = m, "builtin "+cfg.ModelName
			if cfg.ModelName == "" {
				models.key = "weights " + m.ID().Text(16)
			}
		}()
	}
	return map[string]distributed.Handler{
		JobNative: func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			s, m, pass, st, err := decodeSpec(models, job, in)
			if err != nil {
				return nil, err
			}
			k, err := jobIndex(job.ID, len(s.Segments))
			if err != nil {
				return nil, err
			}
			tr, err := passTrace(m, pass)
			if err != nil {
				return nil, distributed.Deterministic(err)
			}
			srs, err := srsc.get(s, job, in, logger)
			if err != nil {
				return nil, err
			}
			proof, _, err := committed.Prove(srs, m, st, pass, tr, s.Segments[k])
			if err != nil {
				return nil, distributed.Deterministic(err)
			}
			return proof.MarshalBinary()
		},
		JobSegment: func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			return segmentJob(dirs, w, models, job, in)
		},
		JobAggregate: func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			return aggregateJob(dirs, w, logger, models, &srsc, job, in)
		},
		JobWrap: func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			return wrapJob(dirs, w, models, job, in)
		},
	}, nil
}

// segmentJob proves a segment's Groth16 proof on a worker.
func segmentJob(dirs workerDirs, w io.Writer, models *workerModels, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	s, m, pass, st, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	k, err := jobIndex(job.ID, len(s.Segments))
	if err != nil {
		return nil, err
	}
	nativeData, err := in.Get("native", maxNative)
	if err != nil {
		return nil, err
	}
	native, err := committed.UnmarshalProof(nativeData)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	shapes, err := committedShapes(m, s.Segments, pass, nil)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	check, _, err := shapes[k].VerifyField(m, st, native)
	if err != nil {
		return nil, distributed.Deterministic(fmt.Errorf("pipeline: the native proof of segment %d: %w", k, err))
	}
	assignment, err := segmentAssignment(m, shapes[k], s.Slots, st, native, check)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	wit, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	// The circuit as the run's catalog compiles it: from the bucket's
	// placeholder pass, read from this worker's circuit cache after the
	// first time.
	phShapes, err := committedShapes(m, s.Segments, placeholderPass(s.Rows, s.Batch != nil), nil)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	r := dirs.runner(m, w)
	ccs, err := r.compileSegment(dirs.own, m, m.ID(), phShapes[k], s.Slots, segmentName(k, s.Segments))
	if err != nil {
		return nil, err
	}
	keys, keyDir, err := workerKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	pk, err := setup.LoadProvingKey(keys, keyDir)
	if err != nil {
		return nil, err
	}
	proof, err := groth16.Prove(ccs, pk, wit, recursion.SegmentProverOption())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return proofBytes(proof)
}

// aggregateJob proves the aggregator on a worker: the segments' proofs
// read and checked again (the native proofs' chain), the aggregator
// compiled from the spec's shapes in the worker's circuit cache.
func aggregateJob(dirs workerDirs, w io.Writer, logger *log.Logger, models *workerModels, srsc *srsCache, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	s, m, pass, st, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	srs, err := srsc.get(s, job, in, logger)
	if err != nil {
		return nil, err
	}
	vk, err := committed.NewVerifyingKey(srs, m)
	if err != nil {
		return nil, err
	}
	segs := s.Segments
	natives := make([]*committed.Proof, len(segs))
	for k := range segs {
		data, err := in.Get(fmt.Sprintf("native-%d", k), maxNative)
		if err != nil {
			return nil, err
		}
		if natives[k], err = committed.UnmarshalProof(data); err != nil {
			return nil, distributed.Deterministic(err)
		}
	}
	checks, err := committed.VerifyPassChecks(vk, m, st, pass, segs, natives)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	phShapes, err := committedShapes(m, segs, placeholderPass(s.Rows, s.Batch != nil), nil)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	segments := make([]recursion.SegmentProof, len(segs))
	for k := range segs {
		tables, err := vk.TableCommitments(phShapes[k])
		if err != nil {
			return nil, distributed.Deterministic(err)
		}
		segVK := groth16.NewVerifyingKey(ecc.BLS12_377)
		proof := groth16.NewProof(ecc.BLS12_377)
		for role, v := range map[string]io.ReaderFrom{fmt.Sprintf("segvk-%d", k): segVK, fmt.Sprintf("segment-%d", k): proof} {
			data, err := in.Get(role, inputBound(role))
			if err != nil {
				return nil, err
			}
			if _, err := v.ReadFrom(bytes.NewReader(data)); err != nil {
				return nil, distributed.Deterministic(fmt.Errorf("pipeline: %s: %w", role, err))
			}
		}
		if segments[k], err = recursion.ValueOfSegmentProof(proof, segVK, natives[k].Commitments(), tables, &natives[k].Opening.Opening, checks[k], chosenOf(segs[k], natives[k])); err != nil {
			return nil, distributed.Deterministic(err)
		}
	}
	key := gpcs.KeyOf(vk.PCS)
	r := dirs.runner(m, w)
	ccs, err := r.compileAggregator(dirs.own, s.Shapes, key, nil)
	if err != nil {
		return nil, err
	}
	keys, keyDir, err := workerKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	pk, err := setup.LoadProvingKey(keys, keyDir)
	if err != nil {
		return nil, err
	}
	wit, err := frontend.NewWitness(recursion.AggregatorAssignment(s.Shapes, key, st, segments), ecc.BW6_761.ScalarField())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	proof, err := groth16.Prove(ccs, pk, wit, recursion.AggregatorProverOption())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return proofBytes(proof)
}

// wrapJob proves the wrapper on a worker: the aggregator's proof,
// verified on the spec's statement, wrapped by the wrapper circuit the
// spec selects (a batch's when the spec has slots), compiled in the
// worker's circuit cache.
func wrapJob(dirs workerDirs, w io.Writer, models *workerModels, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	s, m, _, st, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	if s.Wrap == nil {
		return nil, distributed.Deterministic(errors.New("pipeline: a wrap job whose spec has no wrap part"))
	}
	dep, err := s.Wrap.deployment()
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	aggVK := groth16.NewVerifyingKey(ecc.BW6_761)
	aggProof := groth16.NewProof(ecc.BW6_761)
	for role, v := range map[string]io.ReaderFrom{"aggvk": aggVK, "aggregate": aggProof} {
		data, err := in.Get(role, inputBound(role))
		if err != nil {
			return nil, err
		}
		if _, err := v.ReadFrom(bytes.NewReader(data)); err != nil {
			return nil, distributed.Deterministic(fmt.Errorf("pipeline: %s: %w", role, err))
		}
	}
	r := dirs.runner(m, w)
	n := s.Wrap.Commitments
	var ccs constraint.ConstraintSystem
	if s.Slots > 0 {
		ccs, err = r.compileCached(dirs.own, wrapperName(n)+"\nbatch", ecc.BN254, "BN254 batch wrapper", func() (constraint.ConstraintSystem, error) {
			return recursion.CompileBatchWrapper(n)
		})
	} else {
		ccs, err = r.compileCached(dirs.own, wrapperName(n), ecc.BN254, "BN254 wrapper", func() (constraint.ConstraintSystem, error) {
			return recursion.CompileWrapper(n)
		})
	}
	if err != nil {
		return nil, err
	}
	keys, keyDir, err := workerKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	wrapper := *keys
	wrapper.CCS = ccs
	if wrapper.PK, err = setup.LoadProvingKey(keys, keyDir); err != nil {
		return nil, err
	}
	wrap := recursion.Wrap
	if s.Slots > 0 {
		wrap = recursion.WrapBatch
	}
	proof, _, err := wrap(aggProof, aggVK, st, dep, s.Wrap.Slot, &wrapper)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return proofBytes(proof)
}

// inputBound is the bound of a job's input of a verifying key's role
// (segvk-k, aggvk) or a Groth16 proof's (segment-k, aggregate).
func inputBound(role string) int64 {
	if strings.HasSuffix(strings.Split(role, "-")[0], "vk") {
		return maxVK
	}
	return maxGroth16
}

// proofBytes is a Groth16 proof in gnark's binary encoding, a job's
// output.
func proofBytes(p groth16.Proof) ([]byte, error) {
	var out bytes.Buffer
	if _, err := p.WriteTo(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// segmentAssignment is the segment circuit's assignment: a batch's with
// slots > 0.
func segmentAssignment(m *model.Model, s *committed.Shape, slots int, st statement.Statement, native *committed.Proof, check *pcs.GroupCheck) (frontend.Circuit, error) {
	if slots > 0 {
		return circuits.AssignCommittedBatch(m, s, slots, st, native, check)
	}
	return circuits.AssignCommitted(m, s, st, native, check)
}

// workerKeys returns the verifying key of a circuit whose keys a job
// pins, and the directory its proving key is read from. The job (signed
// by the coordinator) names its "manifest", "vk" and "pk" by the SHA-256
// of their bytes; the manifest must be the circuit's and record those
// digests. The keys are read from the trusted cache when it holds this
// circuit's keys at those digests; else from the worker's directory of
// fetched keys (own/fetched, marked setup.FetchedMarker), where they are
// fetched from the object store the first time. Fetched keys are never
// written into a trusted cache, and keys at other digests are never
// used.
func workerKeys(dirs workerDirs, ccs constraint.ConstraintSystem, job *distributed.Job, in *distributed.Inputs) (*setup.Keys, string, error) {
	hash, err := setup.CircuitHash(ccs)
	if err != nil {
		return nil, "", err
	}
	data, err := in.Get("manifest", maxManifest)
	if err != nil {
		return nil, "", err
	}
	mf, err := setup.ParseManifest(data)
	if err != nil {
		return nil, "", distributed.Deterministic(fmt.Errorf("pipeline: the job's key manifest: %w", err))
	}
	if mf.Circuit != hash {
		return nil, "", distributed.Deterministic(fmt.Errorf("pipeline: the job's keys are of circuit %s, this worker compiles %s (another version?)", mf.Circuit, hash))
	}
	if job.Inputs["vk"] != strings.TrimPrefix(mf.VerifyingKey, "sha256:") || job.Inputs["pk"] != strings.TrimPrefix(mf.ProvingKey, "sha256:") {
		return nil, "", distributed.Deterministic(errors.New("pipeline: the job's key files are not those its manifest records"))
	}
	if mf.Constraints != ccs.GetNbConstraints() {
		return nil, "", distributed.Deterministic(fmt.Errorf("pipeline: the job's manifest records %d constraints, the circuit has %d", mf.Constraints, ccs.GetNbConstraints()))
	}
	if dirs.trusted != "" {
		if have, err := setup.Cached(ccs, dirs.trusted); err == nil && have != nil && have.VerifyingKey == mf.VerifyingKey && have.ProvingKey == mf.ProvingKey {
			keys, err := setup.LoadVK(ccs, dirs.trusted)
			if err == nil {
				return keys, dirs.trusted, nil
			}
		}
	}
	dir := filepath.Join(dirs.own, "fetched")
	if err := setup.MarkFetched(dir); err != nil {
		return nil, "", err
	}
	// The key files at the pinned digests, fetched only when absent or
	// of other digests; the manifest last, so that a directory with a
	// manifest has its keys.
	if have, err := setup.Cached(ccs, dir, setup.FromFetched()); err != nil || have == nil || have.VerifyingKey != mf.VerifyingKey || have.ProvingKey != mf.ProvingKey {
		if err := os.Remove(filepath.Join(dir, hash+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, "", err
		}
		for _, f := range []struct {
			role, ext string
			max       int64
		}{{"vk", ".vk", maxVK}, {"pk", ".pk", maxProvingKey(mf)}} {
			if err := in.Fetch(f.role, filepath.Join(dir, hash+f.ext), f.max); err != nil {
				return nil, "", err
			}
		}
		path := filepath.Join(dir, hash+".json")
		if err := os.WriteFile(path+".part", data, 0o644); err != nil {
			return nil, "", err
		}
		if err := os.Rename(path+".part", path); err != nil {
			return nil, "", err
		}
	}
	keys, err := setup.LoadVK(ccs, dir, setup.FromFetched(), setup.WithKind(mf.Kind))
	if err != nil {
		return nil, "", err
	}
	return keys, dir, nil
}

// jobsOut are the verified outputs of a run's jobs: the native proofs,
// the aggregator's proof and, when the run was wrapped, the wrapper's
// proof with the final statement it was verified on.
type jobsOut struct {
	natives   []*committed.Proof
	aggregate groth16.Proof
	wrapped   groth16.Proof
	final     statement.Statement
}

// runJobs runs the native and Groth16 proofs of a pass's segments,
// their aggregation and, with wrap, the wrapper as jobs on the queue's
// workers: it returns their outputs, each verified (a native proof by
// committed.Verify and its links against the stream of the pass tr at
// once, a Groth16 proof on the public inputs computed here, the
// aggregator's on the statement, the wrapper's on the final statement)
// before it is used.
func (r *runner) runJobs(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, pass committed.Pass, tr *model.Trace, st statement.Statement, shapes []*committed.Shape, wrap bool) (*jobsOut, error) {
	m := r.opts.Model
	segs := keys.Segments
	spec, err := specOf(r.opts, keys, pass)
	if err != nil {
		return nil, err
	}
	incoming := make([]*pcs.Commitment, len(segs))
	for k, seg := range segs {
		if incoming[k], err = committed.Incoming(keys.SRS, tr, seg); err != nil {
			return nil, err
		}
	}
	if wrap {
		spec.Wrap = wrapSpecOf(keys)
	}
	specData, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	srsData, err := encodeSRS(keys.SRS, r.opts.KeyKind != setup.Ceremony)
	if err != nil {
		return nil, err
	}
	blobs := map[string][]byte{"spec": specData, "srs": srsData}
	names := map[string]string{}
	for role, data := range blobs {
		if names[role], err = q.Put(ctx, data); err != nil {
			return nil, err
		}
	}
	res := &jobsOut{natives: make([]*committed.Proof, len(segs))}
	natives := res.natives
	var tasks []*distributed.Task
	// The key files by the digests their manifest records: a file
	// already in the object store is not read again.
	putKeys := func(what string, mf *setup.Manifest, roles map[string]string) error {
		for _, f := range []struct{ role, ext, digest string }{{"manifest", ".json", ""}, {"vk", ".vk", mf.VerifyingKey}, {"pk", ".pk", mf.ProvingKey}} {
			var err error
			if roles[f.role], err = q.PutFile(ctx, filepath.Join(r.opts.CacheDir, mf.Circuit+f.ext), f.digest); err != nil {
				return fmt.Errorf("pipeline: the keys of %s: %w", what, err)
			}
		}
		return nil
	}
	agg := &distributed.Task{
		ID: JobAggregate, Kind: JobAggregate, Memory: 2 * segmentMemory(keys.Aggregator), MaxOutput: maxGroth16,
		Inputs: map[string]string{"spec": names["spec"], "srs": names["srs"]}, After: map[string]string{},
	}
	if err := putKeys("the aggregator", keys.Aggregator.Manifest, agg.Inputs); err != nil {
		return nil, err
	}
	agg.Verify = func(out []byte) error {
		p := groth16.NewProof(ecc.BW6_761)
		if _, err := p.ReadFrom(bytes.NewReader(out)); err != nil {
			return err
		}
		if err := recursion.VerifyAggregated(p, keys.Aggregator.VK, st); err != nil {
			return err
		}
		res.aggregate = p
		return nil
	}
	for k := range segs {
		sk := keys.Segment[k]
		key := map[string]string{"spec": names["spec"]}
		if err := putKeys(segmentName(k, segs), sk.Manifest, key); err != nil {
			return nil, err
		}
		agg.Inputs[fmt.Sprintf("segvk-%d", k)] = key["vk"]
		agg.After[fmt.Sprintf("native-%d", k)] = fmt.Sprintf("%s-%d", JobNative, k)
		agg.After[fmt.Sprintf("segment-%d", k)] = fmt.Sprintf("%s-%d", JobSegment, k)
		tasks = append(tasks, &distributed.Task{
			ID: fmt.Sprintf("%s-%d", JobNative, k), Kind: JobNative, Memory: committed.ProverMemory(shapes[k].Layout), MaxOutput: maxNative,
			Inputs: map[string]string{"spec": names["spec"], "srs": names["srs"]},
			Verify: func(out []byte) error {
				p, err := committed.UnmarshalProof(out)
				if err != nil {
					return err
				}
				if _, err := committed.Verify(keys.Committed, m, st, pass, segs[k], p); err != nil {
					return err
				}
				// Its links now, not at the aggregation: a proof that
				// verifies alone over another stream is proven again.
				if err := committed.CheckLinks(segs, incoming, k, p); err != nil {
					return err
				}
				natives[k] = p
				return nil
			},
		}, &distributed.Task{
			ID: fmt.Sprintf("%s-%d", JobSegment, k), Kind: JobSegment, Memory: segmentMemory(sk), MaxOutput: maxGroth16,
			Inputs: key, After: map[string]string{"native": fmt.Sprintf("%s-%d", JobNative, k)},
			Verify: func(out []byte) error {
				p := groth16.NewProof(ecc.BLS12_377)
				if _, err := p.ReadFrom(bytes.NewReader(out)); err != nil {
					return err
				}
				if natives[k] == nil {
					return errors.New("no verified native proof yet")
				}
				check, _, err := shapes[k].VerifyField(m, st, natives[k])
				if err != nil {
					return err
				}
				a, err := segmentAssignment(m, shapes[k], keys.Catalog.Slots, st, natives[k], check)
				if err != nil {
					return err
				}
				w, err := frontend.NewWitness(a, ecc.BLS12_377.ScalarField(), frontend.PublicOnly())
				if err != nil {
					return err
				}
				return groth16.Verify(p, sk.VK, w, recursion.SegmentVerifierOption())
			},
		})
	}
	tasks = append(tasks, agg)
	if wrap {
		t, err := r.wrapTask(ctx, q, keys, st, names["spec"], &res.wrapped, &res.final)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if spec.Model == "" {
		// The model's files, for every job.
		files := map[string]string{}
		for i, f := range modelFiles {
			path := filepath.Join(r.opts.ModelDir, f.file)
			if i >= 2 {
				if _, err := os.Stat(path); m.Tokenizer == nil || err != nil {
					continue
				}
			}
			if files[f.role], err = q.PutFile(ctx, path, ""); err != nil {
				return nil, fmt.Errorf("pipeline: the model's files: %w", err)
			}
		}
		for _, t := range tasks {
			maps.Copy(t.Inputs, files)
		}
	}
	// The run id: the same for the same request and keys from the same
	// coordinator (a coordinator started again resumes its run), and
	// unguessable by anyone else.
	run := q.RunID(append(append([]byte(nil), specData...), []byte(keys.FinalModelID.Text(16))...))
	r.logf("  run %s: %d jobs on the workers", run, len(tasks))
	start := time.Now()
	tl := distributed.NewTimeline(start)
	if _, err := q.Run(ctx, run, tasks, tl.Progress(func(event, job string, res *distributed.Result, reason error) {
		at := time.Since(start).Round(time.Millisecond)
		why := ""
		if reason != nil {
			why = ": " + reason.Error()
		}
		switch {
		case event == "received":
			// Told by "done" or "refused" once verified.
		case res == nil:
			r.logf("  %9v %s %s%s", at, event, job, why)
		default:
			r.logf("  %9v %s %s (attempt %d, worker %s), %v on the worker%s", at, event, job, res.Attempt, res.Worker, time.Duration(res.Millis)*time.Millisecond, why)
		}
	})); err != nil {
		return nil, err
	}
	var chart strings.Builder
	if err := tl.WriteChart(&chart, 60); err != nil {
		return nil, err
	}
	r.logf("  the run's jobs (. queued, # on a worker, + verified here):")
	for _, line := range strings.Split(strings.TrimSuffix(chart.String(), "\n"), "\n") {
		r.logf("    %s", line)
	}
	return res, nil
}

// wrapTask is the wrap job of a run: after the aggregation, its output
// verified on the final statement (the deployment's final model id, the
// statement's digests) as the Solidity verifier checks it, then kept in
// *proof with the statement in *final.
func (r *runner) wrapTask(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, st statement.Statement, spec string, proof *groth16.Proof, final *statement.Statement) (*distributed.Task, error) {
	mf := keys.Wrapper.Manifest
	t := &distributed.Task{
		ID: JobWrap, Kind: JobWrap, Memory: 3 * segmentMemory(keys.Wrapper) / 2, MaxOutput: maxGroth16,
		Inputs: map[string]string{"spec": spec}, After: map[string]string{"aggregate": JobAggregate},
	}
	for _, f := range []struct{ role, ext, digest string }{{"manifest", ".json", ""}, {"vk", ".vk", mf.VerifyingKey}, {"pk", ".pk", mf.ProvingKey}} {
		var err error
		if t.Inputs[f.role], err = q.PutFile(ctx, filepath.Join(r.opts.CacheDir, mf.Circuit+f.ext), f.digest); err != nil {
			return nil, fmt.Errorf("pipeline: the wrapper's keys: %w", err)
		}
	}
	var vk bytes.Buffer
	if _, err := keys.Aggregator.VK.WriteRawTo(&vk); err != nil {
		return nil, err
	}
	var err error
	if t.Inputs["aggvk"], err = q.Put(ctx, vk.Bytes()); err != nil {
		return nil, err
	}
	want := statement.Statement{ModelID: keys.FinalModelID, InputDigest: st.InputDigest, OutputDigest: st.OutputDigest}
	verify := recursion.VerifyWrapped
	if keys.Catalog.Slots > 0 {
		verify = recursion.VerifyBatchWrapped
	}
	t.Verify = func(out []byte) error {
		p := groth16.NewProof(ecc.BN254)
		if _, err := p.ReadFrom(bytes.NewReader(out)); err != nil {
			return err
		}
		if err := verify(p, keys.Wrapper.VK, want); err != nil {
			return err
		}
		*proof, *final = p, want
		return nil
	}
	return t, nil
}

// segmentMemory estimates a segment Groth16 proof's peak: about 1 KiB a
// constraint (the proving key, the witness and the prover's vectors).
func segmentMemory(k *setup.Keys) uint64 {
	return uint64(k.Manifest.Constraints) << 10
}
