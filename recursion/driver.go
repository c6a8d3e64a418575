package recursion

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// AggregatorWitness returns the public witness of an aggregator proof
// (field: BW6-761's scalar field) of the list l, whose model id is the
// aggregator's: the model id and the list digest.
func AggregatorWitness(l statement.List) (witness.Witness, error) {
	list, err := l.ListDigest()
	if err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	w, err := witness.New(ecc.BW6_761.ScalarField())
	if err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	ch := make(chan any, 2)
	ch <- new(big.Int).Set(l.ModelID)
	ch <- list
	close(ch)
	if err := w.Fill(2, 0, ch); err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	return w, nil
}

// VerifyAggregated verifies an aggregator proof of the list l (its model
// id the aggregator's) natively.
func VerifyAggregated(proof groth16.Proof, key groth16.VerifyingKey, l statement.List) error {
	w, err := AggregatorWitness(l)
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, AggregatorVerifierOption()); err != nil {
		return fmt.Errorf("recursion: aggregator proof: %w", err)
	}
	return nil
}

// WrapperWitness returns the public witness of a wrapper proof of the
// final list: its statement digest (statement.List.Digest), the one
// public input.
func WrapperWitness(final statement.List) (witness.Witness, error) {
	digest, err := final.Digest()
	if err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	w, err := witness.New(ecc.BN254.ScalarField())
	if err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	ch := make(chan any, 1)
	ch <- digest
	close(ch)
	if err := w.Fill(1, 0, ch); err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	return w, nil
}

func checkStatement(s statement.Statement) error {
	if s.ModelID == nil || s.InputDigest == nil || s.OutputDigest == nil {
		return errors.New("recursion: statement with a missing value")
	}
	if s.ModelID.Sign() < 0 || s.ModelID.BitLen() > ModelIDBits {
		return fmt.Errorf("recursion: statement model id is not a %d-bit integer", ModelIDBits)
	}
	for _, v := range []*big.Int{s.InputDigest, s.OutputDigest} {
		if v.Sign() < 0 || v.Cmp(ecc.BLS12_377.ScalarField()) >= 0 {
			return errors.New("recursion: statement digest is not a canonical BLS12-377 scalar")
		}
	}
	return nil
}

// Keys is a compiled outer circuit with its Groth16 keys, as package setup
// loads, checks and caches them ([setup.LoadOrSetup]).
type Keys = setup.Keys

// CompileWrapper compiles the wrapper for aggregators with nbCommitments
// commitments ([AggregatorCommitments]).
func CompileWrapper(nbCommitments int) (constraint.ConstraintSystem, error) {
	c, err := NewWrapper(nbCommitments)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile wrapper: %w", err)
	}
	return ccs, nil
}

// AggregatorCommitments returns the number of Pedersen commitments of a
// compiled aggregator — the wrapper's shape parameter.
func AggregatorCommitments(ccs constraint.ConstraintSystem) int {
	return len(ccs.GetCommitments().CommitmentIndexes())
}

// WrapperAssignment returns the full wrapper assignment for an aggregator
// proof of the list inner (its model id the aggregator's), by the
// aggregator of the bucket in slot slot of the deployment dep, and the
// final list it proves (the model id replaced by
// [Deployment.FinalModelID]). The slot's leaf must be the aggregator's
// ([BucketLeaf]).
func WrapperAssignment(proof groth16.Proof, key groth16.VerifyingKey, inner statement.List, dep *Deployment, slot int) (*Wrapper, statement.List, error) {
	list, err := inner.ListDigest()
	if err != nil {
		return nil, statement.List{}, fmt.Errorf("recursion: %w", err)
	}
	p, vk, err := ValueOfAggregatorProof(proof, key)
	if err != nil {
		return nil, statement.List{}, err
	}
	if dep == nil {
		return nil, statement.List{}, fmt.Errorf("recursion: wrapper: no deployment")
	}
	leaf, err := BucketLeaf(slot, key, inner.ModelID)
	if err != nil {
		return nil, statement.List{}, err
	}
	if dep.Leaves[slot] == nil || dep.Leaves[slot].Cmp(leaf) != 0 {
		return nil, statement.List{}, fmt.Errorf("recursion: wrapper: the deployment's slot %d does not hold this aggregator's leaf", slot)
	}
	path, err := dep.Path(slot)
	if err != nil {
		return nil, statement.List{}, err
	}
	finalID, err := dep.FinalModelID()
	if err != nil {
		return nil, statement.List{}, err
	}
	final := statement.List{ModelID: finalID, Leaves: inner.Leaves}
	digest, err := final.Digest()
	if err != nil {
		return nil, statement.List{}, fmt.Errorf("recursion: %w", err)
	}
	return &Wrapper{
		StatementDigest: digest,
		ModelID:         finalID,
		ListDigest:      list,
		InnerModelID:    new(big.Int).Set(inner.ModelID),
		ModelDigest:     new(big.Int).Set(dep.ModelDigest),
		Slot:            slot,
		Path:            [BucketDepth]frontend.Variable(bigs(path[:])),
		Proof:           p,
		Key:             vk,
	}, final, nil
}

// Wrap proves, with the wrapper keys, that the aggregator proof of the
// list inner verifies under the aggregator key, that of the bucket in
// slot slot of the deployment dep; it returns the BN254 proof (made for
// gnark's Solidity verifier) and the final list, whose digest is the
// on-chain public input.
func Wrap(proof groth16.Proof, key groth16.VerifyingKey, inner statement.List, dep *Deployment, slot int, wrapper *Keys) (groth16.Proof, statement.List, error) {
	if err := VerifyAggregated(proof, key, inner); err != nil {
		return nil, statement.List{}, err
	}
	assignment, final, err := WrapperAssignment(proof, key, inner, dep, slot)
	if err != nil {
		return nil, statement.List{}, err
	}
	wrapped, err := prove(wrapper, assignment, ecc.BN254.ScalarField(), solidity.WithProverTargetSolidityVerifier(backend.GROTH16))
	if err != nil {
		return nil, statement.List{}, fmt.Errorf("recursion: wrap: %w", err)
	}
	if err := VerifyWrapped(wrapped, wrapper.VK, final); err != nil {
		return nil, statement.List{}, fmt.Errorf("recursion: wrap: fresh proof: %w", err)
	}
	return wrapped, final, nil
}

// VerifyWrapped verifies a wrapper proof of the final list natively, as
// the Solidity verifier does.
func VerifyWrapped(proof groth16.Proof, key groth16.VerifyingKey, final statement.List) error {
	w, err := WrapperWitness(final)
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
		return fmt.Errorf("recursion: wrapper proof: %w", err)
	}
	return nil
}

func prove(keys *Keys, assignment frontend.Circuit, field *big.Int, opt backend.ProverOption) (groth16.Proof, error) {
	w, err := frontend.NewWitness(assignment, field)
	if err != nil {
		return nil, fmt.Errorf("witness: %w", err)
	}
	proof, err := groth16.Prove(keys.CCS, keys.PK, w, opt)
	if err != nil {
		return nil, fmt.Errorf("prove: %w", err)
	}
	return proof, nil
}

// bigs returns the values as circuit assignments.
func bigs(xs []*big.Int) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
