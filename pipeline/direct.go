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

	"github.com/veriformer/veriformer/circuits"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// Options configure a run of the direct design.
type Options struct {
	// Model is the model to prove (model.Default() if nil).
	Model *model.Model
	// Prompt is the input tokens; Tokens the number of tokens to generate.
	Prompt []int
	Tokens int
	// CacheDir holds proving and verifying keys by circuit hash ("" for
	// the default, see setup.DefaultCacheDir).
	CacheDir string
	// KeyKind, when set, accepts only keys of that kind (setup.Ceremony:
	// no development keys, no development setup).
	KeyKind setup.Kind
	// Chain runs the on-chain check on go-ethereum's simulated chain.
	Chain bool
	// Verifier is the Solidity verifier deployed and submitted to
	// (solidity.Merged by default); the other is measured beside it.
	Verifier solidity.Template
	// Log receives progress lines (nil for none).
	Log io.Writer
	// Generated, if set, receives the generated tokens as soon as
	// inference is done, before any proof.
	Generated func(output []int)
}

// defaults fills in the model and the key cache directory.
func (opts *Options) defaults() error {
	if opts.Model == nil {
		opts.Model = model.Default()
	}
	var err error
	opts.CacheDir, err = keyCacheDir(opts.CacheDir)
	return err
}

// checkRun checks the inputs of a run.
func (opts *Options) checkRun() error {
	if len(opts.Prompt) == 0 || opts.Tokens < 1 {
		return fmt.Errorf("pipeline: need a prompt and at least one token to generate")
	}
	return nil
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
	// Aggregated is the aggregator's proof of an aggregated run (nil in
	// the direct design).
	Aggregated *AggregatedProof
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
	// keepWrapper keeps the wrapper's compiled circuit after its key
	// stage, which a committed run drops: an exporter checks the keys
	// against it.
	keepWrapper bool
}

// generated hands the generated tokens to Options.Generated.
func (r *runner) generated(output []int) {
	if r.opts.Generated != nil {
		r.opts.Generated(output)
	}
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

// RunDirect proves a greedy generation of the model in the direct design
// (one BN254 Groth16 proof), verifies it natively and, with Options.Chain,
// on go-ethereum's simulated chain through the exported Solidity verifier.
// With Chain, solcjs must be found before anything is proven; if the
// on-chain check then fails, the report of the verified proof is returned
// with the error.
func RunDirect(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.checkRun(); err != nil {
		return nil, err
	}
	if opts.Chain {
		if err := checkSolc(); err != nil {
			return nil, err
		}
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	r := &runner{opts: &opts, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}}
	m := opts.Model
	var (
		id     *big.Int
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
	// The model is hashed once (id) and run three times: twice in
	// Generate (incremental decoding, then the pass the proof covers),
	// once for the layout's shape pass. The native verification takes the
	// prover's pass over instead of running a shape pass of its own.
	if err := r.stage("inference", func() (string, error) {
		var err error
		rep.Output, tr, err = inference.Generate(m, opts.Prompt, opts.Tokens)
		if err != nil {
			return "", err
		}
		id = m.ID()
		st, err = statement.Of[bn254fr.Element](id, opts.Prompt, rep.Output)
		rep.Statement = st
		return fmt.Sprintf("%d tokens generated", len(rep.Output)), err
	}); err != nil {
		return nil, err
	}
	r.generated(rep.Output)
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
		// The verifier takes its shapes, ranges and constants from the
		// prover's pass, which has those of a shape pass; the proof's
		// opened tensors replace the pass's.
		err := inference.VerifyPass[bn254fr.Element](m, id, tr, st, opts.Prompt, rep.Output, proof)
		tr = nil
		return "", err
	}); err != nil {
		return nil, err
	}
	if err := r.stage("circuit compilation", func() (string, error) {
		cat, err := r.catalog(Direct, &AggregatedOptions{Options: opts}, len(opts.Prompt), len(rep.Output), nil)
		if err != nil {
			return "", err
		}
		layout = cat.Layout
		if ccs, err = cat.Circuits[0].Compile(); err != nil {
			return "", err
		}
		rep.Constraints = ccs.GetNbConstraints()
		return fmt.Sprintf("%d R1CS constraints", rep.Constraints), nil
	}); err != nil {
		return nil, err
	}
	if err := r.stage("keys (setup or cache)", func() (string, error) {
		keys, err := setup.LoadOrSetup(ccs, opts.CacheDir, r.keyOptions()...)
		if err != nil {
			return "", err
		}
		pk, vk = keys.PK, keys.VK
		return fmt.Sprintf("%s keys, circuit %.16s, cache %s", keys.Manifest.Kind, keys.Manifest.Circuit, opts.CacheDir), nil
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
		return rep, err
	}
	return rep, nil
}

// publicWitness returns the BN254 public witness of a direct proof of the
// statement: its digest.
func publicWitness(st statement.Statement) (witnessPublic, error) {
	return circuits.PublicWitness(st)
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
