// SPDX-License-Identifier: MIT

pragma solidity ^0.8.20;

/// The verifier exported for a BN254 Groth16 key with one public input, the
/// statement digest. It reverts on any invalid proof and returns nothing
/// otherwise.
interface IInferenceVerifier {
    function verifyProof(bytes calldata proof, uint256[1] calldata input) external view;
}

/// @title Registry of verified inferences.
/// @notice Records lists of statements of one model, each list proven by one
/// Groth16 proof. A list holds 1 to MAX_LEAVES leaves, in order. A leaf is a
/// request: the model with id modelId, run on the tokens whose digest is
/// input, produced the tokens whose digest is output; or a turn of a
/// conversation: the model, holding the conversation in state stateIn, on
/// input produced output and left state stateOut. A single request is a list
/// of one. A turn is recorded only if its state in is the empty state 0 or a
/// state that a recorded turn of the same model left, in an earlier list or
/// earlier in the same list. A state may have several continuations, each
/// recorded: a conversation is a tree whose root is the empty state (a turn
/// regenerated, or a branch from any recorded state), not a chain. Anyone
/// can prove statements under a model id of their own making, so a consumer
/// trusts an id, not the registry: the catalog records which publisher
/// stands behind which id.
/// @dev A list travels as its words: (input + 1·2^254, output) for a
/// request, (stateIn + 2·2^254, input, output, stateOut) for a turn, every
/// value below 2^254, so that the two top bits of a leaf's first word are its
/// kind. The proof's one public input is the statement digest
/// sha256(abi.encode(modelId, L)) & (2^253 - 1), where the list digest L is
/// sha256 of the words as 32-byte words & (2^250 - 1); the registry
/// recomputes both from the calldata. It records the root of the list's
/// tree (listRoot) in one storage slot; isVerified checks a leaf against the
/// recorded roots with its index and path. The proof is not bound to the
/// submitter: anyone holding a proof can submit it, and the record is the
/// same whoever does.
contract InferenceRegistry {
    /// The low 253 bits of a SHA-256 digest: the statement digest.
    uint256 private constant DIGEST_MASK = (1 << 253) - 1;

    /// The low 250 bits of a SHA-256 digest: the list digest.
    uint256 private constant LIST_MASK = (1 << 250) - 1;

    /// The bit at which a leaf's kind sits in its first word.
    uint256 private constant KIND_SHIFT = 254;

    /// The value of a leaf's first word, below its kind.
    uint256 private constant VALUE_MASK = (1 << 254) - 1;

    /// The kinds of leaf: a request (two words) and a turn (four words).
    uint256 private constant REQUEST = 1;
    uint256 private constant TURN = 2;

    /// The most leaves one list holds.
    uint256 public constant MAX_LEAVES = 4096;

    /// The height of the tree of a list of MAX_LEAVES leaves: the longest
    /// path.
    uint256 private constant MAX_DEPTH = 12;

    /// The verifier this registry trusts.
    IInferenceVerifier public immutable verifier;

    /// The only model id accepted, or 0 to accept any model id (one
    /// verifier serving many models that are told apart by id).
    uint256 public immutable requiredModelId;

    /// Roots of the lists proven so far (listRoot): one storage slot per
    /// list, whatever its size.
    mapping(bytes32 => bool) private roots;

    /// Conversation states some recorded turn left, keyed by stateKey
    /// (model id and state): the states a next turn may start from.
    mapping(bytes32 => bool) private states;

    /// Model ids each publisher published, keyed by publicationKey.
    mapping(bytes32 => bool) private published;

    /// A request was proven (emitted once per request leaf of a recorded
    /// list, in the list's order).
    event InferenceVerified(
        uint256 indexed modelId, uint256 indexed inputDigest, uint256 indexed outputDigest, address submitter
    );

    /// A turn of a conversation was proven (emitted once per turn leaf of a
    /// recorded list, in the list's order): the conversation went from
    /// stateIn to stateOut on this input and output. The turns whose
    /// stateIn is a state are its continuations; walking them from the
    /// empty state 0 gives a model's conversations as a tree.
    event TurnVerified(
        uint256 indexed modelId,
        uint256 indexed stateIn,
        uint256 indexed stateOut,
        uint256 inputDigest,
        uint256 outputDigest,
        address submitter
    );

    /// A list was proven (emitted once per list, after the events of its
    /// leaves): its count leaves are those of the tree whose root is root.
    event ListVerified(bytes32 indexed root, uint256 indexed modelId, uint256 count, address submitter);

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

    /// The words hold no leaf, or more than MAX_LEAVES leaves.
    error ListSize(uint256 words);

    /// The leaf starting at word index has a kind that is neither a request
    /// (1) nor a turn (2).
    error UnknownKind(uint256 index, uint256 kind);

    /// The leaf starting at word index has fewer words than its kind needs.
    error TruncatedLeaf(uint256 index);

    /// The turn starting at word index claims to leave the empty state 0.
    error EmptyStateOut(uint256 index);

    /// A turn starts from a state that no recorded turn of this model left
    /// (and not the empty state 0).
    error UnknownState(uint256 modelId, uint256 stateIn);

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

    /// Verify a proof of a list of statements of the model and record it.
    /// @param proof the proof as produced by gnark's MarshalSolidity: the
    /// points A, B, C, then the Pedersen commitment and its proof of
    /// knowledge.
    /// @param leaves the list's words, its leaves' words in order.
    /// @dev Reverts on malformed words (ListSize, UnknownKind,
    /// TruncatedLeaf, EmptyStateOut). A list whose root is recorded already
    /// returns without verifying, recording or emitting anything, so that a
    /// replay, or a copy of a pending submission mined first, never makes a
    /// submission fail. Otherwise reverts with the verifier's error when the
    /// proof is invalid for the statement digest; records the root; then,
    /// leaf by leaf, emits InferenceVerified for a request, and for a turn
    /// checks its state in (UnknownState), records its state out and emits
    /// TurnVerified; then emits ListVerified.
    function submit(bytes calldata proof, uint256 modelId, uint256[] calldata leaves) external {
        if (requiredModelId != 0 && modelId != requiredModelId) {
            revert UnexpectedModelId(requiredModelId, modelId);
        }
        (uint256 list, bytes32 root, uint256 count) = parse(modelId, leaves);
        if (roots[root]) {
            return;
        }
        verifier.verifyProof(proof, [digestOf(modelId, list)]);
        roots[root] = true;
        record(modelId, leaves);
        emit ListVerified(root, modelId, count, msg.sender);
    }

    /// Whether the leaf (its words), at index with the siblings path from
    /// the leaf up, belongs to a recorded list: true for every leaf of every
    /// recorded list. Bit k of index, lowest first, is set when the node at
    /// height k is a right child; a list of one is its leaf: index 0, an
    /// empty path. False for words that are not one leaf (two words of
    /// kind 1 or four of kind 2), for more than MAX_DEPTH siblings or an
    /// index of 2^path.length or more.
    function isVerified(uint256 modelId, uint256[] calldata leaf, uint256 index, bytes32[] calldata path)
        external
        view
        returns (bool)
    {
        uint256 depth = path.length;
        if (depth > MAX_DEPTH || index >> depth != 0 || leaf.length == 0) {
            return false;
        }
        uint256 kind = leaf[0] >> KIND_SHIFT;
        if (!(kind == REQUEST && leaf.length == 2) && !(kind == TURN && leaf.length == 4)) {
            return false;
        }
        bytes32 node = keccak256(abi.encodePacked(modelId, leaf));
        for (uint256 i = 0; i < depth; i++) {
            if ((index >> i) & 1 == 0) {
                node = hashPair(node, path[i]);
            } else {
                node = hashPair(path[i], node);
            }
        }
        return roots[node];
    }

    /// Whether a list whose tree has this root was proven.
    function isRecorded(bytes32 root) external view returns (bool) {
        return roots[root];
    }

    /// Whether a recorded turn of the model left the state: a next turn may
    /// start from it.
    function isState(uint256 modelId, uint256 state) external view returns (bool) {
        return states[stateKey(modelId, state)];
    }

    /// The list digest of the words: the low 250 bits of their SHA-256, as
    /// 32-byte words. Reverts on malformed words, as submit does.
    function listDigest(uint256[] calldata leaves) external pure returns (uint256) {
        (uint256 list,,) = parse(0, leaves);
        return list;
    }

    /// The statement digest of the list, its proof's one public input: the
    /// low 253 bits of sha256(abi.encode(modelId, listDigest(leaves))).
    function statementDigest(uint256 modelId, uint256[] calldata leaves) external pure returns (uint256) {
        (uint256 list,,) = parse(modelId, leaves);
        return digestOf(modelId, list);
    }

    /// The root of the list's tree: a binary tree of keccak256 hashes whose
    /// leaf i is keccak256(abi.encode(modelId, the words of leaf i)) (96 or
    /// 160 bytes, where an inner node hashes its two children, 64 bytes),
    /// each level paired left to right, a node without a right sibling
    /// paired with bytes32(0), up to one node (a list of one is its leaf).
    function listRoot(uint256 modelId, uint256[] calldata leaves) external pure returns (bytes32) {
        (, bytes32 root,) = parse(modelId, leaves);
        return root;
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

    /// Parse the words into leaves and return the list digest, the root of
    /// the list's tree and the number of leaves.
    function parse(uint256 modelId, uint256[] calldata leaves)
        private
        pure
        returns (uint256 list, bytes32 root, uint256 count)
    {
        uint256 n = leaves.length;
        if (n == 0 || n > 4 * MAX_LEAVES) {
            revert ListSize(n);
        }
        // The words in memory, as a bytes array whose length word is the
        // scratch word in front of the first leaf.
        bytes memory words;
        assembly ("memory-safe") {
            words := mload(0x40)
            mstore(words, shl(5, n))
            calldatacopy(add(words, 0x20), leaves.offset, shl(5, n))
            mstore(0x40, add(add(words, 0x20), shl(5, n)))
        }
        list = uint256(sha256(words)) & LIST_MASK;
        uint256 hashes;
        (hashes, count) = hashLeaves(modelId, words, n);
        root = treeRoot(hashes, count);
    }

    /// Hash each leaf of the words (n of them, in memory after the word at
    /// words) into an array of leaf hashes: the word in front of each leaf
    /// is overwritten with the model id, and the leaf hashed with it. The
    /// words are unusable afterwards.
    function hashLeaves(uint256 modelId, bytes memory words, uint256 n)
        private
        pure
        returns (uint256 hashes, uint256 count)
    {
        assembly ("memory-safe") {
            hashes := mload(0x40)
            mstore(0x40, add(hashes, shl(5, shr(1, n))))
        }
        uint256 i;
        while (i < n) {
            uint256 kind = wordAt(words, i) >> KIND_SHIFT;
            uint256 size = kind == REQUEST ? 2 : 4;
            if (kind != REQUEST && kind != TURN) {
                revert UnknownKind(i, kind);
            }
            if (n - i < size) {
                revert TruncatedLeaf(i);
            }
            if (count == MAX_LEAVES) {
                revert ListSize(n);
            }
            if (kind == TURN && wordAt(words, i + 3) == 0) {
                revert EmptyStateOut(i);
            }
            assembly ("memory-safe") {
                let front := add(words, shl(5, i))
                mstore(front, modelId)
                mstore(add(hashes, shl(5, count)), keccak256(front, shl(5, add(size, 1))))
            }
            unchecked {
                i += size;
                ++count;
            }
        }
    }

    /// The word at index i of the words.
    function wordAt(bytes memory words, uint256 i) private pure returns (uint256 word) {
        assembly ("memory-safe") {
            word := mload(add(add(words, 0x20), shl(5, i)))
        }
    }

    /// Reduce the count leaf hashes at hashes, in place, to the root of
    /// their tree.
    function treeRoot(uint256 hashes, uint256 count) private pure returns (bytes32 root) {
        assembly ("memory-safe") {
            for {} gt(count, 1) {} {
                let half := shr(1, add(count, 1))
                for { let j := 0 } lt(j, half) { j := add(j, 1) } {
                    let left := add(hashes, shl(6, j))
                    mstore(0x00, mload(left))
                    let right := 0
                    if lt(add(shl(1, j), 1), count) { right := mload(add(left, 0x20)) }
                    mstore(0x20, right)
                    mstore(add(hashes, shl(5, j)), keccak256(0x00, 0x40))
                }
                count := half
            }
            root := mload(hashes)
        }
    }

    /// Record the leaves of a verified list, in order: emit a request's
    /// event; check a turn's state in, record its state out and emit its
    /// event.
    function record(uint256 modelId, uint256[] calldata leaves) private {
        uint256 n = leaves.length;
        uint256 i;
        while (i < n) {
            uint256 first = leaves[i];
            if (first >> KIND_SHIFT == REQUEST) {
                emit InferenceVerified(modelId, first & VALUE_MASK, leaves[i + 1], msg.sender);
                i += 2;
            } else {
                uint256 stateIn = first & VALUE_MASK;
                if (stateIn != 0 && !states[stateKey(modelId, stateIn)]) {
                    revert UnknownState(modelId, stateIn);
                }
                uint256 stateOut = leaves[i + 3];
                states[stateKey(modelId, stateOut)] = true;
                emit TurnVerified(modelId, stateIn, stateOut, leaves[i + 1], leaves[i + 2], msg.sender);
                i += 4;
            }
        }
    }

    /// The statement digest of a model id and a list digest.
    function digestOf(uint256 modelId, uint256 list) private pure returns (uint256) {
        return uint256(sha256(abi.encode(modelId, list))) & DIGEST_MASK;
    }

    /// An inner node of a list's tree.
    function hashPair(bytes32 left, bytes32 right) private pure returns (bytes32 node) {
        assembly ("memory-safe") {
            mstore(0x00, left)
            mstore(0x20, right)
            node := keccak256(0x00, 0x40)
        }
    }

    /// The key of a state of a model's conversations.
    function stateKey(uint256 modelId, uint256 state) private pure returns (bytes32) {
        return keccak256(abi.encode(modelId, state));
    }

    /// The key of a publication.
    function publicationKey(address publisher, uint256 modelId) private pure returns (bytes32) {
        return keccak256(abi.encode(publisher, modelId));
    }
}
