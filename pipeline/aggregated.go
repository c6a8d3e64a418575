package pipeline

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// AggregatedOptions configure a run of the aggregated design.
type AggregatedOptions struct {
	Options
	// SegmentSize is the number of blocks per segment (1 by default).
	SegmentSize int
	// VocabChunk, when positive, proves the LM head in segments of its
	// own of this many vocabulary columns each
	// (inference.ChunkedSegments); 0 keeps it in the last segment.
	VocabChunk int
	// NativeJobs is how many segments' native committed proofs run at
	// once (committed.ProveSegments; the same proofs whatever it is).
	// 0, the default, chooses 1 or 2 from the segments' estimated peaks
	// (committed.ProverMemory) and the memory left under the runtime's
	// soft limit.
	NativeJobs int
	// SRS is the BLS12-377 phase-1 ceremony output the KZG SRS is taken
	// from (pcs.LoadCeremony); when empty, a development
	// SRS is made once and cached beside the keys (refused with
	// KeyKind setup.Ceremony).
	SRS string
	// Wrap runs the BN254 wrapper's Groth16 setup (12 minutes and
	// 14 GB on 2 cores the first time), proof and, with Chain, the
	// on-chain check; otherwise the run ends with the aggregator's
	// proof, verified, and the final statement computed natively
	// (Report.Aggregated).
	Wrap bool
	// Buckets are the row buckets the model is deployed with: the final
	// model id (recursion.Deployment) covers the aggregator of each, so
	// that a proof in any of them states the same id. Their keys are set
	// up or loaded with the run's. Empty: the run's bucket alone; else it
	// must list the run's bucket.
	Buckets []int
	// Capacity, when positive, makes the circuits those of a
	// conversation's turns over a cache of Capacity rows ([RunTurn]):
	// turn segment circuits and the turn aggregator (the wrapper is
	// every run's).
	Capacity int
	// Queue, when not nil, runs the segments' native and Groth16 proofs
	// as jobs on the workers of a NATS JetStream deployment
	// (package distributed, [WorkerHandlers]); every result is verified
	// here before it is used: a request's, a batch's or a turn's pass.
	Queue *distributed.Queue
	// Slots, when positive, makes the circuits those of a batch's pass
	// ([RunBatch]) with Slots request slots: batch segment circuits
	// (circuits.CommittedBatch) and the list aggregator of their shapes
	// (the wrapper is every run's). The buckets are then batch buckets ([BatchRows]):
	// powers of two, which may exceed the model's context.
	Slots int
	// Mix, with Capacity, deploys lists that mix requests and turns
	// ([RunList]): one aggregator of Mix.Requests requests' passes then
	// Mix.Turns turns' passes, each in the run's bucket (the turns over
	// a cache of Capacity rows), beside the turn aggregator of each
	// bucket, all under one final model id: a conversation's turns,
	// alone or in lists, chain on chain. A run proves a lone turn
	// ([RunTurn]) unless MixedList is set.
	Mix *Mix
	// MixedList, with Mix, makes the run's circuits those of a mixed
	// list ([RunList] sets it).
	MixedList bool

	// alone makes the deployment the run's aggregator alone (the leaves
	// of the other kinds of a deployment are set up this way).
	alone bool
}

// Mix is the layout of a deployment's mixed lists: the number of
// requests and of turns each holds, in that order, each proven as a
// pass of its own.
type Mix struct {
	Requests, Turns int
}

// mixedList reports whether the run's circuits are a mixed list's.
func (opts *AggregatedOptions) mixedList() bool { return opts.Mix != nil && opts.MixedList }

// AggregatedProof is the aggregator's BW6-761 proof of a run, verified
// on List (under the aggregator's model id): what the wrapper proves. A
// run without AggregatedOptions.Wrap ends with it.
type AggregatedProof struct {
	Proof groth16.Proof
	Key   groth16.VerifyingKey
	List  statement.List
	// Deployment and Slot place the aggregator in the model's bucket
	// tree: the final id the wrapper states.
	Deployment *recursion.Deployment
	Slot       int
	// Commitments is the aggregator circuit's number of Pedersen
	// commitments, the shape of the wrapper that verifies it
	// (recursion.NewWrapper).
	Commitments int
}

