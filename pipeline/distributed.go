package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"

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

// jobsOut are the verified outputs of a run's jobs: the native proofs,
// the aggregator's proof and, when the run was wrapped, the wrapper's
// proof with the final statement it was verified on.
type jobsOut struct {
	natives   []*committed.Proof
	aggregate groth16.Proof
	wrapped   groth16.Proof
	final     statement.List
}

// runJobs runs the native and Groth16 proofs of a pass's segments,
// their aggregation and, with wrap, the wrapper as jobs on the queue's
// workers: it returns their outputs, each verified (a native proof by
// committed.Verify and its links against the stream of the pass tr at
// once, a Groth16 proof on the public inputs computed here, the
// aggregator's on the statement, the wrapper's on the final statement)
// before it is used.
func (r *runner) runJobs(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, pass committed.Pass, tr *model.Trace, st statement.Statement, list statement.List, shapes []*committed.Shape, wrap bool) (*jobsOut, error) {
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
		if err := recursion.VerifyAggregated(p, keys.Aggregator.VK, list); err != nil {
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
		t, err := r.wrapTask(ctx, q, keys, list, names["spec"], &res.wrapped, &res.final)
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
// verified on the final list (the deployment's final model id, the
// list's leaves) as the Solidity verifier checks it, then kept in *proof
// with the list in *final.
func (r *runner) wrapTask(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, list statement.List, spec string, proof *groth16.Proof, final *statement.List) (*distributed.Task, error) {
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
	want := statement.List{ModelID: keys.FinalModelID, Leaves: list.Leaves}
	t.Verify = func(out []byte) error {
		p := groth16.NewProof(ecc.BN254)
		if _, err := p.ReadFrom(bytes.NewReader(out)); err != nil {
			return err
		}
		if err := recursion.VerifyWrapped(p, keys.Wrapper.VK, want); err != nil {
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
