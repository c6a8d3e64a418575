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
/// which a valid Groth16 proof was submitted, alone or in a batch of one
/// model's statements proven at once, and every turn of a conversation
/// (modelId, stateIn, inputDigest, outputDigest, stateOut) whose state in is
/// the empty state or one a recorded turn left. A statement says: the model
/// with id modelId, run on the tokens whose digest is inputDigest, produced
/// the tokens whose digest is outputDigest. Anyone can prove statements under
/// a model id of their own making, so a consumer trusts an id, not the
/// registry: the catalog records which publisher stands behind which id.
/// @dev The proof's one public input is the statement digest: the SHA-256 of
/// abi.encode(modelId, inputDigest, outputDigest) with its three most
/// significant bits cleared, which the registry recomputes. The proof is not
/// bound to the submitter: anyone holding a proof can submit it, and the
/// record is the same whoever does.
contract InferenceRegistry {
    /// The low 253 bits of a SHA-256 digest: the statement digest.
    uint256 private constant DIGEST_MASK = (1 << 253) - 1;

    /// The low 250 bits of a SHA-256 digest: a batch's list digest.
    uint256 private constant LIST_MASK = (1 << 250) - 1;

    /// The most statements one batch holds.
    uint256 public constant MAX_BATCH = 4096;

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

    /// Roots of the batches proven so far (batchRoot): one storage slot per
    /// batch, whatever its size.
    mapping(bytes32 => bool) private batches;

    /// Model ids each publisher published, keyed by publicationKey.
    mapping(bytes32 => bool) private published;

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

    /// A batch of statements was proven (emitted once per batch, after the
    /// InferenceVerified event of each of its statements, in order): its
    /// statements are the leaves of the tree whose root is root.
    event BatchVerified(bytes32 indexed root, uint256 indexed modelId, uint256 count, address submitter);

    /// The publisher stands behind the model id: the model it names, whose
    /// files and keys the metadata URI locates. Emitted once per publisher
    /// and id.
    event ModelPublished(
        address indexed publisher, uint256 indexed modelId, string name, string metadataURI
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

    /// A batch holds no statement or more than MAX_BATCH, or not as many
    /// input digests as output digests.
    error BatchSize(uint256 inputs, uint256 outputs);

    /// The batch, the same statements in the same order, is recorded already.
    error BatchRecorded(bytes32 root);

    /// The publisher published the model id already.
    error ModelPublishedAlready(address publisher, uint256 modelId);

    /// A model id of 0 cannot be published.
    error ZeroModelId();

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

    /// Verify a proof of a batch of statements of one model and record them:
    /// for each i, the model modelId, on the tokens whose digest is
    /// inputDigests[i], produced those whose digest is outputDigests[i].
    /// @dev The proof's one public input is the batch digest (batchDigest).
    /// The registry stores the root of the statements' tree (batchRoot) in
    /// one slot and emits InferenceVerified for each statement, then
    /// BatchVerified; isBatchVerified checks a statement against a root with
    /// its path. A batch already recorded is refused (BatchRecorded).
    function submitBatch(
        bytes calldata proof,
        uint256 modelId,
        uint256[] calldata inputDigests,
        uint256[] calldata outputDigests
    ) external {
        if (requiredModelId != 0 && modelId != requiredModelId) {
            revert UnexpectedModelId(requiredModelId, modelId);
        }
        uint256 n = inputDigests.length;
        if (n == 0 || n > MAX_BATCH || outputDigests.length != n) {
            revert BatchSize(n, outputDigests.length);
        }
        bytes32 root = batchRoot(modelId, inputDigests, outputDigests);
        if (batches[root]) {
            revert BatchRecorded(root);
        }
        verifier.verifyProof(proof, [batchDigest(modelId, inputDigests, outputDigests)]);
        batches[root] = true;
        for (uint256 i = 0; i < n; i++) {
            emit InferenceVerified(modelId, inputDigests[i], outputDigests[i], msg.sender);
        }
        emit BatchVerified(root, modelId, n, msg.sender);
    }

    /// The batch digest, a batch proof's one public input: the SHA-256 of
    /// abi.encode(modelId, listDigest) with its three most significant bits
    /// cleared, listDigest the low 250 bits of the SHA-256 of n, inputDigests[0],
    /// outputDigests[0], ..., inputDigests[n-1], outputDigests[n-1] as 32-byte
    /// words, n the count.
    function batchDigest(uint256 modelId, uint256[] calldata inputDigests, uint256[] calldata outputDigests)
        public
        pure
        returns (uint256)
    {
        uint256 n = inputDigests.length;
        if (outputDigests.length != n) {
            revert BatchSize(n, outputDigests.length);
        }
        bytes memory list = new bytes(32 + 64 * n);
        assembly {
            mstore(add(list, 32), n)
            for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                let at := add(list, add(64, mul(i, 64)))
                mstore(at, calldataload(add(inputDigests.offset, mul(i, 32))))
                mstore(add(at, 32), calldataload(add(outputDigests.offset, mul(i, 32))))
            }
        }
        uint256 listDigest = uint256(sha256(list)) & LIST_MASK;
        return uint256(sha256(abi.encode(modelId, listDigest))) & DIGEST_MASK;
    }

    /// The root of a batch's statements: a binary tree of keccak256 hashes
    /// whose leaf i is batchLeaf(modelId, inputDigests[i], outputDigests[i]),
    /// each level paired left to right, a node without a right sibling
    /// paired with 0, up to one node (a batch of one is its leaf).
    function batchRoot(uint256 modelId, uint256[] calldata inputDigests, uint256[] calldata outputDigests)
        public
        pure
        returns (bytes32)
    {
        uint256 n = inputDigests.length;
        if (n == 0 || outputDigests.length != n) {
            revert BatchSize(n, outputDigests.length);
        }
        bytes32[] memory level = new bytes32[](n);
        for (uint256 i = 0; i < n; i++) {
            level[i] = batchLeaf(modelId, inputDigests[i], outputDigests[i]);
        }
        while (n > 1) {
            uint256 half = (n + 1) / 2;
            for (uint256 i = 0; i < half; i++) {
                bytes32 right = 2 * i + 1 < n ? level[2 * i + 1] : bytes32(0);
                level[i] = keccak256(abi.encode(level[2 * i], right));
            }
            n = half;
        }
        return level[0];
    }

    /// The leaf of a statement in a batch's tree: keccak256 of its three
    /// words, ABI-encoded (96 bytes, where an inner node hashes 64).
    function batchLeaf(uint256 modelId, uint256 inputDigest, uint256 outputDigest) public pure returns (bytes32) {
        return keccak256(abi.encode(modelId, inputDigest, outputDigest));
    }

    /// Whether the statement is the leaf at index of a recorded batch whose
    /// root is root: path holds the siblings from the leaf up (0 where a node
    /// has none), the bits of index, lowest first, telling whether the node
    /// is a right child.
    function isBatchVerified(
        uint256 modelId,
        uint256 inputDigest,
        uint256 outputDigest,
        bytes32 root,
        uint256 index,
        bytes32[] calldata path
    ) external view returns (bool) {
        if (!batches[root] || (path.length < 256 && index >> path.length != 0)) {
            return false;
        }
        bytes32 node = batchLeaf(modelId, inputDigest, outputDigest);
        for (uint256 i = 0; i < path.length; i++) {
            if ((index >> i) & 1 == 0) {
                node = keccak256(abi.encode(node, path[i]));
            } else {
                node = keccak256(abi.encode(path[i], node));
            }
        }
        return node == root;
    }

    /// Whether a batch whose statements' tree has this root was proven.
    function isBatchRecorded(bytes32 root) external view returns (bool) {
        return batches[root];
    }

    /// Publish a model id: the caller stands behind it, under a name and a
    /// metadata URI locating the model's files, keys and ceremony
    /// transcripts. A publisher publishes an id once; consumers filter the
    /// ModelPublished events by the publishers they trust.
    function publishModel(uint256 modelId, string calldata name, string calldata metadataURI) external {
        if (modelId == 0) {
            revert ZeroModelId();
        }
        bytes32 key = publicationKey(msg.sender, modelId);
        if (published[key]) {
            revert ModelPublishedAlready(msg.sender, modelId);
        }
        published[key] = true;
        emit ModelPublished(msg.sender, modelId, name, metadataURI);
    }

    /// Whether the publisher published the model id.
    function isPublished(address publisher, uint256 modelId) external view returns (bool) {
        return published[publicationKey(publisher, modelId)];
    }

    /// The key of a publication.
    function publicationKey(address publisher, uint256 modelId) internal pure returns (bytes32) {
        return keccak256(abi.encode(publisher, modelId));
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
