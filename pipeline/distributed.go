package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/distributed"
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
	// the aggregator's "manifest", "vk" and "pk", and for a turn "state"
	// (its state in, committed.State.MarshalBinary); output the
	// aggregator's proof.
	JobAggregate = "aggregate"
	// JobWrap is the BN254 wrapper's proof of the aggregator's proof:
	// inputs "spec" (with its wrap part), "aggregate" (the aggregator's
	// proof), "aggvk" (the aggregator's verifying key) and the wrapper's
	// "manifest", "vk" and "pk"; output the wrapper's proof, the one a
	// Solidity verifier checks.
	JobWrap = "wrap"
)

// jobsOut are the verified outputs of a run's jobs: the native proofs,
// the aggregator's proof and, when the run was wrapped, the wrapper's
// proof with the final statement it was verified on.
type jobsOut struct {
	natives   []*committed.Proof
	segments  []groth16.Proof
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
func (r *runner) runJobs(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, pass committed.Pass, tr *model.Trace, st statement.Statement, list statement.List, shapes []*committed.Shape, last string, conv *turnProving) (*jobsOut, error) {
	wrap := last == JobWrap
	segs := keys.Segments
	spec, err := specOf(r.opts, keys, pass, conv)
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
	if conv != nil {
		if blobs["state"], err = conv.in.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	names := map[string]string{}
	for role, data := range blobs {
		if names[role], err = q.Put(ctx, data); err != nil {
			return nil, err
		}
	}
	res := &jobsOut{natives: make([]*committed.Proof, len(segs)), segments: make([]groth16.Proof, len(segs))}
	if last == JobSegment {
		// A mixed list's pass: its segments' proofs alone.
		tasks, err := r.segmentTasks(ctx, q, keys, pass, st, shapes, incoming, names["spec"], names["srs"], nil, res, conv)
		if err != nil {
			return nil, err
		}
		return res, r.runSpecTasks(ctx, q, spec, specData, keys, tasks)
	}
	agg := &distributed.Task{
		ID: JobAggregate, Kind: JobAggregate, Memory: 2 * segmentMemory(keys.Aggregator), MaxOutput: maxGroth16,
		Inputs: map[string]string{"spec": names["spec"], "srs": names["srs"]}, After: map[string]string{},
	}
	if conv != nil {
		agg.Inputs["state"] = names["state"]
	}
	if err := r.putKeys(ctx, q, "the aggregator", keys.Aggregator.Manifest, agg.Inputs); err != nil {
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
	tasks, err := r.segmentTasks(ctx, q, keys, pass, st, shapes, incoming, names["spec"], names["srs"], agg, res, conv)
	if err != nil {
		return nil, err
	}
	tasks = append(tasks, agg)
	if wrap {
		t, err := r.wrapTask(ctx, q, keys, list, names["spec"], &res.wrapped, &res.final)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return res, r.runSpecTasks(ctx, q, spec, specData, keys, tasks)
}

// runSpecTasks runs the tasks of a spec: with the model's files when it
// is not built in, under a run id of the spec and the keys.
func (r *runner) runSpecTasks(ctx context.Context, q *distributed.Queue, spec *jobSpec, specData []byte, keys *AggregatedKeys, tasks []*distributed.Task) error {
	if spec.Model == "" {
		if err := r.putModelFiles(ctx, q, tasks); err != nil {
			return err
		}
	}
	// The run id: the same for the same request and keys from the same
	// coordinator (a coordinator started again resumes its run), and
	// unguessable by anyone else.
	run := q.RunID(append(append([]byte(nil), specData...), []byte(keys.FinalModelID.Text(16))...))
	return r.runTasks(ctx, q, run, tasks)
}

// segmentTasks returns the native and Groth16 tasks of each segment,
// each verified here before it is used (a native proof with its links to
// the pass's stream incoming, a Groth16 proof on public inputs computed
// from the verified native proof), and makes the aggregation agg wait
// for them; the verified native proofs go to natives.
func (r *runner) segmentTasks(ctx context.Context, q *distributed.Queue, keys *AggregatedKeys, pass committed.Pass, st statement.Statement, shapes []*committed.Shape, incoming []*pcs.Commitment, spec, srs string, agg *distributed.Task, res *jobsOut, conv *turnProving) ([]*distributed.Task, error) {
	natives := res.natives
	m := r.opts.Model
	segs := keys.Segments
	var tasks []*distributed.Task
	for k := range segs {
		sk := keys.Segment[k]
		key := map[string]string{"spec": spec}
		if err := r.putKeys(ctx, q, segmentName(k, segs), sk.Manifest, key); err != nil {
			return nil, err
		}
		if agg != nil {
			agg.Inputs[fmt.Sprintf("segvk-%d", k)] = key["vk"]
			agg.After[fmt.Sprintf("native-%d", k)] = fmt.Sprintf("%s-%d", JobNative, k)
			agg.After[fmt.Sprintf("segment-%d", k)] = fmt.Sprintf("%s-%d", JobSegment, k)
		}
		tasks = append(tasks, &distributed.Task{
			ID: fmt.Sprintf("%s-%d", JobNative, k), Kind: JobNative, Memory: committed.ProverMemory(shapes[k].Layout), MaxOutput: maxNative,
			Inputs: map[string]string{"spec": spec, "srs": srs},
			Verify: func(out []byte) error {
				p, err := committed.UnmarshalProof(out)
				if err != nil {
					return err
				}
				if conv != nil {
					if err := committed.VerifyTurnSegment(keys.Committed, m, st, pass, conv.in, segs[k], p); err != nil {
						return err
					}
				} else if _, err := committed.Verify(keys.Committed, m, st, pass, segs[k], p); err != nil {
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
				if err := groth16.Verify(p, sk.VK, w, recursion.SegmentVerifierOption()); err != nil {
					return err
				}
				res.segments[k] = p
				return nil
			},
		})
	}
	return tasks, nil
}

// putKeys puts the key files of a circuit (its manifest, verifying and
// proving keys) in the object store by the digests its manifest records
// (a file already there is not read again) and names them in roles.
func (r *runner) putKeys(ctx context.Context, q *distributed.Queue, what string, mf *setup.Manifest, roles map[string]string) error {
	for _, f := range []struct{ role, ext, digest string }{{"manifest", ".json", ""}, {"vk", ".vk", mf.VerifyingKey}, {"pk", ".pk", mf.ProvingKey}} {
		var err error
		if roles[f.role], err = q.PutFile(ctx, filepath.Join(r.opts.CacheDir, mf.Circuit+f.ext), f.digest); err != nil {
			return fmt.Errorf("pipeline: the keys of %s: %w", what, err)
		}
	}
	return nil
}

// putModelFiles puts a model's files (from a directory, not built in)
// in the object store and adds them to every task's inputs.
func (r *runner) putModelFiles(ctx context.Context, q *distributed.Queue, tasks []*distributed.Task) error {
	m := r.opts.Model
	var err error
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
			return fmt.Errorf("pipeline: the model's files: %w", err)
		}
	}
	for _, t := range tasks {
		maps.Copy(t.Inputs, files)
	}
	return nil
}

// runTasks runs a run's tasks on the workers, with a progress line per
// event and a chart of the jobs at the end.
func (r *runner) runTasks(ctx context.Context, q *distributed.Queue, run string, tasks []*distributed.Task) error {
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
		return err
	}
	var chart strings.Builder
	if err := tl.WriteChart(&chart, 60); err != nil {
		return err
	}
	r.logf("  the run's jobs (. queued, # on a worker, + verified here):")
	for _, line := range strings.Split(strings.TrimSuffix(chart.String(), "\n"), "\n") {
		r.logf("    %s", line)
	}
	return nil
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
	if err := r.putKeys(ctx, q, "the wrapper", mf, t.Inputs); err != nil {
		return nil, err
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

// proveOnWorkers runs the stages of proveAggregated as jobs on the
// workers of opts.Queue: each segment's native proof and Groth16 proof,
// the aggregation and, with opts.Wrap, the wrapper, each verified here,
// and the chain of the native proofs. With conv, they are a turn's from
// conv.in, whose native proofs must leave conv.out (replaced by the
// state they give). The wrapper's proof and the final statement are left
// in r.wrapped.
func (r *runner) proveOnWorkers(opts *AggregatedOptions, keys *AggregatedKeys, pass statement.Request, tr *model.Trace, conv *turnProving) (statement.Statement, statement.List, groth16.Proof, error) {
	last := JobAggregate
	if opts.Wrap {
		last = JobWrap
	}
	st, list, res, _, err := r.workerJobs(opts, keys, pass, tr, conv, last)
	if err != nil {
		return st, list, nil, err
	}
	if opts.Wrap {
		r.wrapped = res
	}
	return st, list, res.aggregate, nil
}

// proveSegmentsOnWorkers runs the stages of proveSegments as jobs on the
// workers of opts.Queue (a pass of a mixed list, aggregated here with the
// others): each segment's native and Groth16 proofs, each verified here,
// and the chain of the native proofs, returned as the aggregator's
// witnesses.
func (r *runner) proveSegmentsOnWorkers(opts *AggregatedOptions, keys *AggregatedKeys, pass statement.Request, tr *model.Trace, conv *turnProving) (statement.Statement, statement.List, []recursion.SegmentProof, error) {
	st, list, res, checks, err := r.workerJobs(opts, keys, pass, tr, conv, JobSegment)
	if err != nil {
		return st, list, nil, err
	}
	segs := keys.Segments
	segments := make([]recursion.SegmentProof, len(segs))
	for k := range segs {
		n := res.natives[k]
		if segments[k], err = recursion.ValueOfSegmentProof(res.segments[k], keys.Segment[k].VK, n.Commitments(), keys.Tables[k], &n.Opening.Opening, checks[k], chosenOf(segs[k], n)); err != nil {
			return st, list, nil, err
		}
	}
	return st, list, segments, nil
}

// workerJobs runs a pass's jobs on the workers up to the job kind last
// (JobSegment, JobAggregate or JobWrap) and checks the native proofs'
// chain (a turn's from conv.in, whose native proofs must leave
// conv.out, replaced by the state they give); it returns the pass's
// statement and list, the jobs' verified outputs and the native proofs'
// pairing-check scalars.
func (r *runner) workerJobs(opts *AggregatedOptions, keys *AggregatedKeys, pass statement.Request, tr *model.Trace, conv *turnProving, last string) (statement.Statement, statement.List, *jobsOut, []*pcs.GroupCheck, error) {
	m := opts.Model
	segs := keys.Segments
	var (
		st     statement.Statement
		list   statement.List
		res    *jobsOut
		checks []*pcs.GroupCheck
	)
	err := r.stage("proofs on the workers", func() (string, error) {
		var err error
		if st, list, err = passStatement(keys.ModelID, pass); err != nil {
			return "", err
		}
		var turn *committed.Turn
		if conv != nil {
			turn, list = &conv.turn, conv.list(st)
		}
		shapes, err := committedShapes(m, segs, pass, turn)
		if err != nil {
			return "", err
		}
		if res, err = r.runJobs(r.context(), opts.Queue, keys, pass, tr, st, list, shapes, last, conv); err != nil {
			return "", err
		}
		if conv == nil {
			if checks, err = committed.VerifyPassChecks(keys.Committed, m, st, pass, segs, res.natives); err != nil {
				return "", err
			}
		} else {
			var out *committed.State
			if out, checks, err = committed.VerifyTurnChecks(keys.Committed, m, st, pass, conv.in, segs, res.natives); err != nil {
				return "", err
			}
			if out.Digest().Cmp(conv.out.Digest()) != 0 {
				return "", fmt.Errorf("pipeline: the turn's proofs leave state %#x, its cache %#x", out.Digest(), conv.out.Digest())
			}
			conv.out = out
		}
		what := fmt.Sprintf("%d native and %d Groth16 proofs", len(segs), len(segs))
		switch last {
		case JobAggregate:
			what += " and the aggregation"
		case JobWrap:
			what += ", the aggregation and the wrapper"
		}
		return what + ", each verified", nil
	})
	return st, list, res, checks, err
}
