package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/distributed"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

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
			p, err := decodeSpec(models, job, in)
			if err != nil {
				return nil, err
			}
			k, err := jobIndex(job.ID, len(p.spec.Segments))
			if err != nil {
				return nil, err
			}
			tr, err := p.trace()
			if err != nil {
				return nil, distributed.Deterministic(err)
			}
			srs, err := srsc.get(p.spec, job, in, logger)
			if err != nil {
				return nil, err
			}
			proof, _, err := committed.Prove(srs, p.m, p.st, p.pass, tr, p.spec.Segments[k], p.proveOptions()...)
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
	p, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	s, m, st := p.spec, p.m, p.st
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
	shapes, err := p.shapes()
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
	phShapes, err := p.circuitShapes()
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	r := dirs.runner(m, w)
	ccs, err := r.compileSegment(dirs.own, m, m.ID(), phShapes[k], s.Slots, segmentName(k, s.Segments))
	if err != nil {
		return nil, err
	}
	keys, err := workerProvingKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	proof, err := groth16.Prove(ccs, keys.PK, wit, recursion.SegmentProverOption())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return proofBytes(proof)
}

// aggregateJob proves the aggregator on a worker: the segments' proofs
// read and checked again (the native proofs' chain), the aggregator
// compiled from the spec's shapes in the worker's circuit cache.
func aggregateJob(dirs workerDirs, w io.Writer, logger *log.Logger, models *workerModels, srsc *srsCache, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	p, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	s, m := p.spec, p.m
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
	checks, witness, err := p.verifyNatives(vk, natives, in)
	if err != nil {
		return nil, err
	}
	phShapes, err := p.circuitShapes()
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
	layout := []recursion.PassShape{recursion.RequestPass(s.Shapes)}
	switch {
	case p.turn != nil:
		layout[0] = recursion.TurnPass(s.Shapes, recursion.AggregatorTurn{Layers: m.Config.Layers, Capacity: p.turn.Capacity})
	case s.Slots > 0:
		layout[0] = recursion.ListPass(s.Shapes)
	}
	ccs, err := r.compileAggregator(dirs.own, layout, key)
	if err != nil {
		return nil, err
	}
	keys, err := workerProvingKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	a, err := recursion.AggregatorAssignment(layout, key, p.list, []recursion.PassWitness{{Statement: p.st, Segments: segments, Turn: witness}})
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	wit, err := frontend.NewWitness(a, ecc.BW6_761.ScalarField())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	proof, err := groth16.Prove(ccs, keys.PK, wit, recursion.AggregatorProverOption())
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return proofBytes(proof)
}

// wrapJob proves the wrapper on a worker: the aggregator's proof,
// verified on the spec's list, wrapped by the one wrapper circuit,
// compiled in the worker's circuit cache.
func wrapJob(dirs workerDirs, w io.Writer, models *workerModels, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
	p, err := decodeSpec(models, job, in)
	if err != nil {
		return nil, err
	}
	s, m, list := p.spec, p.m, p.list
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
	ccs, err := r.compileWrapper(dirs.own, n)
	if err != nil {
		return nil, err
	}
	wrapper, err := workerProvingKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	proof, _, err := recursion.Wrap(aggProof, aggVK, list, dep, s.Wrap.Slot, wrapper)
	if err != nil {
		return nil, distributed.Deterministic(err)
	}
	return proofBytes(proof)
}

// verifyNatives verifies the native proofs of an aggregation job's
// pass, and returns their pairing checks and, for a turn, the turn
// aggregator's witness: the state in (the job's input "state", whose
// digest and rows must be the spec's) and the state out the proofs
// leave, whose digest must be the spec's.
func (p *jobPass) verifyNatives(vk *committed.VerifyingKey, natives []*committed.Proof, in *distributed.Inputs) ([]*pcs.GroupCheck, *recursion.TurnWitness, error) {
	segs := p.spec.Segments
	if p.turn == nil {
		checks, err := committed.VerifyPassChecks(vk, p.m, p.st, p.pass, segs, natives)
		return checks, nil, distributed.Deterministic(err)
	}
	data, err := in.Get("state", maxState)
	if err != nil {
		return nil, nil, err
	}
	stateIn, err := committed.UnmarshalState(data)
	if err != nil {
		return nil, nil, distributed.Deterministic(fmt.Errorf("pipeline: the turn's state in: %w", err))
	}
	leaf := p.list.Leaves[0]
	if stateIn.Digest().Cmp(leaf.StateIn) != 0 || stateIn.Rows != p.turn.Start || stateIn.Capacity != p.turn.Capacity {
		return nil, nil, distributed.Deterministic(fmt.Errorf("pipeline: the turn's state in (digest %#x, %d of %d rows) is not the spec's (%#x, %d of %d)",
			stateIn.Digest(), stateIn.Rows, stateIn.Capacity, leaf.StateIn, p.turn.Start, p.turn.Capacity))
	}
	stateOut, checks, err := committed.VerifyTurnChecks(vk, p.m, p.st, p.pass, stateIn, segs, natives)
	if err != nil {
		return nil, nil, distributed.Deterministic(err)
	}
	if stateOut.Digest().Cmp(leaf.StateOut) != 0 {
		return nil, nil, distributed.Deterministic(fmt.Errorf("pipeline: the turn leaves state %#x, the spec states %#x", stateOut.Digest(), leaf.StateOut))
	}
	return checks, turnWitness(stateIn, stateOut, p.pass), nil
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

// workerProvingKeys is [workerKeys] with the circuit and its proving key
// read, ready to prove.
func workerProvingKeys(dirs workerDirs, ccs constraint.ConstraintSystem, job *distributed.Job, in *distributed.Inputs) (*setup.Keys, error) {
	keys, keyDir, err := workerKeys(dirs, ccs, job, in)
	if err != nil {
		return nil, err
	}
	out := *keys
	out.CCS = ccs
	if out.PK, err = setup.LoadProvingKey(keys, keyDir); err != nil {
		return nil, err
	}
	return &out, nil
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
