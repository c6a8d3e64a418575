package recursion

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/solidity"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/statement"
)

// StatementWitness returns the public witness of an aggregator proof (field
// BW6-761 Fr) for a statement. The
// model id must have at most 250 bits and the digests be canonical
// BLS12-377 scalars, as the aggregator enforces.
func StatementWitness(field *big.Int, s statement.Statement) (witness.Witness, error) {
	if err := checkStatement(s); err != nil {
		return nil, err
	}
	var values [3]bls12377fr.Element
	for i, v := range []*big.Int{s.ModelID, s.InputDigest, s.OutputDigest} {
		values[i].SetBigInt(v)
	}
	return publicWitness(field, values[:]...)
}

// TurnStatementWitness returns the public witness of a turn
// aggregator's proof (field: BW6-761's scalar field): the statement's
// three values, then the states in and out.
func TurnStatementWitness(field *big.Int, s statement.Statement, stateIn, stateOut *big.Int) (witness.Witness, error) {
	if err := checkStatement(s); err != nil {
		return nil, err
	}
	var values [TurnAggregatorPublicInputs]bls12377fr.Element
	for i, v := range []*big.Int{s.ModelID, s.InputDigest, s.OutputDigest, stateIn, stateOut} {
		if v == nil || v.Sign() < 0 || v.BitLen() > 253 {
			return nil, fmt.Errorf("recursion: turn statement value %d out of range", i)
		}
		values[i].SetBigInt(v)
	}
	return publicWitness(field, values[:]...)
}

// VerifyTurnAggregated verifies a turn aggregator's proof natively.
func VerifyTurnAggregated(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, stateIn, stateOut *big.Int) error {
	w, err := TurnStatementWitness(ecc.BW6_761.ScalarField(), st, stateIn, stateOut)
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, AggregatorVerifierOption()); err != nil {
		return fmt.Errorf("recursion: turn aggregator proof: %w", err)
	}
	return nil
}

// CompileTurnAggregator compiles the committed aggregator of a turn's
// segments ([NewTurnAggregator]).
func CompileTurnAggregator(shapes []SegmentShape, key gpcs.Key, turn AggregatorTurn) (constraint.ConstraintSystem, error) {
	c, err := NewTurnAggregator(shapes, key, turn)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile turn aggregator: %w", err)
	}
	return ccs, nil
}

// CompileTurnWrapper compiles the wrapper of turn aggregators with
// nbCommitments commitments ([NewTurnWrapper]).
func CompileTurnWrapper(nbCommitments int) (constraint.ConstraintSystem, error) {
	c, err := NewTurnWrapper(nbCommitments)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile turn wrapper: %w", err)
	}
	return ccs, nil
}

// TurnWrapperWitness returns the public witness of a turn wrapper's
// proof: the turn's digest (statement.Turn.Digest).
func TurnWrapperWitness(final statement.Turn) (witness.Witness, error) {
	digest, err := final.Digest()
	if err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	return digestWitness(digest)
}

// digestWitness is the public witness of a wrapper proof whose one public
// input is digest.
func digestWitness(digest *big.Int) (witness.Witness, error) {
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

// WrapTurn is [Wrap] for a turn aggregator's proof of st and the states
// in and out: it returns the BN254 proof and the final turn.
func WrapTurn(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, stateIn, stateOut *big.Int, dep *Deployment, slot int, wrapper *Keys) (groth16.Proof, statement.Turn, error) {
	if err := VerifyTurnAggregated(proof, key, st, stateIn, stateOut); err != nil {
		return nil, statement.Turn{}, err
	}
	assignment, final, err := TurnWrapperAssignment(proof, key, st, stateIn, stateOut, dep, slot)
	if err != nil {
		return nil, statement.Turn{}, err
	}
	wrapped, err := prove(wrapper, assignment, ecc.BN254.ScalarField(), solidity.WithProverTargetSolidityVerifier(backend.GROTH16))
	if err != nil {
		return nil, statement.Turn{}, fmt.Errorf("recursion: wrap turn: %w", err)
	}
	if err := VerifyTurnWrapped(wrapped, wrapper.VK, final); err != nil {
		return nil, statement.Turn{}, fmt.Errorf("recursion: wrap turn: fresh proof: %w", err)
	}
	return wrapped, final, nil
}

// VerifyTurnWrapped verifies a turn wrapper's proof natively, as the
// Solidity verifier does.
func VerifyTurnWrapped(proof groth16.Proof, key groth16.VerifyingKey, final statement.Turn) error {
	w, err := TurnWrapperWitness(final)
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
		return fmt.Errorf("recursion: turn wrapper proof: %w", err)
	}
	return nil
}

