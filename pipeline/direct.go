package pipeline

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// Options configure a run of the direct proof shape.
type Options struct {
	// Model is the model to prove (model.Default() if nil).
	Model *model.Model
	// Prompt is the input tokens; Tokens the number of tokens to generate.
	Prompt []int
	Tokens int
	// CacheDir holds proving and verifying keys by circuit hash ("" for
	// the default, see recursion.DefaultCacheDir).
	CacheDir string
	// Chain runs the on-chain check on go-ethereum's simulated chain.
	Chain bool
	// Verifier is the Solidity verifier deployed and submitted to
	// (solidity.Merged by default); the other is measured beside it.
	Verifier solidity.Template
	// Log receives progress lines (nil for none).
	Log io.Writer
}

// Stage is one timed step of a run.
type Stage struct {
	Name     string
	Duration time.Duration
	Note     string
}

// Report is the outcome of a run: what was proven and what it cost.
type Report struct {
	Prompt, Output []int
	Statement      statement.Statement
	Constraints    int
	ProofBytes     int
	Stages         []Stage
	// Gas used by a transaction calling the verifier alone and by the
	// registry submission (0 when the chain was not used); VerifyGasLimit
	// is the gas limit the verifier call needs (eth_estimateGas).
	VerifyGas, SubmitGas, VerifyGasLimit uint64
	// OtherVerifyGas is the gas used by the other template's verifier
	// (gnark's unmodified one when Verifier is solidity.Merged) on the
	// same proof.
	OtherVerifyGas uint64
	// Verifier is the template of the deployed verifier.
	Verifier   solidity.Template
	Deployment *solidity.Deployment
	// Contracts are the compiled verifier and registry (nil without chain);
	// OtherContracts those of the other template, measured beside them.
	Contracts, OtherContracts *solidity.Contracts
	// Proof is the final Groth16 proof; NativeProof the sum-check proof it
	// verifies (inference.Proof, binary format).
	Proof       groth16.Proof
	NativeProof []byte
	// PeakHeap is the largest heap size seen between stages.
	PeakHeap uint64
}

// proofSize is the length of gnark's (compressed) encoding of a proof.
func proofSize(p groth16.Proof) (int, error) {
	var buf countWriter
	if _, err := p.WriteTo(&buf); err != nil {
		return 0, err
	}
	return int(buf), nil
}

type runner struct {
	opts   *Options
	report *Report
}

func (r *runner) logf(format string, args ...any) {
	if r.opts.Log != nil {
		fmt.Fprintf(r.opts.Log, format+"\n", args...)
	}
}

// stage runs f, timing it and logging its start and end.
func (r *runner) stage(name string, f func() (string, error)) error {
	r.logf("• %s …", name)
	start := time.Now()
	note, err := f()
	d := time.Since(start)
	if err != nil {
		r.logf("  %s failed after %v: %v", name, d.Round(time.Millisecond), err)
		return fmt.Errorf("%s: %w", name, err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	r.report.PeakHeap = max(r.report.PeakHeap, ms.HeapSys)
	r.report.Stages = append(r.report.Stages, Stage{Name: name, Duration: d, Note: note})
	if note != "" {
		r.logf("  done in %v (%s)", d.Round(time.Millisecond), note)
	} else {
		r.logf("  done in %v", d.Round(time.Millisecond))
	}
	return nil
}

// RunDirect proves a greedy generation of the model in the direct shape
// (one BN254 Groth16 proof), verifies it natively and, with Options.Chain,
// on go-ethereum's simulated chain through the exported Solidity verifier.
func RunDirect(ctx context.Context, opts Options) (*Report, error) {
	if opts.Model == nil {
		opts.Model = model.Default()
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
	r := &runner{opts: &opts, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}}
	m := opts.Model
	var (
		tr     *model.Trace
		st     statement.Statement
		proof  *inference.Proof[bn254fr.Element]
		layout *circuits.Layout
		ccs    constraint.ConstraintSystem
		pk     groth16.ProvingKey
		vk     groth16.VerifyingKey
		final  groth16.Proof
	)
	rep := r.report
	if err := r.stage("inference", func() (string, error) {
		var err error
		rep.Output, tr, err = inference.Generate(m, opts.Prompt, opts.Tokens)
		if err != nil {
			return "", err
		}
		st, err = statement.New[bn254fr.Element](m, opts.Prompt, rep.Output)
		rep.Statement = st
		return fmt.Sprintf("%d tokens generated", len(rep.Output)), err
	}); err != nil {
		return nil, err
	}
	if err := r.stage("native proof", func() (string, error) {
		var err error
		proof, err = inference.Prove[bn254fr.Element](m, st, opts.Prompt, rep.Output, tr)
		if err != nil {
			return "", err
		}
		if rep.NativeProof, err = proof.MarshalBinary(); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d opened tensors, %d layers, %d bytes", len(proof.Tensors), len(proof.Layers), len(rep.NativeProof)), nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("native verification", func() (string, error) {
		return "", inference.Verify[bn254fr.Element](m, st, opts.Prompt, rep.Output, proof)
	}); err != nil {
		return nil, err
	}
	if err := r.stage("circuit compilation", func() (string, error) {
		var err error
		layout, err = circuits.NewLayout(m, len(opts.Prompt), len(rep.Output))
		if err != nil {
			return "", err
		}
		placeholder, err := layout.Placeholder()
		if err != nil {
			return "", err
		}
		ccs, err = frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder)
		if err != nil {
			return "", err
		}
		rep.Constraints = ccs.GetNbConstraints()
		return fmt.Sprintf("%d R1CS constraints", rep.Constraints), nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("keys (setup or cache)", func() (string, error) {
		hash, err := recursion.CircuitHash(ccs)
		if err != nil {
			return "", err
		}
		pk, vk, err = recursion.LoadOrSetup(ccs, opts.CacheDir)
		return "circuit " + hash[:16] + ", cache " + opts.CacheDir, err
	}); err != nil {
		return nil, err
	}
	if err := r.stage("groth16 proof", func() (string, error) {
		assignment, err := layout.Assign(st, opts.Prompt, rep.Output, proof)
		if err != nil {
			return "", err
		}
		w, err := frontend.NewWitness(assignment, ecc.BN254.ScalarField())
		if err != nil {
			return "", err
		}
		final, err = groth16.Prove(ccs, pk, w, solidity.ProverOptions()...)
		if err != nil {
			return "", err
		}
		rep.Proof = final
		if rep.ProofBytes, err = proofSize(final); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d bytes", rep.ProofBytes), nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("groth16 verification", func() (string, error) {
		public, err := publicWitness(st)
		if err != nil {
			return "", err
		}
		return "", groth16.Verify(final, vk, public, solidity.VerifierOptions()...)
	}); err != nil {
		return nil, err
	}
	if !opts.Chain {
		return rep, nil
	}
	if err := r.onChain(ctx, vk, final, st); err != nil {
		return nil, err
	}
	return rep, nil
}

// publicWitness returns the BN254 public witness of a direct proof of the
// statement: its digest.
func publicWitness(st statement.Statement) (witnessPublic, error) {
	return circuits.PublicWitness(st)
}

// SolidityStatement converts a statement for the solidity package.
func SolidityStatement(st statement.Statement) solidity.Statement {
	return solidity.Statement{ModelID: new(big.Int).Set(st.ModelID), InputDigest: new(big.Int).Set(st.InputDigest), OutputDigest: new(big.Int).Set(st.OutputDigest)}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