// RunAggregated proves a greedy generation in the aggregated design: the
// pass cut into segments, each proven natively (inference/committed) and
// by a BLS12-377 Groth16 proof of its segment circuit, their BW6-761
// aggregation and, with Wrap, the BN254 wrapper. Without Wrap the report
// holds the aggregator's verified proof (Report.Aggregated) and the final
// statement the wrapper would prove, computed natively. With Wrap and
// Chain, solcjs must be found before anything is proven; if the on-chain
// check then fails, the report of the verified proof is returned with the
// error.
func RunAggregated(ctx context.Context, opts AggregatedOptions) (*Report, error) {
	if err := opts.checkRun(); err != nil {
		return nil, err
	}
	if opts.Chain && opts.Wrap {
		if err := checkSolc(); err != nil {
			return nil, err
		}
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}, ctx: ctx}
	rep := r.report
	m := opts.Model
	rows, err := opts.rows(len(opts.Prompt), opts.Tokens)
	if err != nil {
		return nil, err
	}
	if len(opts.Buckets) > 0 {
		// Checked before anything is proven; deploy checks again.
		if err := checkDeployment(m, opts.Buckets, rows, false); err != nil {
			return nil, err
		}
	}
	var (
		tr  *model.Trace
		req statement.Request
	)
	if err := r.stage("inference", func() (string, error) {
		var err error
		req, tr, err = inference.Generate(m, opts.Prompt, opts.Tokens, rows)
		if err != nil {
			return "", err
		}
		rep.Output, rep.Rows = req.Output, req.Rows
		return fmt.Sprintf("%d tokens generated, a pass of %d rows in the bucket of %d", len(rep.Output), req.Len(), req.Rows), nil
	}); err != nil {
		return nil, err
	}
	r.generated(rep.Output)
	if len(tr.Layers) != m.Config.Layers {
		return nil, fmt.Errorf("pipeline: the trace has %d blocks, the model %d", len(tr.Layers), m.Config.Layers)
	}
	keys, err := r.setupAggregated(&opts, len(opts.Prompt), len(rep.Output))
	if err != nil {
		return nil, err
	}
	rep.Constraints = keys.SegmentConstraints
	st, list, aggProof, err := r.proveAggregated(&opts, keys, req, tr)
	if err != nil {
		return nil, err
	}
	rep.setAggregated(keys, st, list, aggProof)
	if !opts.Wrap {
		return rep, nil
	}
	if err := r.wrap(keys, rep); err != nil {
		return nil, err
	}
	if opts.Chain {
		if err := r.onChain(ctx, keys.Wrapper.VK, rep.Proof, rep.List); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// setAggregated records an aggregator's proof of the pass's statement st
// and its list in the report, with the statement and list under the
// final model id (what the wrapper states).
func (rep *Report) setAggregated(keys *AggregatedKeys, st statement.Statement, list statement.List, proof groth16.Proof) {
	rep.Aggregated = &AggregatedProof{Proof: proof, Key: keys.Aggregator.VK, List: list, Deployment: keys.Deployment, Slot: keys.Slot, Commitments: keys.Catalog.aggregatorCommitments}
	rep.Statement = statement.Statement{ModelID: keys.FinalModelID, InputDigest: st.InputDigest, OutputDigest: st.OutputDigest}
	rep.List = statement.List{ModelID: keys.FinalModelID, Leaves: list.Leaves}
}

// wrap runs the wrapper stage of every kind of run: the aggregator's
// proof of rep.Aggregated wrapped (or the worker's wrapper proof, already
// verified) and checked to state the report's final list.
func (r *runner) wrap(keys *AggregatedKeys, rep *Report) error {
	return r.stage("wrapper proof", func() (string, error) {
		var final statement.List
		if r.wrapped != nil {
			// Proven by a worker, verified on the final list.
			rep.Proof, final = r.wrapped.wrapped, r.wrapped.final
		} else {
			wrapper, err := r.wrapperKeys(keys)
			if err != nil {
				return "", err
			}
			a := rep.Aggregated
			if rep.Proof, final, err = recursion.Wrap(a.Proof, a.Key, a.List, keys.Deployment, keys.Slot, wrapper); err != nil {
				return "", err
			}
		}
		got, err := final.Digest()
		if err != nil {
			return "", err
		}
		want, err := rep.List.Digest()
		if err != nil {
			return "", err
		}
		if got.Cmp(want) != 0 {
			return "", fmt.Errorf("pipeline: the wrapper states list digest %#x, the run %#x", got, want)
		}
		rep.VerifyingKey = keys.Wrapper.VK
		if rep.ProofBytes, err = proofSize(rep.Proof); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d bytes, verified", rep.ProofBytes), nil
	})
}

// AggregatedKeys are the keys of the aggregated design for one model, one
// row bucket and one cut into segments.
type AggregatedKeys struct {
	// Catalog lists the circuits the keys are of; Segments is its cut.
	Catalog  *Catalog
	Segments []inference.Segment
	// Segment holds the BLS12-377 keys of each segment circuit.
	Segment []*setup.Keys

	// SRS is the KZG SRS; Committed the native verifying key (the
	// model's table commitments); Shapes what the aggregator knows of
	// each segment circuit; Tables the table commitments each segment's
	// opening reads.
	SRS       *pcs.SRS
	Committed *committed.VerifyingKey
	Shapes    []recursion.SegmentShape
	Tables    [][]pcs.Commitment

	// ModelID is the aggregator's model id (recursion.ModelID of the
	// segment keys and Tables); FinalModelID the one the wrapper exposes
	// on-chain (recursion.Deployment.FinalModelID), the id a registry
	// requires, the same for every bucket of Deployment.
	ModelID, FinalModelID *big.Int
	// Rows is the keys' bucket, Slot its slot in Deployment's bucket
	// tree (recursion.BucketSlot).
	Rows, Slot int
	Deployment *recursion.Deployment
	// Aggregator holds the BW6-761 keys; Wrapper the BN254 keys (nil
	// unless they were asked for).
	Aggregator, Wrapper *setup.Keys
	// Constraint counts: all segment circuits together, the aggregator,
	// the wrapper (0 when its keys were not asked for).
	SegmentConstraints, AggregatorConstraints, WrapperConstraints int

	// reload reads again the compiled circuit of a key set whose CCS was
	// dropped after its key stage ([AggregatedKeys.drop]).
	reload map[*setup.Keys]func() (constraint.ConstraintSystem, error)
}

// drop releases the compiled circuit of keys, which reload reads again
// (from the circuit cache) when the circuit is proven. A committed run
// holds no circuit between its stages: GPT-2 small's eight take gigabytes
// that its native prover and the wrapper's compile need.
func (k *AggregatedKeys) drop(keys *setup.Keys, reload func() (constraint.ConstraintSystem, error)) {
	if k.reload == nil {
		k.reload = make(map[*setup.Keys]func() (constraint.ConstraintSystem, error))
	}
	k.reload[keys] = reload
	keys.CCS = nil
}

// circuit returns the compiled circuit of keys, read again if it was
// dropped. A circuit read again is not hashed against the keys' manifest
// (seconds for a large one): a proof made with a circuit that is not the
// keys' fails the verification that follows every proof of a run.
func (k *AggregatedKeys) circuit(keys *setup.Keys) (constraint.ConstraintSystem, error) {
	if keys.CCS != nil {
		return keys.CCS, nil
	}
	reload, ok := k.reload[keys]
	if !ok {
		return nil, fmt.Errorf("pipeline: a circuit was dropped and cannot be read again")
	}
	return reload()
}

// VerifyingKeysAggregated compiles the circuits of the aggregated design
// of opts.Model for the given prompt and output lengths — the wrapper's
// only with opts.Wrap — and returns what an exporter needs: the verifying
// keys, the model ids and the wrapper's circuit (the other circuits are
// dropped after their key stage, Keys.CCS nil). Cached proving keys are
// not read (the wrapper's is 3.6 GB), so every Keys.PK is nil; a circuit
// without cached keys is set up (development only) and both its keys
// stored. Progress goes to opts.Log.
func VerifyingKeysAggregated(opts AggregatedOptions, promptLen, outputLen int) (*AggregatedKeys, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{}, keepWrapper: true}
	return r.setupAggregated(&opts, promptLen, outputLen)
}

