package pipeline

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// AggregatedKeys are the keys of the aggregated shape for one model, one
// pair of prompt and output lengths and one segment size.
type AggregatedKeys struct {
	// Tensors is the design the circuits are of.
	Tensors  Tensors
	Segments []inference.Segment
	// Segment holds the BLS12-377 keys of each segment circuit.
	Segment []*setup.Keys

	// Opened tensors: the circuits' layout, and the direct-shape model id
	// (statement.ModelID) as the BLS12-377 element the segment keys are
	// hashed with.
	Layout *circuits.Layout
	Graph  bls12377fr.Element

	// Committed tensors: the KZG SRS, the native verifying key (the
	// model's table commitments), per segment what the aggregator knows
	// of its circuit and the table commitments its opening reads.
	SRS       *pcs.SRS
	Committed *committed.VerifyingKey
	Shapes    []recursion.CommittedShape
	Tables    [][]pcs.Commitment

	// ModelID is the aggregator's model id (recursion.ModelID of the
	// segment keys and Graph, or recursion.CommittedModelID of the
	// segment keys and Tables); FinalModelID the one the wrapper exposes
	// on-chain (recursion.FinalModelID), the id a registry requires.
	ModelID, FinalModelID *big.Int
	// Aggregator holds the BW6-761 keys; Wrapper the BN254 keys (nil
	// unless they were asked for).
	Aggregator, Wrapper *setup.Keys
	// Constraint counts: all segment circuits together, the aggregator,
	// the wrapper (0 when its keys were not asked for).
	SegmentConstraints, AggregatorConstraints, WrapperConstraints int

	// aggregatorCommitments is recursion.AggregatorCommitments of the
	// aggregator's circuit: the wrapper's shape.
	aggregatorCommitments int
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

// VerifyingKeysAggregated compiles the circuits of the aggregated shape of
// opts.Model for the given prompt and output lengths — the wrapper's only
// with opts.Wrap — and returns what an exporter needs: the verifying keys,
// the model ids and the wrapper's circuit (a committed run's other
// circuits are dropped after their key stage, Keys.CCS nil). Cached proving keys are not read (the wrapper's is
// 3.6 GB), so every Keys.PK is nil; a circuit without cached keys is set up
// (development only; the wrapper's first setup takes about 40 minutes and
// 14 GB) and both its keys stored. Progress goes to opts.Log.
func VerifyingKeysAggregated(opts AggregatedOptions, promptLen, outputLen int) (*AggregatedKeys, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{}, keepWrapper: true}
	return r.setupAggregated(&opts, promptLen, outputLen, setup.LoadOrSetupVK)
}

// segmentVKs lists the segments' verifying keys, in segment order.
func (k *AggregatedKeys) segmentVKs() []groth16.VerifyingKey {
	vks := make([]groth16.VerifyingKey, len(k.Segment))
	for i, keys := range k.Segment {
		vks[i] = keys.VK
	}
	return vks
}

// keyLoader fetches or makes the keys of a compiled circuit in a cache
// directory, checked against their manifest and logged through the options.
type keyLoader func(ccs constraint.ConstraintSystem, dir string, opts ...setup.Option) (*setup.Keys, error)

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
	var err error
	if opts.Tensors, err = ParseTensors(string(opts.Tensors)); err != nil {
		return err
	}
	if opts.NativeJobs < 0 {
		return fmt.Errorf("pipeline: %d native jobs", opts.NativeJobs)
	}
	if opts.VocabChunk < 0 || (opts.VocabChunk > 0 && opts.Tensors != Committed) {
		return fmt.Errorf("pipeline: vocabulary chunks of %d columns with %s tensors (chunks need committed tensors)", opts.VocabChunk, opts.Tensors)
	}
	return nil
}

