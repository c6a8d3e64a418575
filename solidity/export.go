package solidity

import (
	"bytes"
	"fmt"
	"io"

	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	gnarksolidity "github.com/consensys/gnark/backend/solidity"
	"golang.org/x/crypto/sha3"
)

// NbPublicInputs is the number of public inputs of every final proof: the
// statement digest of a list (statement.List.Digest).
const NbPublicInputs = 1

// ExportVerifier writes the Solidity source of the [Merged] verifier for
// vk (see [ExportVerifierTemplate]).
func ExportVerifier(vk groth16.VerifyingKey, w io.Writer) error {
	return ExportVerifierTemplate(vk, w, Merged)
}

// ExportVerifierTemplate writes the Solidity source of a Groth16 verifier
// for vk: gnark's exported verifier, as is ([Gnark]) or with the
// commitment check merged into the pairing check ([Merged]). The key must
// be a BN254 key with exactly [NbPublicInputs] public inputs and at most
// one Pedersen commitment (gnark's Solidity verifier checks one). The
// commitment challenge is hashed to the field with legacy Keccak-256, so
// proofs must be made with [ProverOptions]. Both verifiers have gnark's
// ABI: verifyProof(bytes proof, uint256[1] input).
func ExportVerifierTemplate(vk groth16.VerifyingKey, w io.Writer, template Template) error {
	key, err := bn254Key(vk)
	if err != nil {
		return err
	}
	var source bytes.Buffer
	if err := key.ExportSolidity(&source, gnarksolidity.WithHashToFieldFunction(sha3.NewLegacyKeccak256())); err != nil {
		return fmt.Errorf("solidity: export verifier: %w", err)
	}
	out := source.String()
	switch template {
	case Gnark:
	case Merged:
		if len(key.CommitmentKeys) == 1 {
			if out, err = mergeCommitmentCheck(out, key, NbPublicInputs); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("solidity: unknown verifier template %v", template)
	}
	if _, err := io.WriteString(w, out); err != nil {
		return fmt.Errorf("solidity: write verifier: %w", err)
	}
	return nil
}

// ProverOptions returns the options to pass to groth16.Prove for a proof
// that the exported verifier accepts: the commitment challenge is hashed to
// the field with legacy Keccak-256 (the EVM's KECCAK256 opcode) instead of
// gnark's default RFC 9380 hash, which the verifier does not implement.
func ProverOptions() []backend.ProverOption {
	return []backend.ProverOption{gnarksolidity.WithProverTargetSolidityVerifier(backend.GROTH16)}
}

// VerifierOptions returns the options to pass to groth16.Verify to check a
// proof made with [ProverOptions] natively.
func VerifierOptions() []backend.VerifierOption {
	return []backend.VerifierOption{gnarksolidity.WithVerifierTargetSolidityVerifier(backend.GROTH16)}
}

// bn254Key checks that vk is a BN254 key of the shape the exported verifier
// and the registry expect.
func bn254Key(vk groth16.VerifyingKey) (*groth16bn254.VerifyingKey, error) {
	key, ok := vk.(*groth16bn254.VerifyingKey)
	if !ok {
		return nil, fmt.Errorf("solidity: verifying key is %T, want a BN254 Groth16 key", vk)
	}
	if len(key.G1.K) == 0 {
		return nil, fmt.Errorf("solidity: verifying key has no public input points")
	}
	nbCommitments := len(key.PublicAndCommitmentCommitted)
	if nbCommitments > 1 || len(key.CommitmentKeys) != nbCommitments {
		return nil, fmt.Errorf("solidity: verifying key has %d commitments (%d commitment keys), the Solidity verifier supports at most 1",
			nbCommitments, len(key.CommitmentKeys))
	}
	if nbPublic := len(key.G1.K) - 1 - nbCommitments; nbPublic != NbPublicInputs {
		return nil, fmt.Errorf("solidity: verifying key has %d public inputs, want %d (the statement digest)", nbPublic, NbPublicInputs)
	}
	return key, nil
}