// segmentVKs lists the segments' verifying keys, in segment order.
func (k *AggregatedKeys) segmentVKs() []groth16.VerifyingKey {
	vks := make([]groth16.VerifyingKey, len(k.Segment))
	for i, keys := range k.Segment {
		vks[i] = keys.VK
	}
	return vks
}

// keyOptions are the options of every key load of a run: its log, and the
// kind of keys it accepts.
func (r *runner) keyOptions() []setup.Option {
	opts := []setup.Option{setup.WithLog(r.opts.Log)}
	if r.opts.KeyKind != "" {
		opts = append(opts, setup.WithKind(r.opts.KeyKind))
	}
	return opts
}

// defaults fills in the model, segment size and cache directory.
func (opts *AggregatedOptions) defaults() error {
	if err := opts.Options.defaults(); err != nil {
		return err
	}
	if opts.SegmentSize == 0 {
		opts.SegmentSize = 1
	}
	if opts.SegmentSize < 0 {
		return fmt.Errorf("pipeline: segment size %d", opts.SegmentSize)
	}
	if opts.NativeJobs < 0 {
		return fmt.Errorf("pipeline: %d native jobs", opts.NativeJobs)
	}
	if opts.VocabChunk < 0 {
		return fmt.Errorf("pipeline: vocabulary chunks of %d columns", opts.VocabChunk)
	}
	if opts.Slots < 0 || opts.Slots > statement.MaxLeaves {
		return fmt.Errorf("pipeline: %d request slots, want 1 to %d", opts.Slots, statement.MaxLeaves)
	}
	if opts.Slots > 0 && opts.Capacity > 0 {
		return fmt.Errorf("pipeline: a batch of conversations' turns is not supported: request slots and a cache capacity (a mixed list holds both)")
	}
	if mix := opts.Mix; mix != nil {
		if opts.Capacity < 1 || opts.Slots > 0 {
			return fmt.Errorf("pipeline: mixed lists need the turns' cache capacity and no request slots")
		}
		if mix.Requests < 0 || mix.Turns < 1 || mix.Requests+mix.Turns < 2 || mix.Requests+mix.Turns > recursion.MaxPasses {
			return fmt.Errorf("pipeline: mixed lists of %s and %s: want at least one turn, two leaves, and at most %d", Count(mix.Requests, "request"), Count(mix.Turns, "turn"), recursion.MaxPasses)
		}
	} else if opts.MixedList {
		return fmt.Errorf("pipeline: a mixed list without the deployment's mix")
	}
	return nil
}

