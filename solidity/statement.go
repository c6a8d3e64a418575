package solidity

import (
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/witness"
	"github.com/ethereum/go-ethereum/common"

	"github.com/veriformer/veriformer/statement"
)

// Statement is what a final proof proves, the one statement type from
// the prover to the chain: the model with id ModelID, run on the input
// whose digest is InputDigest, produced the output whose digest is
// OutputDigest. On chain each value is an integer in [0, r), r the BN254
// scalar field order ([ValidateStatement]). The proof's one public input
// is their digest (statement.Digest), which the registry recomputes.
type Statement = statement.Statement

// words returns the three values of s in the registry's order.
func words(s Statement) [3]*big.Int {
	return [3]*big.Int{s.ModelID, s.InputDigest, s.OutputDigest}
}

// ValidateStatement checks that every value of s is set and reduced
// modulo r.
func ValidateStatement(s Statement) error {
	names := [3]string{"model id", "input digest", "output digest"}
	for i, word := range words(s) {
		if err := checkField(names[i], word); err != nil {
			return err
		}
	}
	return nil
}

// StatementKey returns the registry's key for the statement: the full
// SHA-256 of abi.encode(modelId, inputDigest, outputDigest), whose low 253
// bits are the statement digest.
func StatementKey(s Statement) (common.Hash, error) {
	if err := ValidateStatement(s); err != nil {
		return common.Hash{}, err
	}
	var encoded [statement.DigestInputSize]byte
	for i, word := range words(s) {
		word.FillBytes(encoded[32*i : 32*(i+1)])
	}
	return sha256Hash(encoded[:]), nil
}

// statementDigest returns the statement digest, the proof's one public
// input, after checking the statement (statement.Digest, which is
// uint256(StatementKey) & (2²⁵³ − 1)).
func statementDigest(s Statement) (*big.Int, error) {
	if err := ValidateStatement(s); err != nil {
		return nil, err
	}
	return s.Digest()
}

// PublicInputs returns the verifier's public inputs for the statement.
func PublicInputs(s Statement) ([NbPublicInputs]*big.Int, error) {
	digest, err := statementDigest(s)
	if err != nil {
		return [NbPublicInputs]*big.Int{}, err
	}
	return [NbPublicInputs]*big.Int{digest}, nil
}

// CheckWitness checks that a BN254 public witness (for example
// `full.Public()` of the witness a proof was made with) is the statement's:
// its one value is the statement digest.
func CheckWitness(public witness.Witness, s Statement) error {
	vector, ok := public.Vector().(fr.Vector)
	if !ok {
		return fmt.Errorf("solidity: public witness is %T, want a BN254 vector", public.Vector())
	}
	if len(vector) != NbPublicInputs {
		return fmt.Errorf("solidity: public witness has %d values, want %d", len(vector), NbPublicInputs)
	}
	digest, err := statementDigest(s)
	if err != nil {
		return err
	}
	if got := vector[0].BigInt(new(big.Int)); got.Cmp(digest) != 0 {
		return fmt.Errorf("solidity: public witness is %#x, the statement's digest is %#x", got, digest)
	}
	return nil
}

// checkField checks that value is set and in [0, r).
func checkField(name string, value *big.Int) error {
	if value == nil {
		return fmt.Errorf("solidity: %s is not set", name)
	}
	if value.Sign() < 0 || value.Cmp(fr.Modulus()) >= 0 {
		return fmt.Errorf("solidity: %s %s is not in [0, r)", name, value)
	}
	return nil
}

// ProofBytes encodes a BN254 Groth16 proof for the exported verifier, as
// gnark's MarshalSolidity does: A (x, y), B (x₁, x₀, y₁, y₀), C (x, y), then,
// when the circuit has a commitment, the commitment (x, y) and its proof of
// knowledge (x, y); 32-byte big-endian words, 256 or 384 bytes.
func ProofBytes(proof groth16.Proof) ([]byte, error) {
	p, ok := proof.(*groth16bn254.Proof)
	if !ok {
		return nil, fmt.Errorf("solidity: proof is %T, want a BN254 Groth16 proof", proof)
	}
	if len(p.Commitments) > 1 {
		return nil, fmt.Errorf("solidity: proof has %d commitments, the Solidity verifier supports at most 1", len(p.Commitments))
	}
	return p.MarshalSolidity(), nil
}

// checkEncodedProof checks the size of a proof encoded by [ProofBytes]:
// 256 bytes, or 384 with a commitment.
func checkEncodedProof(proof []byte) error {
	if len(proof) != 256 && len(proof) != 384 {
		return fmt.Errorf("solidity: an encoded proof of %d bytes, want 256 or 384", len(proof))
	}
	return nil
}

// PackSubmit returns the calldata of InferenceRegistry.submit for a proof of
// the statement.
func PackSubmit(proof groth16.Proof, statement Statement) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	return packSubmitBytes(encoded, statement)
}

// packSubmitBytes packs submit's calldata from an encoded proof.
func packSubmitBytes(proof []byte, statement Statement) ([]byte, error) {
	if err := ValidateStatement(statement); err != nil {
		return nil, err
	}
	data, err := registryABI.Pack("submit", proof, statement.ModelID, statement.InputDigest, statement.OutputDigest)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack submit: %w", err)
	}
	return data, nil
}

// PackVerifyProof returns the calldata of the verifier's verifyProof for a
// proof of the statement (its public input is the statement digest).
func PackVerifyProof(proof groth16.Proof, statement Statement) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	inputs, err := PublicInputs(statement)
	if err != nil {
		return nil, err
	}
	return packVerifyProofBytes(encoded, inputs)
}

// packVerifyProofBytes packs verifyProof's calldata from an encoded proof
// and public inputs.
func packVerifyProofBytes(proof []byte, inputs [NbPublicInputs]*big.Int) ([]byte, error) {
	data, err := verifierABI.Pack("verifyProof", proof, inputs)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack verifyProof: %w", err)
	}
	return data, nil
}

// InferenceVerified is one InferenceVerified event of the registry.
type InferenceVerified struct {
	Statement Statement
	Submitter common.Address
}

// unpackInferenceVerified decodes the event from a log of the registry: the
// three values are its indexed topics, the submitter its data.
func unpackInferenceVerified(topics []common.Hash, data []byte) (InferenceVerified, error) {
	event := registryABI.Events["InferenceVerified"]
	if len(topics) != 4 || topics[0] != event.ID {
		return InferenceVerified{}, fmt.Errorf("solidity: log is not an InferenceVerified event")
	}
	values, err := event.Inputs.NonIndexed().Unpack(data)
	if err != nil {
		return InferenceVerified{}, fmt.Errorf("solidity: unpack InferenceVerified: %w", err)
	}
	if len(values) != 1 {
		return InferenceVerified{}, fmt.Errorf("solidity: InferenceVerified has %d data fields, want 1", len(values))
	}
	submitter, ok := values[0].(common.Address)
	if !ok {
		return InferenceVerified{}, fmt.Errorf("solidity: InferenceVerified fields have unexpected types")
	}
	return InferenceVerified{
		Statement: Statement{ModelID: topics[1].Big(), InputDigest: topics[2].Big(), OutputDigest: topics[3].Big()},
		Submitter: submitter,
	}, nil
}

// sha256Hash is SHA-256 as the EVM's precompile 0x02 computes it.
func sha256Hash(b []byte) common.Hash {
	return common.Hash(sha256.Sum256(b))
}
