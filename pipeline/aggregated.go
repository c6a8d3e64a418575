package pipeline

import (
	"context"
	"fmt"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
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
}

// AggregatedProof is the aggregator's BW6-761 proof of a run, verified
// on Statement (the aggregator's model id): what the wrapper proves. A
// run without AggregatedOptions.Wrap ends with it.
type AggregatedProof struct {
	Proof     groth16.Proof
	Key       groth16.VerifyingKey
	Statement statement.Statement
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
	keys, err := r.setupAggregated(&opts, len(opts.Prompt), len(rep.Output))
	if err != nil {
		return nil, err
	}
	rep.Constraints = keys.SegmentConstraints
	st, aggProof, err := r.proveAggregated(&opts, keys, opts.Prompt, rep.Output, tr)
	if err != nil {
		return nil, err
	}
	rep.Aggregated = &AggregatedProof{Proof: aggProof, Key: keys.Aggregator.VK, Statement: st, Commitments: keys.Catalog.aggregatorCommitments}
	if !opts.Wrap {
		final := st
		final.ModelID = keys.FinalModelID
		rep.Statement = final
		return rep, nil
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