// WrapperWitness returns the public witness of a wrapper proof of the
// final statement: its digest (statement.Digest), the one public input.
func WrapperWitness(final statement.Statement) (witness.Witness, error) {
	if err := checkStatement(final); err != nil {
		return nil, err
	}
	digest, err := final.Digest()
	if err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	return digestWitness(digest)
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

func publicWitness(field *big.Int, values ...bls12377fr.Element) (witness.Witness, error) {
	w, err := witness.New(field)
	if err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	ch := make(chan any, len(values))
	for i := range values {
		ch <- values[i].BigInt(new(big.Int))
	}
	close(ch)
	if err := w.Fill(len(values), 0, ch); err != nil {
		return nil, fmt.Errorf("recursion: public witness: %w", err)
	}
	return w, nil
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

// VerifyAggregated verifies an aggregator proof natively.
func VerifyAggregated(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement) error {
	w, err := StatementWitness(ecc.BW6_761.ScalarField(), st)
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, AggregatorVerifierOption()); err != nil {
		return fmt.Errorf("recursion: aggregator proof: %w", err)
	}
	return nil
}

// WrapperAssignment returns the full wrapper assignment for an aggregator
// proof of the given statement, by the aggregator of the bucket in slot
// slot of the deployment dep, and the final statement it proves (the
// model id replaced by [Deployment.FinalModelID]). The slot's leaf must
// be the aggregator's ([BucketLeaf]).
func WrapperAssignment(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, dep *Deployment, slot int) (*Wrapper, statement.Statement, error) {
	if err := checkStatement(st); err != nil {
		return nil, statement.Statement{}, err
	}
	p, vk, err := ValueOfAggregatorProof(proof, key)
	if err != nil {
		return nil, statement.Statement{}, err
	}
	if dep == nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: wrapper: no deployment")
	}
	leaf, err := BucketLeaf(slot, key, st.ModelID)
	if err != nil {
		return nil, statement.Statement{}, err
	}
	if dep.Leaves[slot] == nil || dep.Leaves[slot].Cmp(leaf) != 0 {
		return nil, statement.Statement{}, fmt.Errorf("recursion: wrapper: the deployment's slot %d does not hold this aggregator's leaf", slot)
	}
	path, err := dep.Path(slot)
	if err != nil {
		return nil, statement.Statement{}, err
	}
	final, err := dep.FinalModelID()
	if err != nil {
		return nil, statement.Statement{}, err
	}
	out := statement.Statement{ModelID: final, InputDigest: new(big.Int).Set(st.InputDigest), OutputDigest: new(big.Int).Set(st.OutputDigest)}
	digest, err := out.Digest()
	if err != nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: %w", err)
	}
	return &Wrapper{
		StatementDigest: digest,
		ModelID:         final,
		InputDigest:     st.InputDigest,
		OutputDigest:    st.OutputDigest,
		InnerModelID:    st.ModelID,
		ModelDigest:     new(big.Int).Set(dep.ModelDigest),
		Slot:            slot,
		Path:            [BucketDepth]frontend.Variable(bigs(path[:])),
		Proof:           p,
		Key:             vk,
	}, out, nil
}

// TurnWrapperAssignment is [WrapperAssignment] for a turn's aggregator
// proof ([NewTurnAggregator]) of the statement st and the states in and
// out: the wrapper's public input is the final turn's digest, which it
// returns (the model id replaced by the deployment's final id).
func TurnWrapperAssignment(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, stateIn, stateOut *big.Int, dep *Deployment, slot int) (*Wrapper, statement.Turn, error) {
	for _, s := range []*big.Int{stateIn, stateOut} {
		if s == nil || s.Sign() < 0 || s.BitLen() > pcs.DigestBits {
			return nil, statement.Turn{}, fmt.Errorf("recursion: a state digest is not a %d-bit integer", pcs.DigestBits)
		}
	}
	w, final, err := WrapperAssignment(proof, key, st, dep, slot)
	if err != nil {
		return nil, statement.Turn{}, err
	}
	turn := statement.Turn{ModelID: final.ModelID, StateIn: new(big.Int).Set(stateIn), InputDigest: final.InputDigest, OutputDigest: final.OutputDigest, StateOut: new(big.Int).Set(stateOut)}
	digest, err := turn.Digest()
	if err != nil {
		return nil, statement.Turn{}, fmt.Errorf("recursion: %w", err)
	}
	w.StatementDigest = digest
	w.States = []frontend.Variable{stateIn, stateOut}
	return w, turn, nil
}

