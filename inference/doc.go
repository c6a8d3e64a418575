// Package inference proves and verifies a whole inference natively: greedy
// generation of g output tokens after a prompt of s tokens by a GPT-2 or
// Llama family model, as one integer pass over the R tokens of a
// statement.Request — prompt ‖ output ‖ 0, …, cut to the row bucket R ≥
// s + g − 1 — whose live logits rows s − 1 … s + g − 2 have the output
// tokens as argmax (causal attention makes each row's computation the
// same as incremental decoding with a KV cache, whatever the rows after
// it hold; the tests check it). The rows past the live ones are pad rows:
// they satisfy every relation, and the statement says nothing of them.
//
// # Proof
//
// The proof opens the outputs of every non-linear step (see
// docs/architecture.md and [Tensors] for the canonical list) and proves
// every contraction by sum-check:
//
//	per block: Q, K, V projections (one batched linear proof); attention
//	(context = probabilities·values, then scores = queries·keysᵀ, zero where
//	masked; the queries and keys after RoPE for Llama); output projection;
//	MLP up (gate and up for Llama); MLP down
//	then: the LM head
//
// # Transcript
//
// Domain "veriformer/inference/v1", seeded with the statement (model id,
// input digest, output digest). The opened tensors are absorbed first, in
// canonical order (AbsorbPacked over their checked ranges). The packing
// checks each value against the window [Min, Min + 2^b) of its range; the
// verifiers also check the exact range [Min, Max] of the tensors of
// [WalkExact] (the requantized contraction outputs and the softmax row
// maxima), whose values no element-wise check bounds otherwise — without
// it a proof could exist for a pass on which the model stops with a
// BoundError. Then for each
// block (label "layer/i") and finally the LM head (label "lm_head"): for
// every contraction, its random point (row coordinates once, then the
// column coordinates of each projection), the accumulator claims computed
// from the opened outputs and remainders (protocol/requant), and the
// protocol's own transcript.
//
// # Segments
//
// A [Segment] is a range of consecutive blocks: the unit of one segment
// proof of the aggregated design (inference/committed), which also cuts
// the LM head into ranges of the vocabulary ([ChunkedSegments]). The
// direct design proves the whole pass as one segment.
//
// # Format
//
// [Proof.MarshalBinary] writes a versioned binary encoding (header
// [FormatVersion] and the field's name, then the proof's fields in order:
// canonical 32-byte field elements, varint integers, length-prefixed
// slices): a run's artifacts keep it as native-proof.bin. Nothing reads it
// back; a verifier checks the Groth16 proof of the circuit (package
// circuits), which replays [Verify].
//
// # Verification
//
// [Verify] recomputes the statement from the model and tokens, binds the
// opened tensors to a shape pass of the model (sizes and ranges come from
// the model, not from the proof), checks every element-wise relation
// (protocol/nonlinear, the embedding rows of the request's R tokens, the
// argmax of each live row), replays the transcript, verifies every sum-check and checks the
// claims it leaves: on opened tensors by direct evaluation, on weights and
// biases by evaluating the model's own.
package inference
