package pipeline

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"time"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// Options configure a run of the direct design.
type Options struct {
	// Model is the model to prove (model.Default() if nil).
	Model *model.Model
	// ModelDir is the directory Model was loaded from (model.Load), ""
	// for a built-in model: a run on workers sends them its files.
	// ModelName is a built-in model's name ("" to find it among the
	// built-in models): a run's workers rebuild it by that name.
	ModelDir, ModelName string
	// Prompt is the input tokens; Tokens the number of tokens to generate.
	Prompt []int
	Tokens int
	// Bucket is the row bucket of the circuits: the rows of the pass
	// that proves the request (0 for the smallest that holds it,
	// statement.Bucket). One set of circuits and keys serves every
	// request whose pass fits its bucket.
	Bucket int
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

// Rows returns the rows of the pass that proves a prompt of promptLen
// tokens and outputLen generated ones of m: bucket when it is set (a
// power of two or the context, at least the pass's rows), else the
// smallest bucket that holds the pass (statement.Bucket).
func Rows(m *model.Model, promptLen, outputLen, bucket int) (int, error) {
	if promptLen < 1 || outputLen < 1 {
		return 0, fmt.Errorf("pipeline: circuits for %d prompt and %d generated tokens: want at least 1 of each", promptLen, outputLen)
	}
	n, context := promptLen+outputLen-1, m.Config.MaxPositions
	if n > context {
		return 0, fmt.Errorf("pipeline: %d prompt and %d generated tokens need %d positions, beyond the model's context of %d", promptLen, outputLen, n, context)
	}
	need := statement.Bucket(n, context)
	switch {
	case bucket == 0:
		return need, nil
	case bucket < n:
		return 0, fmt.Errorf("pipeline: %d prompt and %d generated tokens need a bucket of at least %d rows (bucket %d); asked for %d", promptLen, outputLen, n, need, bucket)
	case bucket > context:
		return 0, fmt.Errorf("pipeline: a bucket of %d rows is beyond the model's context of %d", bucket, context)
	case bucket&(bucket-1) != 0 && bucket != context:
		return 0, fmt.Errorf("pipeline: a bucket of %d rows: want a power of two or the context (%d)", bucket, context)
	}
	return bucket, nil
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
	// Rows is the row bucket of the pass that proved them.
	Rows int
	// Statement is the pass's statement under the final model id: a
	// request's (model id, input digest, output digest), a batch's
	// (model id, list digest, count). List is what the final proof
	// states: the model id and the leaves, the one request or turn of a
	// single pass or the batch's requests.
	Statement   statement.Statement
	List        statement.List
	Constraints int
	ProofBytes  int
	Stages      []Stage
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
	// Proof is the final Groth16 proof, VerifyingKey its key;
	// NativeProof the sum-check proof it verifies (inference.Proof,
	// binary format).
	Proof        groth16.Proof
	VerifyingKey groth16.VerifyingKey
	NativeProof  []byte
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
	// id is the model's id (model.Model.ID), hashed once per run.
	id *big.Int
	// ctx is the run's context (context.Background when nil).
	ctx context.Context
	// wrapped holds the outputs of a run whose wrapper was a job on the
	// workers (nil otherwise).
	wrapped *jobsOut
	// circuitsFrom is a circuit cache read before the one a compile
	// writes to, never written (a worker's view of a trusted cache; ""
	// for none).
	circuitsFrom string
	// scope names the other aggregator of the deployment whose keys the
	// stages are of ("" for the run's own).
	scope string
}

// context returns the run's context.
func (r *runner) context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}

// modelID returns the model's id, hashing every weight the first time.
func (r *runner) modelID() *big.Int {
	if r.id == nil {
		r.id = r.opts.Model.ID()
	}
	return r.id
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
	if r.scope != "" {
		name += " (" + r.scope + ")"
	}
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

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