// setupAggregated runs the key stages of the aggregated design: the
// segment circuits, the SRS and the model's table commitments, the
// aggregator and (with opts.Wrap) the wrapper. Only verifying keys are
// held: a run reads each proving key when it proves (the native prover
// of a large model needs the memory first).
func (r *runner) setupAggregated(opts *AggregatedOptions, promptLen, outputLen int) (*AggregatedKeys, error) {
	cat, err := r.catalog(Aggregated, opts, promptLen, outputLen, func(size int) (*pcs.SRS, error) {
		return r.loadSRS(opts, size)
	})
	if err != nil {
		return nil, err
	}
	k := &AggregatedKeys{Catalog: cat, Segments: cat.Segments, Rows: cat.Rows}
	if err := r.setupSegments(opts, k); err != nil {
		return nil, err
	}
	if err := r.setupAggregator(k); err != nil {
		return nil, err
	}
	if err := r.deploy(opts, k); err != nil {
		return nil, err
	}
	return r.setupWrapper(opts, k)
}

// loadKeys compiles the circuit c (or reads it from the circuit cache),
// loads its verifying key from the key cache or sets its keys up
// (setup.LoadOrSetupVK), and drops the compiled circuit unless keep; it
// returns the keys and the circuit's constraint count.
func (r *runner) loadKeys(k *AggregatedKeys, c *Circuit, keep bool) (*setup.Keys, int, error) {
	ccs, err := c.Compile()
	if err != nil {
		return nil, 0, err
	}
	keys, err := setup.LoadOrSetupVK(ccs, r.opts.CacheDir, r.keyOptions()...)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", c.Name, err)
	}
	if !keep {
		k.drop(keys, c.Compile)
	}
	return keys, ccs.GetNbConstraints(), nil
}

