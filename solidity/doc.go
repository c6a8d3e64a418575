// Package solidity puts the final proof of an inference on Ethereum: it
// exports gnark's Groth16 verifier for a BN254 verifying key, compiles it
// with the InferenceRegistry contract, deploys both, and submits proofs, on
// go-ethereum's simulated chain or through any JSON-RPC endpoint.
//
// # Statement and public inputs
//
// Every final proof, in both proof shapes, has exactly three public inputs,
// in this order:
//
//	(modelId, inputDigest, outputDigest) ∈ [0, r)³,  r = BN254 scalar field order
//
// gnark numbers public inputs in the order the circuit struct declares its
// public fields, so the final circuit declares ModelID, InputDigest,
// OutputDigest first and in this order. [Statement] holds the three values;
// [StatementOf] reads them from a public witness. Values are not reduced
// anywhere: the verifier rejects a value ≥ r with PublicInputNotInField.
//
// # Verifier
//
// [ExportVerifier] writes gnark's Solidity template for the key. When the
// circuit commits to wires (gnark's commitment-based range checks do), the
// proof carries one Pedersen commitment D and a proof of knowledge π, and
// the verifier
//
//  1. checks the commitment: e(D, G_σ⁻) · e(π, G) = 1 (one more pairing
//     check, about 113,000 gas),
//  2. derives the commitment's public value c = H(D ‖ committed public
//     inputs) mod r, with H = Keccak-256,
//  3. checks e(A, B) · e(C, −δ) · e(α, −β) · e(L, −γ) = 1 where
//     L = K₀ + Σᵢ xᵢ·Kᵢ + c·K_c + D, with xᵢ the public inputs.
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
// 256 bytes without a commitment, 384 with one.
//
// # Registry
//
// InferenceRegistry ([RegistrySource], [RegistryABI]) is constructed with
// the verifier's address and a required model id (0: any). Its
// submit(proof, modelId, inputDigest, outputDigest) calls the verifier,
// which reverts on an invalid proof, records
// keccak256(abi.encode(modelId, inputDigest, outputDigest)) ([Statement.Key])
// and emits InferenceVerified; isVerified answers whether a statement was
// recorded. A proof is not bound to its submitter.
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
// [DeployRPC], [SubmitRPC] and [IsVerifiedRPC] take a JSON-RPC URL. Keys
// come from an encrypted keystore file and a password file, or from the
// environment variable VERIFORMER_PRIVATE_KEY ([LoadKey]); never from a
// command line. Failed calls come back as [*RevertError] naming the
// contract's error (ProofInvalid(), CommitmentInvalid(),
// PublicInputNotInField(), UnexpectedModelId(expected, got), …).
//
// # Tests
//
// The tests use two small circuits with the three public inputs, one
// without and one with a commitment (64-bit range checks), whose Groth16
// keys are stored in testdata so that the exported Solidity is compared
// byte for byte with golden files. Flags:
//
//	go test ./solidity -run TestExportGolden -update              rewrite the golden Solidity from the stored keys
//	go test ./solidity -run TestExportGolden -update-keys -update  new setup, new keys, new golden files
//	go test ./solidity -run '^$' -bench SubmitGas                 gas of a submission as benchmark metrics
//
// The simulated chain runs the rules of Osaka (mainnet). TestDevnodeRPC
// starts the development node built by scripts/setup-geth.sh
// (internal/devnode: go-ethereum's developer mode with HTTP JSON-RPC on
// 127.0.0.1) as a separate process, or the binary named by
// VERIFORMER_DEVNODE, and fails when it is missing; solcjs missing fails
// every test that compiles.
package solidity
