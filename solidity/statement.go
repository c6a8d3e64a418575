package solidity

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/witness"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Statement is what a final proof proves: the model with id ModelID, run on
// the input whose digest is InputDigest, produced the output whose digest is
// OutputDigest. Each value is an integer in [0, r) with r the BN254 scalar
// field order; they are the proof's public inputs in this order.
type Statement struct {
	ModelID, InputDigest, OutputDigest *big.Int
}

// Words returns the public inputs in the verifier's order.
func (s Statement) Words() [NbPublicInputs]*big.Int {
	return [NbPublicInputs]*big.Int{s.ModelID, s.InputDigest, s.OutputDigest}
}

// Validate checks that every value is set and reduced modulo r.
func (s Statement) Validate() error {
	names := [NbPublicInputs]string{"model id", "input digest", "output digest"}
	for i, word := range s.Words() {
		if err := checkField(names[i], word); err != nil {
			return err
		}
	}
	return nil
}

// Key returns the registry's key for the statement:
// keccak256(abi.encode(modelId, inputDigest, outputDigest)).
func (s Statement) Key() (common.Hash, error) {
	if err := s.Validate(); err != nil {
		return common.Hash{}, err
	}
	var encoded []byte
	for _, word := range s.Words() {
		encoded = append(encoded, common.BigToHash(word).Bytes()...)
	}
	return crypto.Keccak256Hash(encoded), nil
}

// StatementOf reads the statement from a BN254 public witness (for example
// `full.Public()` of the witness a proof was made with).
func StatementOf(public witness.Witness) (Statement, error) {
	vector, ok := public.Vector().(fr.Vector)
	if !ok {
		return Statement{}, fmt.Errorf("solidity: public witness is %T, want a BN254 vector", public.Vector())
	}
	if len(vector) != NbPublicInputs {
		return Statement{}, fmt.Errorf("solidity: public witness has %d values, want %d", len(vector), NbPublicInputs)
	}
	var words [NbPublicInputs]*big.Int
	for i := range vector {
		words[i] = vector[i].BigInt(new(big.Int))
	}
	return Statement{ModelID: words[0], InputDigest: words[1], OutputDigest: words[2]}, nil
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
	if err := statement.Validate(); err != nil {
		return nil, err
	}
	data, err := registryABI.Pack("submit", proof, statement.ModelID, statement.InputDigest, statement.OutputDigest)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack submit: %w", err)
	}
	return data, nil
}

// PackVerifyProof returns the calldata of the verifier's verifyProof for a
// proof of the statement.
func PackVerifyProof(proof groth16.Proof, statement Statement) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	if err := statement.Validate(); err != nil {
		return nil, err
	}
	data, err := verifierABI.Pack("verifyProof", encoded, statement.Words())
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

// unpackInferenceVerified decodes the event from a log of the registry.
func unpackInferenceVerified(topics []common.Hash, data []byte) (InferenceVerified, error) {
	event := registryABI.Events["InferenceVerified"]
	if len(topics) != 2 || topics[0] != event.ID {
		return InferenceVerified{}, fmt.Errorf("solidity: log is not an InferenceVerified event")
	}
	values, err := event.Inputs.NonIndexed().Unpack(data)
	if err != nil {
		return InferenceVerified{}, fmt.Errorf("solidity: unpack InferenceVerified: %w", err)
	}
	if len(values) != 3 {
		return InferenceVerified{}, fmt.Errorf("solidity: InferenceVerified has %d data fields, want 3", len(values))
	}
	input, ok1 := values[0].(*big.Int)
	output, ok2 := values[1].(*big.Int)
	submitter, ok3 := values[2].(common.Address)
	if !ok1 || !ok2 || !ok3 {
		return InferenceVerified{}, fmt.Errorf("solidity: InferenceVerified fields have unexpected types")
	}
	return InferenceVerified{
		Statement: Statement{ModelID: topics[1].Big(), InputDigest: input, OutputDigest: output},
		Submitter: submitter,
	}, nil
}