// BatchWrapperAssignment is [WrapperAssignment] for a batch's aggregator
// proof, whose statement st is (inner model id, list digest, number of
// requests), for the wrapper of [NewBatchWrapper]: its public input is
// the batch digest of the final id and the list digest. It returns the
// final id with the list digest and the count (the batch's statement as
// the segments state it, under the final id).
func BatchWrapperAssignment(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, dep *Deployment, slot int) (*Wrapper, statement.Statement, error) {
	if st.InputDigest == nil || st.InputDigest.Sign() < 0 || st.InputDigest.BitLen() > statement.ListBits {
		return nil, statement.Statement{}, fmt.Errorf("recursion: a batch's list digest is not a %d-bit integer", statement.ListBits)
	}
	if st.OutputDigest == nil || st.OutputDigest.Sign() < 1 || st.OutputDigest.Cmp(big.NewInt(statement.MaxBatch)) > 0 {
		return nil, statement.Statement{}, fmt.Errorf("recursion: a batch of %v requests, want 1 to %d", st.OutputDigest, statement.MaxBatch)
	}
	w, final, err := WrapperAssignment(proof, key, st, dep, slot)
	if err != nil {
		return nil, statement.Statement{}, err
	}
	digest, err := statement.BatchDigestOfList(final.ModelID, final.InputDigest)
	if err != nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: %w", err)
	}
	w.StatementDigest = digest
	w.batch = true
	return w, final, nil
}

// Wrap proves, with the wrapper keys, that the aggregator proof verifies
// under the aggregator key, that of the bucket in slot slot of the
// deployment dep; it returns the BN254 proof (made for gnark's Solidity
// verifier) and the final statement, the on-chain public inputs.
func Wrap(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, dep *Deployment, slot int, wrapper *Keys) (groth16.Proof, statement.Statement, error) {
	if err := VerifyAggregated(proof, key, st); err != nil {
		return nil, statement.Statement{}, err
	}
	assignment, final, err := WrapperAssignment(proof, key, st, dep, slot)
	if err != nil {
		return nil, statement.Statement{}, err
	}
	wrapped, err := prove(wrapper, assignment, ecc.BN254.ScalarField(), solidity.WithProverTargetSolidityVerifier(backend.GROTH16))
	if err != nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: wrap: %w", err)
	}
	if err := VerifyWrapped(wrapped, wrapper.VK, final); err != nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: wrap: fresh proof: %w", err)
	}
	return wrapped, final, nil
}

// VerifyWrapped verifies a wrapper proof natively, as the Solidity verifier
// does.
func VerifyWrapped(proof groth16.Proof, key groth16.VerifyingKey, final statement.Statement) error {
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

// CompileBatchWrapper compiles the wrapper of batch aggregators with
// nbCommitments commitments ([NewBatchWrapper]).
func CompileBatchWrapper(nbCommitments int) (constraint.ConstraintSystem, error) {
	c, err := NewBatchWrapper(nbCommitments)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile batch wrapper: %w", err)
	}
	return ccs, nil
}

// BatchWrapperWitness returns the public witness of a batch wrapper's
// proof of the final statement (final model id, list digest, count): its
// batch digest (statement.BatchDigestOfList).
func BatchWrapperWitness(final statement.Statement) (witness.Witness, error) {
	if final.ModelID == nil || final.InputDigest == nil {
		return nil, fmt.Errorf("recursion: a batch statement without its model id or list digest")
	}
	digest, err := statement.BatchDigestOfList(final.ModelID, final.InputDigest)
	if err != nil {
		return nil, fmt.Errorf("recursion: %w", err)
	}
	return digestWitness(digest)
}

// WrapBatch is [Wrap] for a batch aggregator's proof of st (inner model
// id, list digest, count): it returns the BN254 proof, whose one public
// input is the batch digest, and the final statement (the deployment's
// final id, the list digest, the count).
func WrapBatch(proof groth16.Proof, key groth16.VerifyingKey, st statement.Statement, dep *Deployment, slot int, wrapper *Keys) (groth16.Proof, statement.Statement, error) {
	if err := VerifyAggregated(proof, key, st); err != nil {
		return nil, statement.Statement{}, err
	}
	assignment, final, err := BatchWrapperAssignment(proof, key, st, dep, slot)
	if err != nil {
		return nil, statement.Statement{}, err
	}
	wrapped, err := prove(wrapper, assignment, ecc.BN254.ScalarField(), solidity.WithProverTargetSolidityVerifier(backend.GROTH16))
	if err != nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: wrap batch: %w", err)
	}
	if err := VerifyBatchWrapped(wrapped, wrapper.VK, final); err != nil {
		return nil, statement.Statement{}, fmt.Errorf("recursion: wrap batch: fresh proof: %w", err)
	}
	return wrapped, final, nil
}

// VerifyBatchWrapped verifies a batch wrapper's proof natively, as the
// Solidity verifier does.
func VerifyBatchWrapped(proof groth16.Proof, key groth16.VerifyingKey, final statement.Statement) error {
	w, err := BatchWrapperWitness(final)
	if err != nil {
		return err
	}
	if err := groth16.Verify(proof, key, w, solidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)); err != nil {
		return fmt.Errorf("recursion: batch wrapper proof: %w", err)
	}
	return nil
}
