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
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
)

// jobSpec is what a worker rebuilds a run's pass from: the built-in
// model's name, the pass (a single request's prompt and output, or a
// batch's requests) in its bucket, the cut into segments, the inner
// model id the statement states, and a batch's request slots.
type jobSpec struct {
	Model    string              `json:"model"`
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
}

// builtinName returns the name of the built-in model m is, or an error:
// a distributed run's workers rebuild the model by its name.
func builtinName(m *model.Model) (string, error) {
	id := m.ID()
	for _, name := range model.BuiltinNames() {
		c, err := model.BuiltinConfig(name)
		if err != nil || *c != m.Config {
			continue
		}
		b, err := model.Builtin(name)
		if err == nil && b.ID().Cmp(id) == 0 {
			return name, nil
		}
	}
	return "", errors.New("pipeline: a distributed run takes a built-in model for now (its workers rebuild it by name)")
}

// specOf returns the spec of a run's pass and keys.
func specOf(m *model.Model, keys *AggregatedKeys, pass committed.Pass) (*jobSpec, error) {
	name, err := builtinName(m)
	if err != nil {
		return nil, err
	}
	return &jobSpec{Model: name, Prompt: pass.Prompt, Output: pass.Output, Batch: pass.Batch, Rows: pass.Rows,
		Segments: keys.Segments, ModelID: keys.ModelID.Text(16), Slots: keys.Catalog.Slots, Shapes: keys.Shapes}, nil
}

// decodeSpec decodes a job's spec and rebuilds its model, pass and
// statement; any failure is the input's (deterministic).
func decodeSpec(data []byte) (*jobSpec, *model.Model, committed.Pass, statement.Statement, error) {
	fail := func(err error) (*jobSpec, *model.Model, committed.Pass, statement.Statement, error) {
		return nil, nil, committed.Pass{}, statement.Statement{}, distributed.Deterministic(fmt.Errorf("pipeline: job spec: %w", err))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s jobSpec
	if err := dec.Decode(&s); err != nil {
		return fail(err)
	}
	m, err := model.Builtin(s.Model)
	if err != nil {
		return fail(err)
	}
	id, ok := new(big.Int).SetString(s.ModelID, 16)
	if !ok || id.Sign() < 0 || id.BitLen() > statement.ModelIDBits {
		return fail(fmt.Errorf("model id %q", s.ModelID))
	}
	if len(s.Segments) == 0 || len(s.Segments) > recursion.MaxArity || s.Slots < 0 || s.Slots > statement.MaxBatch || len(s.Shapes) != len(s.Segments) {
		return fail(fmt.Errorf("%d segments, %d shapes, %d slots", len(s.Segments), len(s.Shapes), s.Slots))
	}
	pass := committed.Pass{Prompt: s.Prompt, Output: s.Output, Rows: s.Rows, Batch: s.Batch}
	if err := pass.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return fail(err)
	}
	st, err := passStatement(id, pass)
	if err != nil {
		return fail(err)
	}
	return &s, m, pass, st, nil
}

// passTrace runs the model's pass over a pass's tokens: stacked for a
// batch's.
func passTrace(m *model.Model, pass committed.Pass) (*model.Trace, error) {
	if begins := pass.Begins(); begins != nil {
		return m.ForwardStacked(pass.Tokens(), begins)
	}
	return m.Forward(m.NewCache(), pass.Tokens())
}

