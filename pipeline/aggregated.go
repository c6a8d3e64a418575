package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// AggregatedOptions configure a run of the aggregated proof shape.
type AggregatedOptions struct {
	Options
	// SegmentSize is the number of blocks per segment (1 by default).
	SegmentSize int
	// VocabChunk, when positive, proves the LM head in segments of its
	// own of this many vocabulary columns each (committed tensors only;
	// inference.ChunkedSegments); 0 keeps it in the last segment.
	VocabChunk int
	// NativeJobs is how many segments' native committed proofs run at
	// once (committed.ProveSegments; the same proofs whatever it is).
	// 0, the default, chooses 1 or 2 from the segments' estimated peaks
	// (committed.ProverMemory) and the memory left under the runtime's
	// soft limit.
	NativeJobs int
	// Tensors is the design of the segment proofs: Committed (the
	// default) or Opened.
	Tensors Tensors
	// SRS is the BLS12-377 phase-1 ceremony output the committed design's
	// KZG SRS is taken from (pcs.LoadCeremony); when empty, a development
	// SRS is made once and cached beside the keys (refused with
	// KeyKind setup.Ceremony).
	SRS string
	// Wrap runs the BN254 wrapper's Groth16 setup (about 40 minutes and
	// 14 GB on 2 cores the first time), proof and, with Chain, the
	// on-chain check; otherwise the wrapper circuit is checked with gnark's
	// test engine on the aggregator's proof.
	Wrap bool
}

// RunAggregated proves a greedy generation in the aggregated shape: the
// pass cut into segments, each proven natively (committed or opened
// tensors, opts.Tensors) and by a BLS12-377 Groth16 proof of its segment
// circuit, their BW6-761 aggregation, and the BN254 wrapper (proven with
// Wrap, solved by gnark's test engine otherwise). With Wrap and Chain,
// solcjs must be found before anything is proven; if the on-chain check
// then fails, the report of the verified proof is returned with the
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
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}}
	rep := r.report
	m := opts.Model
	var tr *model.Trace
	if err := r.stage("inference", func() (string, error) {
		var err error
		rep.Output, tr, err = inference.Generate(m, opts.Prompt, opts.Tokens)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d tokens generated", len(rep.Output)), nil
	}); err != nil {
		return nil, err
	}
	r.generated(rep.Output)
	if len(tr.Layers) != m.Config.Layers {
		return nil, fmt.Errorf("pipeline: the trace has %d blocks, the model %d", len(tr.Layers), m.Config.Layers)
	}
	keys, err := r.setupAggregated(&opts, len(opts.Prompt), len(rep.Output), setup.LoadOrSetup)
	if err != nil {
		return nil, err
	}
	rep.Constraints = keys.SegmentConstraints
	var (
		st       statement.Statement
		aggProof groth16.Proof
	)
	if keys.Tensors == Committed {
		st, aggProof, err = r.proveCommitted(&opts, keys, opts.Prompt, rep.Output, tr)
	} else {
		st, aggProof, err = r.proveOpened(&opts, keys, rep.Output, tr)
	}
	if err != nil {
		return nil, err
	}
	if !opts.Wrap {
		err := r.stage("wrapper (gnark test engine)", func() (string, error) {
			placeholder, err := recursion.NewWrapper(keys.aggregatorCommitments)
			if err != nil {
				return "", err
			}
			assignment, final, err := recursion.WrapperAssignment(aggProof, keys.Aggregator.VK, st)
			if err != nil {
				return "", err
			}
			rep.Statement = final
			return "solved", test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField())
		})
		return rep, err
	}
	if err := r.stage("wrapper proof", func() (string, error) {
		var err error
		pk, err := r.provingKey(keys.Wrapper)
		if err != nil {
			return "", err
		}
		wrapper := *keys.Wrapper
		wrapper.PK = pk
		if wrapper.CCS, err = keys.circuit(keys.Wrapper); err != nil {
			return "", err
		}
		rep.Proof, rep.Statement, err = recursion.Wrap(aggProof, keys.Aggregator.VK, st, &wrapper)
		if err != nil {
			return "", err
		}
		if rep.ProofBytes, err = proofSize(rep.Proof); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d bytes, verified", rep.ProofBytes), nil
	}); err != nil {
		return nil, err
	}
	if rep.Statement.ModelID.Cmp(keys.FinalModelID) != 0 {
		return nil, fmt.Errorf("pipeline: the wrapper states model id %#x, the keys give %#x", rep.Statement.ModelID, keys.FinalModelID)
	}
	if opts.Chain {
		if err := r.onChain(ctx, keys.Wrapper.VK, rep.Proof, rep.Statement); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// proveOpened runs the proving stages of the aggregated shape over opened
// tensors: the native segment proofs, one Groth16 proof per segment
// circuit and their aggregation.
func (r *runner) proveOpened(opts *AggregatedOptions, keys *AggregatedKeys, output []int, tr *model.Trace) (statement.Statement, groth16.Proof, error) {
	m := opts.Model
	segs := keys.Segments
	var (
		st       statement.Statement
		natives  []*inference.SegmentProof[bls12377fr.Element]
		chains   []bls12377fr.Element
		proofs   []groth16.Proof
		publics  []recursion.SegmentPublic
		aggProof groth16.Proof
	)
	if err := r.stage("native segment proofs", func() (string, error) {
		var err error
		if st, err = statement.Of[bls12377fr.Element](keys.ModelID, opts.Prompt, output); err != nil {
			return "", err
		}
		natives, chains, err = inference.ProveSegments[bls12377fr.Element](m, st, tr, segs)
		if err != nil {
			return "", err
		}
		for k, seg := range segs {
			if err := inference.VerifySegment[bls12377fr.Element](m, st, opts.Prompt, output, seg, chains[k], chains[k+1], natives[k]); err != nil {
				return "", fmt.Errorf("segment %d: %w", k, err)
			}
		}
		return fmt.Sprintf("%d segments, verified natively", len(segs)), nil
	}); err != nil {
		return st, nil, err
	}
	if err := r.stage("segment groth16 proofs", func() (string, error) {
		for k, seg := range segs {
			start := time.Now()
			assignment, err := keys.Layout.AssignSegment(seg, st, opts.Prompt, output, chains[k], chains[k+1], natives[k])
			if err != nil {
				return "", err
			}
			w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
			if err != nil {
				return "", err
			}
			proof, err := groth16.Prove(keys.Segment[k].CCS, keys.Segment[k].PK, w, recursion.SegmentProverOption())
			if err != nil {
				return "", fmt.Errorf("segment %d: %w", k, err)
			}
			public, err := recursion.SegmentPublicOf(w)
			if err != nil {
				return "", err
			}
			proofs, publics = append(proofs, proof), append(publics, public)
			r.logf("  %s: proven in %v", segmentName(k, segs), time.Since(start).Round(time.Millisecond))
		}
		return fmt.Sprintf("%d proofs", len(proofs)), nil
	}); err != nil {
		return st, nil, err
	}
	if err := r.stage("aggregation", func() (string, error) {
		var err error
		aggProof, _, err = recursion.Aggregate(proofs, keys.segmentVKs(), publics, keys.Graph, keys.Aggregator)
		return "verified", err
	}); err != nil {
		return st, nil, err
	}
	return st, aggProof, nil
}
