// Package recursion turns the segment proofs of the aggregated design into
// one BN254 Groth16 proof of a list (statement.List: the model id and its
// leaves, requests and turns) whose one public input, the statement
// digest (statement.List.Digest, SHA-256 of the model id and the list
// digest), is what an Ethereum contract checks. One aggregator circuit per
// deployment's pass and one wrapper circuit for every model and every
// kind of list.
//
// # Curve chain
//
//	segments     BLS12-377 Groth16 (circuits.Committed), public: the statement, the digests of
//	   │          their opening's points and the scalars of its pairing check ([SegmentShape.NbPublic])
//	   │          verified natively: BLS12-377 Fp = BW6-761 Fr
//	   ▼
//	aggregator   BW6-761 Groth16 ([Aggregator]), public (ModelID, ListDigest)
//	   │          verified by emulating BW6-761 Fp and Fr on BN254 Fr
//	   ▼
//	wrapper      BN254 Groth16 ([Wrapper]), public StatementDigest of (FinalModelID, ListDigest)
//
// Since r(BLS12-377) < r(BN254) < r(BW6-761), a BLS12-377 scalar is the same
// integer in the three scalar fields: the digests travel unchanged, as field
// elements, from the segments to the chain. Both outer circuits take the
// verifying key of the proofs they check as a witness and hash it into the
// model id, so a wrapper is set up once and serves every model; models are
// told apart by id.
//
// # Segment contract
//
// A segment circuit is a Groth16 circuit over BLS12-377 Fr whose public
// inputs are, in order, the statement (ModelID, InputDigest, OutputDigest),
// the digests (gadgets/pcs.PointsDigest) of its proof's own commitments,
// of its multiplicities' commitments and of its opening's folds, then the
// scalars of its opening's pairing check, then a chunk's chosen logits
// ([SegmentShape.NbPublic]). Its Groth16 proofs carry 0 or 1 Pedersen
// commitment (gnark's api.Commit, used by range checks and lookups), never
// committing to a public input. A segment prover passes
// [SegmentProverOption] to groth16.Prove so that the commitment challenge
// is the one the aggregator recomputes.
//
// # Aggregator
//
// [Aggregator] completes the segment proofs of one or more passes of a
// model ([PassShape]: a request's, a turn's or a list's; a list's pass is
// its aggregator's only one). Per segment it recomputes the digests from
// the points (gadgets/pcs.PointsDigest), verifies the Groth16 proof
// (gnark's std/recursion/groth16 over sw_bls12377, with subgroup checks)
// on its pass's statement, the digests and the scalars, and asserts,
// within each pass, that the segment's boundary commitment is the next
// one's incoming commitment. When the LM head is proven in chunks of the
// vocabulary (inference.ChunkedSegments: the last block's segment without
// it, then one segment per range of columns), every chunk reads the
// stream the last block hands on: a chunk's incoming commitment equals
// the next chunk's, and each chunk's chosen logits
// ([SegmentShape.NbChosen]) equal the pass's first chunk's, so that the
// argmax margins of every chunk are taken against the same logits
// (package inference/committed, "Chunks of the LM head"). Then
// gadgets/pcs.VerifyGroup checks every opening of every pass at once
// (subgroup checks, the MSMs, one pairing against the SRS's [1]₂,
// [τ]₂ + [τ²]₂, [τ³]₂, constants of the circuit). The statement values
// enter the segment verifiers through their bits, so the segment sees the
// same integer; the canonicity check on the digests rules out aliases
// x + r(BLS12-377). It asserts
//
//	ModelID = low₂₅₀ Poseidon2_{BW6-761}(K("recursion/model-id"), k, n_c, vk₁ … vk_k, t)
//
// over the k segments of every pass in order, where n_c is the number of
// Pedersen commitments per segment and t the digest
// (gadgets/pcs.PointsDigest, pcs.Digest natively) of the model's table
// commitments the segments' openings read, in the same order. The layout
// itself is not hashed: the aggregator's key, which the final id binds
// ([BucketLeaf]), is another for every layout.
//
// Its public inputs are ModelID and ListDigest, the list digest of what
// the passes prove (statement.List.ListDigest). Each pass's segments
// state it as (ModelID, InputDigest, OutputDigest), private in the
// aggregator: for a request's pass the input and output digests, a
// request leaf; for a turn's pass the same, with the states in and out
// it derives (below) a turn leaf; the aggregator computes the list digest
// of the passes' leaves in order (gadgets/statement.ListDigestOf: SHA-256
// in field arithmetic, with no lookup and no commitment). For a list's
// pass the segments state the list digest and the count, which they
// compute (below) and the aggregator passes on. It has no Pedersen
// commitment of its own, the layout the wrapper is compiled for.
//
// A mixed list ([RequestPass] and [TurnPass] in any order) thus costs one
// pass of segment circuits per leaf and about a request aggregator's
// share per pass in the aggregator; its leaves are fixed by the layout,
// one per pass.
//
// # Turns
//
// A conversation's turn (inference/committed, "Turns") is proven by turn
// segment circuits, whose public inputs end with the turn's Start and
// Keep ([SegmentShape.Turn]), and aggregated as a turn's pass
// ([TurnPass]), whose witnesses StateIn and StateOut enter the list
// digest of the turn's leaf (state in, input, output, state out). It
// takes the state in as witnesses ([TurnState]: its rows
// and per block the commitments to the keys' and values' cache), asserts
// that every segment reads those commitments from its blocks' KeysIn and
// ValuesIn and that every segment's Start is the state's rows and its
// Keep the turn's, adds each block's written rows' commitments to the
// state in's (BLS12-377 points, native here: AddUnified, the identity
// being (0, 0)), and asserts StateIn and StateOut, the digests of native
// committed State.Digest (pcs.DigestWith in circuit, 0 for the empty
// state, whose commitments it asserts to be the identity; the state out
// has Rows + Keep rows).
//
// # Batches
//
// A batch's pass (inference/committed, "Batches") is proven by the
// segment circuits of circuits.CommittedBatch, whose statement is (model
// id, list digest, number of requests), the list digest of a request
// leaf per request (gadgets/statement.ListDigest); a list's pass
// ([ListPass]) exposes that list digest.
//
// # Model ids
//
// [ModelID] is the aggregator's id, the one the segments seed their
// transcript with: the hash above over the keys in the form the circuit
// verifies with (e(α, β), the K points, −γ, −δ, commitment keys, each
// coordinate a BLS12-377 Fp element, i.e. a BW6-761 Fr element), truncated
// to [ModelIDBits] = 250 bits. A model is deployed with a list of row
// buckets and kinds of aggregator, each with its own segments' and
// aggregator's keys; the aggregator of a layout in the bucket of R rows
// is the leaf of slot s = 32·kind + ⌈log₂ R⌉ ([Slot], [BucketSlot]; kind 0
// a request's pass, 1 a list's, 2 a turn's, 3 several passes) of a tree
// of [BucketSlots] = 128 slots ([Deployment]):
//
//	leaf_s  = Poseidon2_{BN254}(K("recursion/bucket-leaf"), s, n_c, limbs(vk_agg), ModelID)   ([BucketLeaf])
//	node    = Poseidon2_{BN254}(left, right),  an empty slot 0
//	FinalID = low₂₅₀ Poseidon2_{BN254}(K("recursion/final-model-id/v2"), model digest, root)
//
// with limbs listing every BW6-761 Fp coordinate of the aggregator key as 12
// little-endian 64-bit words and the model digest model.Model.ID (weights,
// tokenizer, BOS rule). The final id is the one the wrapper exposes, the
// same for every bucket and kind of the deployment: a conversation's
// turns proven alone and in mixed lists of one deployment state one id,
// so that they chain on chain. All are recomputed natively
// from the keys;
// K(t) = SHA-256("veriformer/"+t) mod r as in package transcript, and the
// hashes are gnark-crypto's Poseidon2 Merkle–Damgård hashers (zero IV,
// width-2 compression), matching gnark's std/hash/poseidon2 in-circuit.
//
// # Wrapper
//
// [Wrapper] has one public input, StatementDigest — the on-chain layout —
// and witnesses the final model id ModelID, the list digest ListDigest,
// the inner model id, the model digest, the bucket's slot and its leaf's
// path in the bucket tree, the aggregator proof and the aggregator key. It
// asserts the slot below [BucketSlots] and ModelID the final id of the
// root its leaf and path give (its leaf from vk_agg and the inner id),
// verifies the BW6-761 proof by field emulation (std/recursion/groth16
// over sw_bw6761) on public inputs (inner id, ListDigest), both
// decomposed into 250 bits, with subgroup checks, and asserts
// StatementDigest = SHA-256(ModelID ‖ ListDigest) truncated to 253 bits
// (gadgets/statement.DigestOfList). It knows nothing of the leaves'
// kinds: one wrapper serves every aggregator of every model.
// [WrapperWitness] is the public witness of a final list. It verifies any
// BW6-761 proof of that layout with the number of commitments it is
// compiled for ([AggregatorCommitments]).
//
// # Driver
//
// [AggregatorAssignment] and [ValueOfSegmentProof] build the aggregator's
// witness from native proofs and keys; [VerifyAggregated] verifies its
// proof natively on a list. [Wrap] verifies an aggregator proof, proves
// the wrapper with a proof made for gnark's Solidity verifier and
// verifies it, and returns the final list (the leaves under the final
// model id, whose statement digest is the on-chain public input);
// [WrapperAssignment] builds its witness ([ValueOfAggregatorProof]).
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
// The default run checks the model ids on toy keys, the aggregator's
// shapes and links on small circuits, and runs the wrapper in gnark's test
// engine on a real proof of a toy BW6-761 circuit with the aggregator's
// public inputs, of a list holding a request and a turn. The aggregator
// on real segment proofs is proven end to end by package test. The build
// tag full adds TestCommittedAggregator (the default model's two segment
// circuits proven with Groth16, the aggregator solved on them, refusing a
// tampered list digest), TestTurnAggregator (two turns' segments, the
// turn aggregator solved on them), TestMixedAggregator (two requests' and
// a turn's passes of the micro model, one aggregator solved on them,
// refusing each tampered variant) and TestWrapperCircuit
// (the wrapper compiled, its size snapshot checked, solved on honest and
// dishonest witnesses) and TestWrapperProve (its setup, cached, a proof
// with [Wrap] and its verification):
//
//	go test -tags full ./recursion -run 'TestWrapperCircuit|TestWrapperProve' -timeout 180m
package recursion
