package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
var modelFiles = []struct{ role, file string }{
	{"model-config", model.ConfigFile},
	{"model-weights", model.WeightsFile},
	{"model-tokenizer", "tokenizer.json"},
	{"model-tokenizer-config", "tokenizer_config.json"},
	{"model-vocab", "vocab.json"},
	{"model-merges", "merges.txt"},
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
	if s.Rows < 1 || s.Rows > maxSpecRows {
		return fail(fmt.Errorf("%d rows", s.Rows))
	}
	if s.Wrap != nil {
		if _, err := s.Wrap.deployment(); err != nil {
			return fail(err)
		}
	}
	return &s, nil
}

// maxSpec bounds a spec's encoding (a batch's requests are in it), and
// maxSpecRows a pass's rows.
const (
	maxSpec     = 64 << 20
	maxSpecRows = 1 << 20
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
		dir := filepath.Join(c.dir, "models", s.Weights)
		for i, f := range modelFiles {
			path := filepath.Join(dir, f.file)
			if _, err := os.Stat(path); err == nil {
				continue
			}
			if _, ok := job.Inputs[f.role]; !ok && i >= 2 {
				continue // a tokenizer file the model's directory has not
			}
			if err := in.Fetch(f.role, path); err != nil {
				return nil, err
			}
		}
		bos := tokenizer.BOSOff
		if s.BOS == tokenizer.BOSOn.String() {
			bos = tokenizer.BOSOn
		}
		var err error
		if m, err = model.LoadBOS(dir, bos); err != nil {
			return nil, distributed.Deterministic(err)
		}
		if got := m.ID().Text(16); got != s.Weights {
			return nil, distributed.Deterministic(fmt.Errorf("pipeline: the model's files give id %s, the job's spec %s", got, s.Weights))
		}
	}
	c.key, c.m = key, m
	return m, nil
}

// decodeSpec decodes a job's spec and rebuilds its model, pass and
// statement; a failure of the spec's is deterministic.
func decodeSpec(models *workerModels, job *distributed.Job, in *distributed.Inputs) (*jobSpec, *model.Model, committed.Pass, statement.Statement, error) {
	fail := func(err error) (*jobSpec, *model.Model, committed.Pass, statement.Statement, error) {
		return nil, nil, committed.Pass{}, statement.Statement{}, err
	}
	data, err := in.Get("spec")
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
func (c *srsCache) get(job *distributed.Job, in *distributed.Inputs, logger *log.Logger) (*pcs.SRS, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if blob := job.Inputs["srs"]; blob != "" && blob == c.blob {
		return c.srs, nil
	}
	data, err := in.Get("srs")
	if err != nil {
		return nil, err
	}
	s, err := readSRS(data, logger)
	if err != nil {
		return nil, err
	}
	c.blob, c.srs = job.Inputs["srs"], s
	return s, nil
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
}

// WorkerHandlers returns the handlers of an aggregated run's jobs for a
// worker whose circuits and keys are cached in cfg.CacheDir (keys
// fetched from the object store the first time a circuit needs them,
// and checked against their manifest). cfg.Model, when set, is loaded
// in the background, so that the worker's first job of it does not wait
// for it.
func WorkerHandlers(cfg WorkerConfig) (map[string]distributed.Handler, error) {
	dir, err := keyCacheDir(cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	w := cfg.Log
	if w == nil {
		w = io.Discard
	}
	logger := log.New(w, "  ", 0)
	var srsc srsCache
	models := &workerModels{dir: dir}
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
			srs, err := srsc.get(job, in, logger)
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
			return segmentJob(dir, w, models, job, in)
		},
		JobAggregate: func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			return aggregateJob(dir, w, logger, models, &srsc, job, in)
		},
		JobWrap: func(ctx context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			return wrapJob(dir, w, models, job, in)
		},
	}, nil
}

