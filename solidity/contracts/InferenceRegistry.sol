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
/// which a valid Groth16 proof was submitted, and every turn of a
/// conversation (modelId, stateIn, inputDigest, outputDigest, stateOut) whose
/// state in is the empty state or one a recorded turn left. A statement says: the model with
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

    /// Turns proven so far, keyed by turnKey: one storage slot each.
    mapping(bytes32 => bool) private turns;

    /// Conversation states some recorded turn left, keyed by stateKey
    /// (model id and state): the states a next turn may start from.
    mapping(bytes32 => bool) private states;

    /// A statement was proven (emitted once per statement).
    event InferenceVerified(
        uint256 indexed modelId, uint256 indexed inputDigest, uint256 indexed outputDigest, address submitter
    );

    /// A turn of a conversation was proven (emitted once per turn): the
    /// conversation went from stateIn to stateOut on this input and output.
    /// Walking stateOut to the turn whose stateIn it is, from the empty
    /// state 0, gives a conversation's turns in order.
    event TurnVerified(
        uint256 indexed modelId,
        uint256 indexed stateIn,
        uint256 indexed stateOut,
        uint256 inputDigest,
        uint256 outputDigest,
        address submitter
    );

    /// The verifier address holds no code.
    error VerifierHasNoCode(address verifier);

    /// The submitted model id is not the one this registry accepts.
    error UnexpectedModelId(uint256 expected, uint256 got);

    /// A turn starts from a state no recorded turn of this model left (and
    /// not the empty state 0).
    error UnknownState(uint256 modelId, uint256 stateIn);

    /// A turn claims to leave the empty state 0.
    error EmptyStateOut();

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

    /// Verify a proof of one turn of a conversation and record it: the model
    /// modelId, holding the conversation in state stateIn, on the tokens whose
    /// digest is inputDigest, produced those whose digest is outputDigest and
    /// left state stateOut. stateIn must be the empty state 0 (a first turn)
    /// or a state a recorded turn of this model left.
    /// @dev The proof's one public input is the turn digest: the SHA-256 of
    /// abi.encode(modelId, stateIn, inputDigest, outputDigest, stateOut) with
    /// its three most significant bits cleared. A turn already recorded
    /// returns without verifying, recording or emitting anything.
    function submitTurn(
        bytes calldata proof,
        uint256 modelId,
        uint256 stateIn,
        uint256 inputDigest,
        uint256 outputDigest,
        uint256 stateOut
    ) external {
        if (requiredModelId != 0 && modelId != requiredModelId) {
            revert UnexpectedModelId(requiredModelId, modelId);
        }
        if (stateOut == 0) {
            revert EmptyStateOut();
        }
        if (stateIn != 0 && !states[stateKey(modelId, stateIn)]) {
            revert UnknownState(modelId, stateIn);
        }
        bytes32 key = turnKey(modelId, stateIn, inputDigest, outputDigest, stateOut);
        if (turns[key]) {
            return;
        }
        verifier.verifyProof(proof, [uint256(key) & DIGEST_MASK]);
        turns[key] = true;
        states[stateKey(modelId, stateOut)] = true;
        emit TurnVerified(modelId, stateIn, stateOut, inputDigest, outputDigest, msg.sender);
    }

    /// Whether a valid proof of the turn was submitted.
    function isTurnVerified(
        uint256 modelId,
        uint256 stateIn,
        uint256 inputDigest,
        uint256 outputDigest,
        uint256 stateOut
    ) external view returns (bool) {
        return turns[turnKey(modelId, stateIn, inputDigest, outputDigest, stateOut)];
    }

    /// Whether a recorded turn of the model left the state: a next turn may
    /// start from it.
    function isState(uint256 modelId, uint256 state) external view returns (bool) {
        return states[stateKey(modelId, state)];
    }

    /// The key of a turn: SHA-256 of its five words, ABI-encoded. Its low 253
    /// bits are the turn digest, the proof's public input.
    function turnKey(uint256 modelId, uint256 stateIn, uint256 inputDigest, uint256 outputDigest, uint256 stateOut)
        public
        pure
        returns (bytes32)
    {
        return sha256(abi.encode(modelId, stateIn, inputDigest, outputDigest, stateOut));
    }

    /// The key of a state of a model's conversations.
    function stateKey(uint256 modelId, uint256 state) internal pure returns (bytes32) {
        return keccak256(abi.encode(modelId, state));
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
