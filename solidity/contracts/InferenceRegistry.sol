// SPDX-License-Identifier: MIT

pragma solidity ^0.8.20;

/// The verifier exported for a BN254 Groth16 key with one public input, the
/// statement digest. It reverts on any invalid proof and returns nothing
/// otherwise.
interface IInferenceVerifier {
    function verifyProof(bytes calldata proof, uint256[1] calldata input) external view;
}

/// @title Registry of verified inferences.
/// @notice Records every statement (modelId, inputDigest, outputDigest) for
/// which a valid Groth16 proof was submitted. A statement says: the model with
/// id modelId, run on the tokens whose digest is inputDigest, produced the
/// tokens whose digest is outputDigest.
/// @dev The proof's one public input is the statement digest: the SHA-256 of
/// abi.encode(modelId, inputDigest, outputDigest) with its three most
/// significant bits cleared, which the registry recomputes. The proof is not
/// bound to the submitter: anyone holding a proof can submit it, and the
/// record is the same whoever does.
contract InferenceRegistry {
    /// The low 253 bits of a SHA-256 digest: the statement digest.
    uint256 private constant DIGEST_MASK = (1 << 253) - 1;

    /// The verifier this registry trusts.
    IInferenceVerifier public immutable verifier;

    /// The only model id accepted, or 0 to accept any model id (one
    /// verifier serving many models that are told apart by id).
    uint256 public immutable requiredModelId;

    /// Statements proven so far, keyed by statementKey: one storage slot each.
    mapping(bytes32 => bool) private verified;

    /// A statement was proven (emitted once per statement).
    event InferenceVerified(
        uint256 indexed modelId, uint256 indexed inputDigest, uint256 indexed outputDigest, address submitter
    );

    /// The verifier address holds no code.
    error VerifierHasNoCode(address verifier);

    /// The submitted model id is not the one this registry accepts.
    error UnexpectedModelId(uint256 expected, uint256 got);

    constructor(address verifier_, uint256 requiredModelId_) {
        if (verifier_.code.length == 0) {
            revert VerifierHasNoCode(verifier_);
        }
        verifier = IInferenceVerifier(verifier_);
        requiredModelId = requiredModelId_;
    }

    /// Verify a proof of (modelId, inputDigest, outputDigest) and record it.
    /// @param proof the proof as produced by gnark's MarshalSolidity: the
    /// points A, B, C, then the Pedersen commitment and its proof of
    /// knowledge.
    /// @dev Reverts with the verifier's error when the proof is invalid for
    /// the statement digest. A statement already recorded is not checked
    /// again: the call returns without verifying, recording or emitting
    /// anything, so that a submission overtaken by another of the same
    /// statement does not fail; after submit returns, isVerified is true.
    function submit(bytes calldata proof, uint256 modelId, uint256 inputDigest, uint256 outputDigest) external {
        if (requiredModelId != 0 && modelId != requiredModelId) {
            revert UnexpectedModelId(requiredModelId, modelId);
        }
        bytes32 key = statementKey(modelId, inputDigest, outputDigest);
        if (verified[key]) {
            return;
        }
        verifier.verifyProof(proof, [uint256(key) & DIGEST_MASK]);
        verified[key] = true;
        emit InferenceVerified(modelId, inputDigest, outputDigest, msg.sender);
    }

    /// Whether a valid proof of (modelId, inputDigest, outputDigest) was submitted.
    function isVerified(uint256 modelId, uint256 inputDigest, uint256 outputDigest) external view returns (bool) {
        return verified[statementKey(modelId, inputDigest, outputDigest)];
    }

    /// The key of a statement: SHA-256 of the three words, ABI-encoded. Its
    /// low 253 bits are the statement digest, the proof's public input.
    function statementKey(uint256 modelId, uint256 inputDigest, uint256 outputDigest) public pure returns (bytes32) {
        return sha256(abi.encode(modelId, inputDigest, outputDigest));
    }
}
