// Package solidity puts the final proof of a list of statements on
// Ethereum: it exports gnark's Groth16 verifier for a BN254 verifying key,
// compiles it with the InferenceRegistry contract, deploys both, and submits
// proofs, on go-ethereum's simulated chain or through any JSON-RPC
// endpoint.
//
// # Lists and the public input
//
// A proof states a [List] (statement.List): a model id below 2²⁵⁰ and 1 to
// statement.MaxLeaves = 4096 leaves in order ([Leaf]), each a request
// (input digest, output digest) or a turn of a conversation (state in,
// input digest, output digest, state out). A single request is a list of
// one. Every value of a leaf is below 2²⁵⁴ and no turn leaves the empty
// state 0 ([ValidateList]). A leaf is its words, its kind in the two top
// bits of the first:
//
//	request  (input + 1·2²⁵⁴, output)
//	turn     (stateIn + 2·2²⁵⁴, input, output, stateOut)
//
// and a list is its leaves' words w₀, …, w_{m−1} in order. Every final
// proof has exactly one public input, the statement digest:
//
//	list   = uint256(sha256(w₀ ‖ … ‖ w_{m−1})) & (2²⁵⁰ − 1)    words as 32-byte big-endian
//	digest = uint256(sha256(abi.encode(modelId, list))) & (2²⁵³ − 1)
//
// (statement.List.ListDigest, statement.List.Digest, [PublicInputs]). The
// registry recomputes both from the words it receives with the SHA-256
// precompile. [CheckWitness] checks a public witness against a list.
//
// # Verifier
//
// [ExportVerifierTemplate] writes gnark's Solidity verifier for the key,
// from gnark's own export (so a gnark upgrade regenerates it), as one of
// two templates with the same ABI, gnark's:
// verifyProof(bytes proof, uint256[1] input). When the circuit commits to
// wires (gnark's commitment-based range checks and emulated arithmetic do),
// the proof carries one Pedersen commitment D and a proof of knowledge π,
// and a valid proof satisfies
//
//	(P)  e(D, −σG) · e(π, G) = 1
//	(G)  e(A, B) · e(C, −δ) · e(α, −β) · e(L, −γ) = 1,  L = K₀ + x·K₁ + c·K_c + D
//
// with x the public input and c = Keccak-256(D ‖ committed public inputs)
// mod r. [Gnark] is the export unchanged: it checks (P) and (G) in two
// calls of the pairing precompile (2 and 4 pairs). [Merged] (the default,
// [ExportVerifier]) changes verifyProof only: it derives
//
//	ρ = Keccak-256(A ‖ B ‖ C ‖ D ‖ π ‖ x) mod r,  rejecting ρ = 0,
//
// and checks (G) · (P)^ρ = 1 in one call: the pairs of (G) and
// e(ρ·D, −σG), e(ρ·π, G). When G = γ, as in keys from gnark's MPC ceremony
// (both are the G2 generator), e(L, −γ) · e(ρ·π, γ) = e(L − ρ·π, −γ) and
// the call has five pairs ([FoldsProofOfKnowledge]). If (P) fails, its
// left side is a generator of the prime-order target group and exactly one
// ρ mod r makes the product 1; ρ is a hash of everything both sides
// depend on, so a forger needs that hash to hit one value in about 2²⁵⁴
// (docs/onchain.md has the argument). verifyCompressedProof and
// compressProof stay gnark's. The merge replaces three pieces of gnark's
// verifyProof and fails when a gnark version exports anything else.
//
// H must be the same in the prover: gnark's default hash-to-field (RFC 9380
// over SHA-256) is not what the verifier computes. Prove with
// [ProverOptions] and verify natively with [VerifierOptions]. Keys with more
// than one commitment are refused: the template checks only one.
//
// The proof travels as bytes, 32-byte big-endian words ([ProofBytes], the
// layout of gnark's MarshalSolidity):
//
//	A.x A.y  B.x₁ B.x₀ B.y₁ B.y₀  C.x C.y  [D.x D.y π.x π.y]
//
// 256 bytes without a commitment, 384 with one. Compressed points cost more
// gas than they save in calldata (each needs a square root by modular
// exponentiation; TestCompressedProofGas measures it), so they are not used.
//
// # Registry
//
// InferenceRegistry ([RegistrySource], [RegistryABI]) is constructed with
// the verifier's address and a required model id (0: any). Its one entry
// point, submit(proof, modelId, leaves) ([PackSubmit], [Chain.Submit]),
// takes the list's words as leaves and
//
//  1. refuses a model id other than the required one (UnexpectedModelId);
//  2. parses the words: the top two bits of the word that starts a leaf
//     are its kind, 1 a request of two words, 2 a turn of four; another
//     kind reverts with UnknownKind(index, kind), a leaf cut short by the
//     end of the words with TruncatedLeaf(index), a turn whose state out is
//     0 with EmptyStateOut(index), index the word the leaf starts at; no
//     leaf, or more than MAX_LEAVES, reverts with ListSize(words);
//  3. computes the statement digest and the root of the list's tree
//     (below);
//  4. returns if the root is recorded already, without verifying,
//     recording or emitting anything: a replay, or a copy of a pending
//     submission mined first, never makes a submission fail;
//  5. calls the verifier with the digest (it reverts on an invalid
//     proof) and records the root: one storage slot per list;
//  6. walks the leaves in order: a request emits InferenceVerified(modelId,
//     input, output, submitter); a turn requires its state in to be 0 or a
//     state of the model that a recorded turn left, in an earlier list or
//     earlier in this one (UnknownState otherwise), records its state out
//     as a state of the model and emits TurnVerified(modelId, stateIn,
//     stateOut, input, output, submitter);
//  7. emits ListVerified(root, modelId, count, submitter).
//
// A state may have several continuations, each recorded: a model's
// conversations form a tree rooted at the empty state (a regenerated turn,
// a branch from any recorded state), not a chain. A proof is not bound to
// its submitter: anyone holding it records the same list.
//
// The root ([ListRoot]) is that of a binary tree of Keccak-256 hashes:
//
//	leaf i   keccak256(abi.encode(modelId, the words of leaf i))    96 or 160 bytes ([LeafHash])
//	node     keccak256(left ‖ right)                                 64 bytes
//
// each level paired left to right, a node without a right sibling paired
// with bytes32(0), up to one node; a list of one is its leaf hash. A leaf
// hashes 96 or 160 bytes and a node 64, so no node passes for a leaf.
// isVerified(modelId, leaf, index, path) recomputes a root from one leaf's
// words, its index and its siblings from the leaf up (bit k of index, lowest
// first, set when the node at height k is a right child; at most [MaxDepth]
// siblings, index below 2^len(path); a list of one: index 0, no sibling) and
// answers whether that root is recorded: true for every leaf of every
// recorded list ([LeafPath], [VerifyLeafPath], [IsVerified],
// [IsLeafVerified]). isRecorded(root) and isState(modelId, state) answer
// for a root and a state ([IsRecorded], [IsState]); listDigest,
// statementDigest and listRoot are submit's computations as pure functions.
// [Events], [TurnEvents] and [ListEvents] decode a receipt's events.
//
// publishModel(modelId, name, metadataURI) records that the caller stands
// behind a model id (once per caller and id, not 0) and emits
// ModelPublished (publisher and id indexed); isPublished answers. The
// registry accepts proofs under any id its verifier accepts: consumers
// compare ids with those of publishers they trust.
//
// # Compiler
//
// [Compile] runs solcjs (npm package solc, version [SolcVersion]) in
// standard-JSON mode with the optimizer for [EVMVersion]. scripts/setup-solc.sh
// installs it under .cache/solc in the module root; VERIFORMER_SOLCJS
// overrides the path. [CompileContracts] exports and compiles in one step.
//
// # Chains and keys
//
// A [Chain] sends transactions from one account: [NewSimulatedChain] seals a
// block after each one, [NewChain] and [DialChain] wait for a node to mine.
// [DeployRPC], [SubmitRPC] and [IsVerifiedRPC] take a JSON-RPC URL and,
// except the last, the chain id to sign for: a pinned id the endpoint does
// not serve is refused before anything is signed ([ChainIDMismatchError]);
// nil signs for the endpoint's. Keys
// come from an encrypted keystore file and a password file, or from the
// environment variable VERIFORMER_PRIVATE_KEY ([LoadKey]); never from a
// command line. Failed calls come back as [*RevertError] naming the
// contract's error (ProofInvalid(), CommitmentInvalid(),
// PublicInputNotInField(), UnexpectedModelId(expected, got), …).
//
// # Tests
//
// The tests use small circuits with the one public input: one without a
// commitment, one with (64-bit range checks) keyed by groth16.Setup and the
// same keyed by gnark's MPC ceremony (one contribution per phase). Their
// keys are stored in testdata so that the exported Solidity of both
// templates is compared byte for byte with golden files, and both
// templates' verifiers are run on the same proofs. A proof of any list is
// a proof of the fixture circuit for the list's digest. The registry's
// digests and roots are checked on the golden lists the native and circuit
// code share (statement/testdata/lists.json) and on the worked example of
// docs/onchain.md, whose values the tests recompute. Flags:
//
//	go test ./solidity -run TestExportGolden -update              rewrite the golden Solidity from the stored keys
//	go test ./solidity -run TestExportGolden -update-keys -update  new setup, new keys, new golden files
//	go test ./solidity -run '^$' -bench SubmitGas                 gas of a submission as benchmark metrics
//
// The simulated chain runs the rules of Osaka (mainnet). TestDevnodeRPC
// starts the development node built by scripts/setup-geth.sh
// (test/devnode: go-ethereum's developer mode with HTTP JSON-RPC on
// 127.0.0.1) as a separate process, or the binary named by
// VERIFORMER_DEVNODE, and fails when it is missing; solcjs missing fails
// every test that compiles.
package solidity
