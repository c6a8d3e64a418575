package pipeline

import (
	"context"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/statement"
)

// AggregatedOptions configure a run of the aggregated proof shape.
type AggregatedOptions struct {
	Options
	// SegmentSize is the number of blocks per segment (1 by default).
	SegmentSize int
	// Wrap runs the BN254 wrapper's Groth16 setup (about 40 minutes and
	// 14 GB on 2 cores the first time), proof and, with Chain, the
	// on-chain check; otherwise the wrapper circuit is checked with gnark's
	// test engine on the aggregator's proof.
	Wrap bool
}

// RunAggregated proves a greedy generation in the aggregated shape: the
// pass cut into segments, one BLS12-377 Groth16 proof per segment, their
// BW6-761 aggregation, and the BN254 wrapper (proven with Wrap, solved by
// gnark's test engine otherwise).
func RunAggregated(ctx context.Context, opts AggregatedOptions) (*Report, error) {
	if opts.Model == nil {
		opts.Model = model.Default()
	}
	if opts.SegmentSize == 0 {
		opts.SegmentSize = 1
	}
	if len(opts.Prompt) == 0 || opts.Tokens < 1 {
		return nil, fmt.Errorf("pipeline: need a prompt and at least one token to generate")
	}
	if opts.CacheDir == "" {
		dir, err := recursion.DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		opts.CacheDir = dir
	}
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt}}
	rep := r.report
	m := opts.Model
	var (
		tr       *model.Trace
		layout   *circuits.Layout
		segs     []inference.Segment
		keys     []*recursion.Keys
		vks      []groth16.VerifyingKey
		graph    bls12377fr.Element
		st       statement.Statement
		natives  []*inference.SegmentProof[bls12377fr.Element]
		chains   []bls12377fr.Element
		proofs   []groth16.Proof
		publics  []recursion.SegmentPublic
		aggKeys  *recursion.Keys
		aggProof groth16.Proof
	)
	if err := r.stage("inference", func() (string, error) {
		var err error
		rep.Output, tr, err = inference.Generate(m, opts.Prompt, opts.Tokens)
		if err != nil {
			return "", err
		}
		segs, err = inference.Segments(len(tr.Layers), opts.SegmentSize)
		return fmt.Sprintf("%d tokens generated, %d segments", len(rep.Output), len(segs)), err
	}); err != nil {
		return nil, err
	}
	if len(segs) > recursion.MaxArity {
		return nil, fmt.Errorf("pipeline: %d segments exceed the aggregator's arity %d (raise the segment size)", len(segs), recursion.MaxArity)
	}
	if err := r.stage("segment circuits and keys (setup or cache)", func() (string, error) {
		var err error
		if layout, err = circuits.NewLayout(m, len(opts.Prompt), len(rep.Output)); err != nil {
			return "", err
		}
		total := 0
		for _, seg := range segs {
			placeholder, err := layout.SegmentPlaceholder(seg)
			if err != nil {
				return "", err
			}
			ccs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
			if err != nil {
				return "", err
			}
			k, err := recursion.LoadOrSetupKeys(ccs, opts.CacheDir)
			if err != nil {
				return "", err
			}
			keys, vks = append(keys, k), append(vks, k.VK)
			total += ccs.GetNbConstraints()
		}
		rep.Constraints = total
		return fmt.Sprintf("%d circuits, %d R1CS constraints in all", len(segs), total), nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("native segment proofs", func() (string, error) {
		graph.SetBigInt(statement.ModelID(m))
		id, err := recursion.ModelID(vks, graph)
		if err != nil {
			return "", err
		}
		digests, err := statement.New[bls12377fr.Element](m, opts.Prompt, rep.Output)
		if err != nil {
			return "", err
		}
		st = statement.Statement{ModelID: id, InputDigest: digests.InputDigest, OutputDigest: digests.OutputDigest}
		natives, chains, err = inference.ProveSegments[bls12377fr.Element](m, st, tr, segs)
		if err != nil {
			return "", err
		}
		for k, seg := range segs {
			if err := inference.VerifySegment[bls12377fr.Element](m, st, opts.Prompt, rep.Output, seg, chains[k], chains[k+1], natives[k]); err != nil {
				return "", fmt.Errorf("segment %d: %w", k, err)
			}
		}
		return "verified natively", nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("segment groth16 proofs", func() (string, error) {
		for k, seg := range segs {
			assignment, err := layout.AssignSegment(seg, st, opts.Prompt, rep.Output, chains[k], chains[k+1], natives[k])
			if err != nil {
				return "", err
			}
			w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
			if err != nil {
				return "", err
			}
			proof, err := groth16.Prove(keys[k].CCS, keys[k].PK, w, recursion.SegmentProverOption())
			if err != nil {
				return "", fmt.Errorf("segment %d: %w", k, err)
			}
			public, err := recursion.SegmentPublicOf(w)
			if err != nil {
				return "", err
			}
			proofs, publics = append(proofs, proof), append(publics, public)
		}
		return fmt.Sprintf("%d proofs", len(proofs)), nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("aggregator keys (setup or cache)", func() (string, error) {
		shape, err := recursion.SegmentShapeOf(keys[0].CCS)
		if err != nil {
			return "", err
		}
		ccs, err := recursion.CompileAggregator(len(segs), shape)
		if err != nil {
			return "", err
		}
		aggKeys, err = recursion.LoadOrSetupKeys(ccs, opts.CacheDir)
		return fmt.Sprintf("BW6-761, %d R1CS constraints", ccs.GetNbConstraints()), err
	}); err != nil {
		return nil, err
	}
	if err := r.stage("aggregation", func() (string, error) {
		var err error
		aggProof, _, err = recursion.Aggregate(proofs, vks, publics, graph, aggKeys)
		return "verified", err
	}); err != nil {
		return nil, err
	}
	if !opts.Wrap {
		err := r.stage("wrapper (gnark test engine)", func() (string, error) {
			placeholder, err := recursion.NewWrapper(recursion.AggregatorCommitments(aggKeys.CCS))
			if err != nil {
				return "", err
			}
			assignment, final, err := recursion.WrapperAssignment(aggProof, aggKeys.VK, st)
			if err != nil {
				return "", err
			}
			rep.Statement = final
			return "solved", test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField())
		})
		return rep, err
	}
	var wrapKeys *recursion.Keys
	if err := r.stage("wrapper keys (setup or cache)", func() (string, error) {
		ccs, err := recursion.CompileWrapper(recursion.AggregatorCommitments(aggKeys.CCS))
		if err != nil {
			return "", err
		}
		wrapKeys, err = recursion.LoadOrSetupKeys(ccs, opts.CacheDir)
		return fmt.Sprintf("BN254, %d R1CS constraints", ccs.GetNbConstraints()), err
	}); err != nil {
		return nil, err
	}
	if err := r.stage("wrapper proof", func() (string, error) {
		var err error
		rep.Proof, rep.Statement, err = recursion.Wrap(aggProof, aggKeys.VK, st, wrapKeys)
		return "verified", err
	}); err != nil {
		return nil, err
	}
	if opts.Chain {
		if err := r.onChain(ctx, wrapKeys.VK, rep.Proof, rep.Statement); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
