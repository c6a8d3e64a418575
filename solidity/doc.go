// Package solidity puts the final proof of an inference on Ethereum: it
// exports gnark's Groth16 verifier for a BN254 verifying key, compiles it
// with the InferenceRegistry contract, deploys both, and submits proofs, on
// go-ethereum's simulated chain or through any JSON-RPC endpoint.
//
// # Statement and public input
//
// A statement is three values (modelId, inputDigest, outputDigest) ∈ [0, r)³,
// r the BN254 scalar field order ([Statement]). Every final proof, in both
// designs, has exactly one public input, the statement digest
// (statement.Digest; [ValidateStatement] checks the values):
//
//	digest = uint256(sha256(abi.encode(modelId, inputDigest, outputDigest))) & (2²⁵³ − 1)
//
// that is SHA-256 of the three values as 32-byte big-endian words, read as
// a big-endian integer, its three most significant bits cleared. The final
// circuits compute it with SHA-256 in circuit from the three values, which
// they decompose canonically (below r); the registry recomputes it with the
// SHA-256 precompile from the three values it receives. [CheckWitness]
// checks a public witness against a statement.
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
// the verifier's address and a required model id (0: any). Its
// submit(proof, modelId, inputDigest, outputDigest) computes the key
// sha256(abi.encode(modelId, inputDigest, outputDigest)) ([StatementKey]);
// if the statement is recorded already, it returns without checking the
// proof, recording or emitting anything (so a submission overtaken by
// another of the same statement does not fail). Otherwise it calls the
// verifier with the key's low 253 bits, the statement digest (the verifier
// reverts on an invalid proof), records the key (one storage slot) and
// emits InferenceVerified with the three values as indexed topics and the
// submitter as data. isVerified answers whether a statement was recorded.
// A proof is not bound to its submitter.
//
// submitTurn(proof, modelId, stateIn, inputDigest, outputDigest, stateOut)
// records one turn of a conversation ([Turn]) the same way under the key
// sha256(abi.encode(modelId, stateIn, inputDigest, outputDigest,
// stateOut)), whose low 253 bits are the turn digest, provided stateIn is
// 0 (the empty state) or a state a recorded turn of modelId left
// (UnknownState otherwise) and stateOut is not 0 (EmptyStateOut); it then
// records stateOut as a state of modelId and emits TurnVerified (model id
// and both states indexed). isTurnVerified and isState answer.
//
// submitBatch(proof, modelId, inputDigests, outputDigests) records a batch
// of statements of one model ([Batch], 1 to statement.MaxBatch): it
// calls the verifier with the batch digest (statement.Batch.Digest, which
// batchDigest recomputes from the calldata), stores the root of the
// statements' Keccak-256 tree ([BatchRoot]: leaf i keccak256(abi.encode(
// modelId, in_i, out_i)), inner nodes keccak256 of their two children,
// a node without a right sibling paired with 0) in one slot, and emits
// InferenceVerified per statement in order, then BatchVerified (root and
// model id indexed). It refuses a recorded root (BatchRecorded), an empty,
// uneven or oversized batch (BatchSize). isBatchVerified checks a
// statement at an index against a recorded root with its path
// ([BatchPath], [VerifyBatchPath]).
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
// templates' verifiers are run on the same proofs. Flags:
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