// setupAggregated runs the key stages of the aggregated shape.
func (r *runner) setupAggregated(opts *AggregatedOptions, promptLen, outputLen int, load keyLoader) (*AggregatedKeys, error) {
	m := opts.Model
	k := &AggregatedKeys{Tensors: opts.Tensors}
	var err error
	if k.Segments, err = aggregatedSegments(m, opts.SegmentSize, opts.VocabChunk); err != nil {
		return nil, err
	}
	if opts.Tensors == Committed {
		// A committed run holds no proving key before it needs it: the
		// native prover of a large model needs the memory first.
		if err := r.setupCommitted(opts, k, promptLen, outputLen, setup.LoadOrSetupVK); err != nil {
			return nil, err
		}
		return r.setupWrapper(opts, k, setup.LoadOrSetupVK)
	}
	if err := r.stage("segment circuits and keys (setup or cache)", func() (string, error) {
		id := statement.ModelID(m)
		var err error
		if k.Layout, err = circuits.NewLayoutOf(m, id, promptLen, outputLen); err != nil {
			return "", err
		}
		for i, seg := range k.Segments {
			ccs, err := compileSegment(k.Layout, seg)
			if err != nil {
				return "", fmt.Errorf("segment %d: %w", i, err)
			}
			r.logf("  %s: %d R1CS constraints", segmentName(i, k.Segments), ccs.GetNbConstraints())
			keys, err := load(ccs, opts.CacheDir, r.keyOptions()...)
			if err != nil {
				return "", fmt.Errorf("segment %d: %w", i, err)
			}
			k.Segment = append(k.Segment, keys)
			k.SegmentConstraints += ccs.GetNbConstraints()
		}
		k.Graph.SetBigInt(id)
		if k.ModelID, err = recursion.ModelID(k.segmentVKs(), k.Graph); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d circuits, %d R1CS constraints in all", len(k.Segments), k.SegmentConstraints), nil
	}); err != nil {
		return nil, err
	}
	if err := r.setupAggregator(opts, k, load, func() (constraint.ConstraintSystem, error) {
		shape, err := recursion.SegmentShapeOf(k.Segment[0].CCS)
		if err != nil {
			return nil, err
		}
		return recursion.CompileAggregator(len(k.Segments), shape)
	}); err != nil {
		return nil, err
	}
	return r.setupWrapper(opts, k, load)
}

// setupAggregator runs the aggregator's key stage on the circuit compile
// returns, and derives the final model id from its key.
func (r *runner) setupAggregator(opts *AggregatedOptions, k *AggregatedKeys, load keyLoader, compile func() (constraint.ConstraintSystem, error)) error {
	return r.stage("aggregator keys (setup or cache)", func() (string, error) {
		ccs, err := compile()
		if err != nil {
			return "", err
		}
		k.AggregatorConstraints = ccs.GetNbConstraints()
		k.aggregatorCommitments = recursion.AggregatorCommitments(ccs)
		if k.Aggregator, err = load(ccs, opts.CacheDir, r.keyOptions()...); err != nil {
			return "", err
		}
		if opts.Tensors == Committed {
			k.drop(k.Aggregator, compile)
		}
		if k.FinalModelID, err = recursion.FinalModelID(k.Aggregator.VK, k.ModelID); err != nil {
			return "", err
		}
		return fmt.Sprintf("BW6-761, %d R1CS constraints", k.AggregatorConstraints), nil
	})
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
func (r *runner) setupWrapper(opts *AggregatedOptions, k *AggregatedKeys, load keyLoader) (*AggregatedKeys, error) {
	if !opts.Wrap {
		return k, nil
	}
	if err := r.stage("wrapper keys (setup or cache)", func() (string, error) {
		n := k.aggregatorCommitments
		compile := func() (constraint.ConstraintSystem, error) {
			return r.compileCached(opts.CacheDir, wrapperName(n), ecc.BN254, "BN254 wrapper", func() (constraint.ConstraintSystem, error) {
				return recursion.CompileWrapper(n)
			})
		}
		ccs, err := compile()
		if err != nil {
			return "", err
		}
		k.WrapperConstraints = ccs.GetNbConstraints()
		if k.Wrapper, err = load(ccs, opts.CacheDir, r.keyOptions()...); err != nil {
			return "", err
		}
		if opts.Tensors == Committed && !r.keepWrapper {
			k.drop(k.Wrapper, compile)
		}
		return fmt.Sprintf("BN254, %d R1CS constraints", k.WrapperConstraints), nil
	}); err != nil {
		return nil, err
	}
	return k, nil
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
	return fmt.Sprintf("wrapper\naggregator commitments %d", n)
}