// getSRS reads a job's "srs" input (pcs.SRS.WriteCache's encoding).
func getSRS(get func(string) ([]byte, error), logger *log.Logger) (*pcs.SRS, error) {
	data, err := get("srs")
	if err != nil {
		return nil, err
	}
	return readSRS(data, logger)
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

// WorkerHandlers returns the handlers of an aggregated run's jobs for a
// worker whose circuits and keys are cached in cacheDir (keys fetched
// from the object store the first time a circuit needs them, and checked
// against their manifest), progress to w (nil for none).
func WorkerHandlers(cacheDir string, w io.Writer) (map[string]distributed.Handler, error) {
	dir, err := keyCacheDir(cacheDir)
	if err != nil {
		return nil, err
	}
	if w == nil {
		w = io.Discard
	}
	logger := log.New(w, "  ", 0)
	return map[string]distributed.Handler{
		JobNative: func(ctx context.Context, job *distributed.Job, get func(string) ([]byte, error)) ([]byte, error) {
			data, err := get("spec")
			if err != nil {
				return nil, err
			}
			s, m, pass, st, err := decodeSpec(data)
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
			srs, err := getSRS(get, logger)
			if err != nil {
				return nil, err
			}
			proof, _, err := committed.Prove(srs, m, st, pass, tr, s.Segments[k])
			if err != nil {
				return nil, distributed.Deterministic(err)
			}
			return proof.MarshalBinary()
		},
		JobSegment: func(ctx context.Context, job *distributed.Job, get func(string) ([]byte, error)) ([]byte, error) {
			return segmentJob(dir, w, job, get)
		},
		JobAggregate: func(ctx context.Context, job *distributed.Job, get func(string) ([]byte, error)) ([]byte, error) {
			return aggregateJob(dir, w, logger, get)
		},
	}, nil
}

// segmentJob proves a segment's Groth16 proof on a worker.
func segmentJob(dir string, w io.Writer, job *distributed.Job, get func(string) ([]byte, error)) ([]byte, error) {
	data, err := get("spec")
	if err != nil {
		return nil, err
	}
	s, m, pass, st, err := decodeSpec(data)
	if err != nil {
		return nil, err
	}
	k, err := jobIndex(job.ID, len(s.Segments))
	if err != nil {
		return nil, err
	}
	nativeData, err := get("native")
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
	keys, err := workerKeys(dir, ccs, get)
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
	var out bytes.Buffer
	if _, err := proof.WriteTo(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// aggregateJob proves the aggregator on a worker: the segments' proofs
// read and checked again (the native proofs' chain), the aggregator
// compiled from the spec's shapes in the worker's circuit cache.
func aggregateJob(dir string, w io.Writer, logger *log.Logger, get func(string) ([]byte, error)) ([]byte, error) {
	data, err := get("spec")
	if err != nil {
		return nil, err
	}
	s, m, pass, st, err := decodeSpec(data)
	if err != nil {
		return nil, err
	}
	srs, err := getSRS(get, logger)
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
		data, err := get(fmt.Sprintf("native-%d", k))
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
			data, err := get(role)
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
	keys, err := workerKeys(dir, ccs, get)
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
	var out bytes.Buffer
	if _, err := proof.WriteTo(&out); err != nil {
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
func workerKeys(dir string, ccs constraint.ConstraintSystem, get func(string) ([]byte, error)) (*setup.Keys, error) {
	hash, err := setup.CircuitHash(ccs)
	if err != nil {
		return nil, err
	}
	manifest, err := get("manifest")
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
	for _, f := range []struct{ role, ext string }{{"manifest", ".json"}, {"vk", ".vk"}, {"pk", ".pk"}} {
		path := filepath.Join(dir, hash+f.ext)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		data, err := get(f.role)
		if err != nil {
			return nil, err
		}
		tmp := path + ".part"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			return nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, err
		}
	}
	return setup.LoadOrSetupVK(ccs, dir, setup.WithKind(mf.Kind))
}

// runJobs runs the native and Groth16 proofs of a pass's segments and
// their aggregation as jobs on the queue's workers: it returns the
// native proofs and the aggregator's proof, each verified (a native
// proof by committed.Verify, a Groth16 proof on the public inputs
// computed here, the aggregator's on the statement) before it is used.
func (r *runner) runJobs(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, pass committed.Pass, st statement.Statement, shapes []*committed.Shape) ([]*committed.Proof, groth16.Proof, error) {
	m := r.opts.Model
	segs := keys.Segments
	spec, err := specOf(m, keys, pass)
	if err != nil {
		return nil, nil, err
	}
	specData, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, err
	}
	srsData, err := encodeSRS(keys.SRS, r.opts.KeyKind != setup.Ceremony)
	if err != nil {
		return nil, nil, err
	}
	blobs := map[string][]byte{"spec": specData, "srs": srsData}
	names := map[string]string{}
	for role, data := range blobs {
		if names[role], err = q.Put(ctx, data); err != nil {
			return nil, nil, err
		}
	}
	natives := make([]*committed.Proof, len(segs))
	var tasks []*distributed.Task
	putKeys := func(what string, hash string, roles map[string]string) error {
		for _, f := range []struct{ role, ext string }{{"manifest", ".json"}, {"vk", ".vk"}, {"pk", ".pk"}} {
			data, err := os.ReadFile(filepath.Join(r.opts.CacheDir, hash+f.ext))
			if err != nil {
				return fmt.Errorf("pipeline: the keys of %s: %w", what, err)
			}
			if roles[f.role], err = q.Put(ctx, data); err != nil {
				return err
			}
		}
		return nil
	}
	agg := &distributed.Task{
		ID: JobAggregate, Kind: JobAggregate, Memory: 2 * segmentMemory(keys.Aggregator),
		Inputs: map[string]string{"spec": names["spec"], "srs": names["srs"]}, After: map[string]string{},
	}
	if err := putKeys("the aggregator", keys.Aggregator.Manifest.Circuit, agg.Inputs); err != nil {
		return nil, nil, err
	}
	var aggProof groth16.Proof
	agg.Verify = func(out []byte) error {
		p := groth16.NewProof(ecc.BW6_761)
		if _, err := p.ReadFrom(bytes.NewReader(out)); err != nil {
			return err
		}
		if err := recursion.VerifyAggregated(p, keys.Aggregator.VK, st); err != nil {
			return err
		}
		aggProof = p
		return nil
	}
	for k := range segs {
		sk := keys.Segment[k]
		key := map[string]string{"spec": names["spec"]}
		if err := putKeys(segmentName(k, segs), sk.Manifest.Circuit, key); err != nil {
			return nil, nil, err
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
	h := sha256.Sum256(append(append([]byte(nil), specData...), []byte(keys.FinalModelID.Text(16))...))
	run := "run-" + hex.EncodeToString(h[:8])
	r.logf("  run %s: %d jobs on the workers", run, len(tasks))
	start := time.Now()
	if _, err := q.Run(ctx, run, tasks, func(event, job string, res *distributed.Result) {
		at := time.Since(start).Round(time.Millisecond)
		if res == nil {
			r.logf("  %9v %s %s", at, event, job)
			return
		}
		r.logf("  %9v %s %s (attempt %d, worker %s)", at, event, job, res.Attempt, res.Worker)
	}); err != nil {
		return nil, nil, err
	}
	return natives, aggProof, nil
}

// segmentMemory estimates a segment Groth16 proof's peak: about 1 KiB a
// constraint (the proving key, the witness and the prover's vectors).
func segmentMemory(k *setup.Keys) uint64 {
	return uint64(k.Manifest.Constraints) << 10
}