// segmentJob proves a segment's Groth16 proof on a worker.
func segmentJob(dir string, w io.Writer, models *workerModels, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	s, m, pass, st, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	k, err := jobIndex(job.ID, len(s.Segments))
	if err != nil {
		return nil, err
	}
	nativeData, err := in.Get("native")
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
	r := &runner{opts: &Options{Model: m, Log: w}, report: &Report{}}
	ccs, err := r.compileSegment(dir, m, m.ID(), phShapes[k], s.Slots, segmentName(k, s.Segments))
	if err != nil {
		return nil, err
	}
	keys, err := workerKeys(dir, ccs, in)
	if err != nil {
		return nil, err
	}
	pk, err := setup.LoadProvingKey(keys, dir)
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
func aggregateJob(dir string, w io.Writer, logger *log.Logger, models *workerModels, srsc *srsCache, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	s, m, pass, st, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	srs, err := srsc.get(job, in, logger)
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
		data, err := in.Get(fmt.Sprintf("native-%d", k))
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
			data, err := in.Get(role)
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
	r := &runner{opts: &Options{Model: m, Log: w}, report: &Report{}}
	ccs, err := r.compileAggregator(dir, s.Shapes, key, nil)
	if err != nil {
		return nil, err
	}
	keys, err := workerKeys(dir, ccs, in)
	if err != nil {
		return nil, err
	}
	pk, err := setup.LoadProvingKey(keys, dir)
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
func wrapJob(dir string, w io.Writer, models *workerModels, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
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
		data, err := in.Get(role)
		if err != nil {
			return nil, err
		}
		if _, err := v.ReadFrom(bytes.NewReader(data)); err != nil {
			return nil, distributed.Deterministic(fmt.Errorf("pipeline: %s: %w", role, err))
		}
	}
	r := &runner{opts: &Options{Model: m, Log: w}, report: &Report{}}
	n := s.Wrap.Commitments
	var ccs constraint.ConstraintSystem
	if s.Slots > 0 {
		ccs, err = r.compileCached(dir, wrapperName(n)+"\nbatch", ecc.BN254, "BN254 batch wrapper", func() (constraint.ConstraintSystem, error) {
			return recursion.CompileBatchWrapper(n)
		})
	} else {
		ccs, err = r.compileCached(dir, wrapperName(n), ecc.BN254, "BN254 wrapper", func() (constraint.ConstraintSystem, error) {
			return recursion.CompileWrapper(n)
		})
	}
	if err != nil {
		return nil, err
	}
	keys, err := workerKeys(dir, ccs, in)
	if err != nil {
		return nil, err
	}
	wrapper := *keys
	wrapper.CCS = ccs
	if wrapper.PK, err = setup.LoadProvingKey(keys, dir); err != nil {
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

// exists reports whether there is a file at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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

// workerKeys returns the verifying key of a circuit from the worker's key
// cache, first writing there the key files of the job (its manifest,
// verifying and proving keys, read from the object store only when the
// cache lacks them). The manifest must be the circuit's; the keys are
// checked against its digests when they are read.
func workerKeys(dir string, ccs constraint.ConstraintSystem, in *distributed.Inputs) (*setup.Keys, error) {
	hash, err := setup.CircuitHash(ccs)
	if err != nil {
		return nil, err
	}
	manifest, err := in.Get("manifest")
	if err != nil {
		return nil, err
	}
	var mf setup.Manifest
	if err := json.Unmarshal(manifest, &mf); err != nil || mf.Circuit != hash {
		return nil, distributed.Deterministic(fmt.Errorf("pipeline: the job's keys are of circuit %q, this worker compiles %s (another version?)", mf.Circuit, hash))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The key files, fetched only when the cache lacks them; the
	// manifest last, from the bytes read above, so that a cache with a
	// manifest has its keys.
	for _, f := range []struct{ role, ext string }{{"vk", ".vk"}, {"pk", ".pk"}} {
		if path := filepath.Join(dir, hash+f.ext); !exists(path) {
			if err := in.Fetch(f.role, path); err != nil {
				return nil, err
			}
		}
	}
	if path := filepath.Join(dir, hash+".json"); !exists(path) {
		if err := os.WriteFile(path+".part", manifest, 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(path+".part", path); err != nil {
			return nil, err
		}
	}
	return setup.LoadOrSetupVK(ccs, dir, setup.WithKind(mf.Kind))
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
// committed.Verify, a Groth16 proof on the public inputs computed here,
// the aggregator's on the statement, the wrapper's on the final
// statement) before it is used.
func (r *runner) runJobs(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, pass committed.Pass, st statement.Statement, shapes []*committed.Shape, wrap bool) (*jobsOut, error) {
	m := r.opts.Model
	segs := keys.Segments
	spec, err := specOf(r.opts, keys, pass)
	if err != nil {
		return nil, err
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
		ID: JobAggregate, Kind: JobAggregate, Memory: 2 * segmentMemory(keys.Aggregator),
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
			ID: fmt.Sprintf("%s-%d", JobNative, k), Kind: JobNative, Memory: committed.ProverMemory(shapes[k].Layout),
			Inputs: map[string]string{"spec": names["spec"], "srs": names["srs"]},
			Verify: func(out []byte) error {
				p, err := committed.UnmarshalProof(out)
				if err != nil {
					return err
				}
				if _, err := committed.Verify(keys.Committed, m, st, pass, segs[k], p); err != nil {
					return err
				}
				natives[k] = p
				return nil
			},
		}, &distributed.Task{
			ID: fmt.Sprintf("%s-%d", JobSegment, k), Kind: JobSegment, Memory: segmentMemory(sk),
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
	h := sha256.Sum256(append(append([]byte(nil), specData...), []byte(keys.FinalModelID.Text(16))...))
	run := "run-" + hex.EncodeToString(h[:8])
	r.logf("  run %s: %d jobs on the workers", run, len(tasks))
	start := time.Now()
	tl := distributed.NewTimeline(start)
	if _, err := q.Run(ctx, run, tasks, tl.Progress(func(event, job string, res *distributed.Result) {
		at := time.Since(start).Round(time.Millisecond)
		switch {
		case event == "received":
			// Told by "done" or "refused" once verified.
		case res == nil:
			r.logf("  %9v %s %s", at, event, job)
		default:
			r.logf("  %9v %s %s (attempt %d, worker %s), %v on the worker", at, event, job, res.Attempt, res.Worker, time.Duration(res.Millis)*time.Millisecond)
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
		ID: JobWrap, Kind: JobWrap, Memory: 3 * segmentMemory(keys.Wrapper) / 2,
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
