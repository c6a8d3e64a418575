// Package recursion turns the segment proofs of the aggregated shape into
// one BN254 Groth16 proof of the statement — model id, input digest,
// output digest — whose one public input, the statement digest
// (statement.Digest, SHA-256 of the three values), is what an Ethereum
// contract checks.
//
// # Curve chain
//
//	segments     BLS12-377 Groth16, public (ModelID, InputDigest, OutputDigest, ChainIn, ChainOut)
//	   │          verified natively: BLS12-377 Fp = BW6-761 Fr
//	   ▼
//	aggregator   BW6-761 Groth16 ([Aggregator]), arity k, public (ModelID, InputDigest, OutputDigest)
//	   │          verified by emulating BW6-761 Fp and Fr on BN254 Fr
//	   ▼
//	wrapper      BN254 Groth16 ([Wrapper]), public StatementDigest of (FinalModelID, InputDigest, OutputDigest)
//
// Since r(BLS12-377) < r(BN254) < r(BW6-761), a BLS12-377 scalar is the same
// integer in the three scalar fields: the digests travel unchanged, as field
// elements, from the segments to the chain. Both outer circuits take the
// verifying key of the proofs they check as a witness and hash it into the
// model id, so the aggregator (one per arity) and the wrapper are set up
// once and serve every model; models are told apart by id.
//
// # Segment contract
//
// A segment circuit is a Groth16 circuit over BLS12-377 Fr whose public
// inputs are exactly, in order, ModelID, InputDigest, OutputDigest, ChainIn,
// ChainOut ([SegmentPublicInputs]). Its proofs carry 0 or 1 Pedersen
// commitment (gnark's api.Commit, used by range checks and lookups), never
// committing to a public input; that number is the [SegmentShape] the
// aggregator is compiled for. A segment prover passes
// [SegmentProverOption] to groth16.Prove so the commitment challenge is the
// one the aggregator recomputes. The segments of one proof carry one
// (ModelID, InputDigest, OutputDigest) and chain: ChainOutᵢ = ChainInᵢ₊₁.
// The first segment checks that its ChainIn is the transcript's initial
// state for the statement and the last that every claim is closed; the
// aggregator does not look inside the chaining values.
//
// # Aggregator
//
// [Aggregator] of arity k has public inputs (ModelID, InputDigest,
// OutputDigest) and witnesses: the graph digest g, the chaining values
// c₀ … c_k, and per segment i a proof πᵢ and a verifying key vkᵢ. It asserts
//
//	ModelID = low₂₅₀ Poseidon2_{BW6-761}(K("recursion/model-id"), k, n_c, vk₁ … vk_k, g)
//	InputDigest, OutputDigest < r(BLS12-377)
//	Verify_{vkᵢ}(πᵢ; ModelID, InputDigest, OutputDigest, cᵢ₋₁, cᵢ)   for i = 1 … k
//
// where n_c is the number of commitments per segment. The Groth16 checks run
// in BW6-761 R1CS with native BLS12-377 arithmetic (gnark's
// std/recursion/groth16 over sw_bls12377), with subgroup checks on the
// proof points. The statement values enter the segment verifiers through
// their bits, so the segment sees the same integer; the canonicity check on
// the digests rules out aliases x + r(BLS12-377). Swapping, dropping or
// foreign segments break the chain or change the hashed keys; a wrong
// statement value fails a segment's pairing check.
//
// # Committed aggregator
//
// [CommittedAggregator] completes the segment circuits of the committed
// shape (gadgets/committed.Segment), whose public inputs are the
// statement, the digests of their opening's points and the scalars of
// its pairing check ([CommittedShape.NbPublic]). Per segment it
// recomputes the digests from the points (gadgets/pcs.PointsDigest),
// verifies the Groth16 proof on the statement, the digests and the
// scalars, and asserts that the segment's boundary commitment is the next
// one's incoming commitment. When the LM head is proven in chunks of the
// vocabulary (inference.ChunkedSegments: the last block's segment without
// it, then one segment per range of columns), every chunk reads the
// stream the last block hands on: a chunk's incoming commitment equals
// the next chunk's, and each chunk's chosen logits (public inputs of its
// circuit, [CommittedShape.NbChosen]) equal the first chunk's, so that
// the argmax margins of every chunk are taken against the same logits
// (package inference/committed, "Chunks of the LM head"). Then
// gadgets/pcs.VerifyGroup checks every
// opening at once (subgroup checks, the MSMs, one pairing against the
// SRS's [1]₂, [τ]₂ + [τ²]₂, [τ³]₂, constants of the circuit). Its model id is
// [CommittedModelID]: [ModelID] of the segment keys with the digest of
// the model's table commitments as graph digest. Its public inputs are
// the aggregator's three, so the wrapper serves it unchanged.
//
// # Model ids
//
// [ModelID] is the aggregator's id, the one the segments seed their
// transcript with: the hash above over the keys in the form the circuit
// verifies with (e(α, β), K₀ … K₅, −γ, −δ, commitment keys, each
// coordinate a BLS12-377 Fp element, i.e. a BW6-761 Fr element), truncated to
// [ModelIDBits] = 250 bits. [FinalModelID] is the id the wrapper exposes:
//
//	FinalModelID = low₂₅₀ Poseidon2_{BN254}(K("recursion/final-model-id"), n_c, limbs(vk_agg), ModelID)
//
// with limbs listing every BW6-761 Fp coordinate of the aggregator key as 12
// little-endian 64-bit words. Both are recomputed natively from the keys;
// K(t) = SHA-256("veriformer/"+t) mod r as in package transcript, and the
// hashes are gnark-crypto's Poseidon2 Merkle–Damgård hashers (zero IV,
// width-2 compression), matching gnark's std/hash/poseidon2 in-circuit.
//
// # Wrapper
//
// [Wrapper] has one public input, StatementDigest — the on-chain layout —
// and witnesses the final statement (ModelID, InputDigest, OutputDigest),
// the inner model id, the aggregator proof and the aggregator key. It
// asserts ModelID = FinalModelID(vk_agg, inner id), verifies the BW6-761
// proof by field emulation (std/recursion/groth16 over sw_bw6761) on public
// inputs (inner id, InputDigest, OutputDigest), with subgroup checks, and
// asserts StatementDigest = statement.Digest(ModelID, InputDigest,
// OutputDigest) with SHA-256 in circuit (gadgets/statement). [WrapperWitness]
// is the public witness of a final statement. One wrapper serves every
// arity: all aggregators share the key layout (3 public inputs, no
// commitment).
//
// # Driver
//
// [CheckSegments] checks segments natively; [Aggregate] checks them, proves
// the aggregator and verifies the fresh proof; [Wrap] does the same for the
// wrapper, with a proof made for gnark's Solidity verifier, and returns the
// final statement (a statement.Statement, whose digest is the on-chain
// public input). [AggregatorAssignment] and [WrapperAssignment] build the
// witnesses from native proofs and keys ([ValueOfSegmentProof],
// [ValueOfAggregatorProof]).
//
// # Keys
//
// The aggregator's and the wrapper's keys, like the segments', are loaded,
// checked against their digests and cached by package setup
// ([setup.LoadOrSetup]); production keys come from its MPC ceremony
// (cmd/ceremony). [Keys] is setup's type.
//
// # Tests and build tag
//
// The default run builds toy segments, sets up (once; cached) and proves the
// arity-2 aggregator, checks the negative cases on its constraint system,
// and runs the wrapper on a real aggregator proof in gnark's test engine
// (about a minute and 5 GB once the keys are cached). The build tag full
// adds the rest of the wrapper:
//
//	go test -tags full ./recursion -run 'TestWrapperCircuit|TestWrapperProve' -timeout 180m
//
// TestCommittedAggregator, under the same tag, proves the default model's
// two committed segment circuits with Groth16 and solves the committed
// aggregator on them (see docs/recursion.md for its cost).
// TestWrapperCircuit compiles the wrapper (≈ 7.7M constraints, ≈ 10 GB),
// checks its size snapshot and solves it on honest and dishonest witnesses;
// TestWrapperProve sets it up (cached; 41 min and 14 GB the first time on 2
// shared cores), proves with [Wrap] and verifies. See docs/recursion.md for
// the measured numbers.
package recursion
