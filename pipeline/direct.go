package pipeline

import (
	"context"
	"fmt"
	"math/big"

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
	rows, err := Rows(m, len(opts.Prompt), opts.Tokens, opts.Bucket)
	if err != nil {
		return nil, err
	}
	var (
		id     *big.Int
		req    statement.Request
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
		req, tr, err = inference.Generate(m, opts.Prompt, opts.Tokens, rows)
		if err != nil {
			return "", err
		}
		rep.Output, rep.Rows = req.Output, req.Rows
		id = r.modelID()
		st, err = statement.Of[bn254fr.Element](id, opts.Prompt, rep.Output)
		rep.Statement, rep.List = st, st.List()
		return fmt.Sprintf("%d tokens generated, a pass of %d rows in the bucket of %d", len(rep.Output), req.Len(), req.Rows), err
	}); err != nil {
		return nil, err
	}
	r.generated(rep.Output)
	if proof, err = r.proveNative(id, st, req, tr); err != nil {
		return nil, err
	}
	tr = nil // the pass is no longer needed: the circuits take the proof
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
	if final, err = r.proveDirect(layout, st, req, proof, ccs, pk, vk); err != nil {
		return nil, err
	}
	if !opts.Chain {
		return rep, nil
	}
	if err := r.onChain(ctx, vk, final, st.List()); err != nil {
		return rep, err
	}
	return rep, nil
}

// proveNative runs the native stages of a direct run: the sum-check proof
// of the pass tr, recorded in the report, and its verification, which
// takes its shapes, ranges and constants from the prover's pass.
func (r *runner) proveNative(id *big.Int, st statement.Statement, req statement.Request, tr *model.Trace) (*inference.Proof[bn254fr.Element], error) {
	rep, m := r.report, r.opts.Model
	var proof *inference.Proof[bn254fr.Element]
	if err := r.stage("native proof", func() (string, error) {
		var err error
		proof, err = inference.Prove[bn254fr.Element](m, st, req, tr)
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
		return "", inference.VerifyPass[bn254fr.Element](m, id, tr, st, req, proof)
	}); err != nil {
		return nil, err
	}
	return proof, nil
}

// proveDirect runs the Groth16 stages of a direct run: the direct
// circuit's proof of the native proof, recorded in the report with its
// key, and its verification on the statement's digest.
func (r *runner) proveDirect(layout *circuits.Layout, st statement.Statement, req statement.Request, proof *inference.Proof[bn254fr.Element], ccs constraint.ConstraintSystem, pk groth16.ProvingKey, vk groth16.VerifyingKey) (groth16.Proof, error) {
	rep := r.report
	var final groth16.Proof
	if err := r.stage("groth16 proof", func() (string, error) {
		assignment, err := layout.Assign(st, req, proof)
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
		rep.Proof, rep.VerifyingKey = final, vk
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
	return final, nil
}

// publicWitness returns the BN254 public witness of a direct proof of the
// statement: its digest.
func publicWitness(st statement.Statement) (witnessPublic, error) {
	return circuits.PublicWitness(st)
}