// setupAggregator runs the aggregator's key stage and derives the final
// model id from its key.
func (r *runner) setupAggregator(k *AggregatedKeys) error {
	return r.stage("aggregator keys (setup or cache)", func() (string, error) {
		var err error
		if k.Aggregator, k.AggregatorConstraints, err = r.loadKeys(k, k.Catalog.aggregator, false); err != nil {
			return "", err
		}
		return fmt.Sprintf("BW6-761, %d R1CS constraints", k.AggregatorConstraints), nil
	})
}

// rows returns the bucket of a prompt of promptLen tokens and outputLen
// generated ones: opts.Bucket when set, else the smallest of opts.Buckets
// that holds them, else the smallest bucket that holds them ([Rows]).
func (opts *AggregatedOptions) rows(promptLen, outputLen int) (int, error) {
	if opts.Slots > 0 {
		// A batch's bucket is chosen by RunBatch from the stack's rows.
		return BatchRows(1, opts.Bucket)
	}
	if opts.Bucket != 0 || len(opts.Buckets) == 0 {
		return Rows(opts.Model, promptLen, outputLen, opts.Bucket)
	}
	n := promptLen + outputLen - 1
	best := 0
	for _, b := range opts.Buckets {
		if b >= n && (best == 0 || b < best) {
			best = b
		}
	}
	if best == 0 {
		need, err := Rows(opts.Model, promptLen, outputLen, 0)
		if err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("pipeline: %d prompt and %d generated tokens need a bucket of at least %d rows (bucket %d); the deployment has %v", promptLen, outputLen, n, need, opts.Buckets)
	}
	return Rows(opts.Model, promptLen, outputLen, best)
}

// aggregatedSegments cuts the model's blocks into segments of size blocks
// (the last one shorter), then with chunk > 0 the LM head into segments
// of chunk vocabulary columns, at most the aggregator's arity.
func aggregatedSegments(m *model.Model, size, chunk int) ([]inference.Segment, error) {
	var segs []inference.Segment
	var err error
	if chunk > 0 {
		segs, err = inference.ChunkedSegments(m.Config.Layers, size, m.Config.Vocab, chunk)
	} else {
		segs, err = inference.Segments(m.Config.Layers, size)
	}
	if err != nil {
		return nil, err
	}
	if len(segs) > recursion.MaxArity {
		return nil, fmt.Errorf("pipeline: %d segments exceed the aggregator's arity %d (raise the segment size)", len(segs), recursion.MaxArity)
	}
	return segs, nil
}

// setupWrapper runs the wrapper's key stage when opts.Wrap asks for it.
func (r *runner) setupWrapper(opts *AggregatedOptions, k *AggregatedKeys) (*AggregatedKeys, error) {
	if !opts.Wrap {
		return k, nil
	}
	if err := r.stage("wrapper keys (setup or cache)", func() (string, error) {
		var err error
		if k.Wrapper, k.WrapperConstraints, err = r.loadKeys(k, k.Catalog.wrapper, r.keepWrapper); err != nil {
			return "", err
		}
		return fmt.Sprintf("BN254, %d R1CS constraints", k.WrapperConstraints), nil
	}); err != nil {
		return nil, err
	}
	return k, nil
}

// wrapperKeys returns the wrapper's keys with its proving key and its
// circuit read (from the caches when they were dropped).
func (r *runner) wrapperKeys(keys *AggregatedKeys) (*setup.Keys, error) {
	pk, err := r.provingKey(keys.Wrapper)
	if err != nil {
		return nil, err
	}
	wrapper := *keys.Wrapper
	wrapper.PK = pk
	if wrapper.CCS, err = keys.circuit(keys.Wrapper); err != nil {
		return nil, err
	}
	return &wrapper, nil
}

// provingKey returns the proving key of keys, read from the cache (and
// checked against its manifest) when only the verifying key is held.
func (r *runner) provingKey(keys *setup.Keys) (groth16.ProvingKey, error) {
	if keys.PK != nil {
		return keys.PK, nil
	}
	return setup.LoadProvingKey(keys, r.opts.CacheDir, r.keyOptions()...)
}

// wrapperName names the wrapper of aggregators with n Pedersen
// commitments in the circuit cache.
func wrapperName(n int) string {
	return fmt.Sprintf("list wrapper\naggregator commitments %d", n)
}
