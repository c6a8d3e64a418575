// SPDX-License-Identifier: MIT

pragma solidity ^0.8.20;

/// The verifier exported by gnark for a BN254 Groth16 key with three public
/// inputs (modelId, inputDigest, outputDigest). It reverts on any invalid
/// proof and returns nothing otherwise.
interface IInferenceVerifier {
    function verifyProof(bytes calldata proof, uint256[3] calldata input) external view;
}

/// @title Registry of verified inferences.
/// @notice Records every statement (modelId, inputDigest, outputDigest) for
/// which a valid Groth16 proof was submitted. A statement says: the model with
/// id modelId, run on the tokens whose digest is inputDigest, produced the
/// tokens whose digest is outputDigest.
/// @dev The proof is not bound to the submitter: anyone holding a proof can
/// submit it, and the record is the same whoever does.
contract InferenceRegistry {
    /// The verifier this registry trusts.
    IInferenceVerifier public immutable verifier;

    /// The only model id accepted, or 0 to accept any model id (one
    /// verifier serving many models that are told apart by id).
    uint256 public immutable requiredModelId;

    /// Statements proven so far, keyed by statementKey.
    mapping(bytes32 => bool) private verified;

    /// A statement was proven.
    event InferenceVerified(uint256 indexed modelId, uint256 inputDigest, uint256 outputDigest, address submitter);

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
    /// points A, B, C, then the Pedersen commitments and their proof of
    /// knowledge when the circuit has them.
    /// @dev Reverts with the verifier's error when the proof is invalid or a
    /// public input is not reduced modulo the BN254 scalar field order.
    function submit(bytes calldata proof, uint256 modelId, uint256 inputDigest, uint256 outputDigest) external {
        if (requiredModelId != 0 && modelId != requiredModelId) {
            revert UnexpectedModelId(requiredModelId, modelId);
        }
        verifier.verifyProof(proof, [modelId, inputDigest, outputDigest]);
        verified[statementKey(modelId, inputDigest, outputDigest)] = true;
        emit InferenceVerified(modelId, inputDigest, outputDigest, msg.sender);
    }

    /// Whether a valid proof of (modelId, inputDigest, outputDigest) was submitted.
    function isVerified(uint256 modelId, uint256 inputDigest, uint256 outputDigest) external view returns (bool) {
        return verified[statementKey(modelId, inputDigest, outputDigest)];
    }

    /// The key of a statement: keccak256 of the three words, ABI-encoded.
    function statementKey(uint256 modelId, uint256 inputDigest, uint256 outputDigest) public pure returns (bytes32) {
        return keccak256(abi.encode(modelId, inputDigest, outputDigest));
    }
}
