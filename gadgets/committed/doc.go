// Package committed verifies the committed segment proof of package
// inference/committed in a BLS12-377 circuit, where its scalars are
// native: the gadgets of the aggregated design's segment circuit
// (circuits.Committed).
//
// # The segment's check
//
// [VerifySegment] verifies one segment's proof of a model: the whole field part
// of the native verifier (inference/committed Shape.VerifyField), step by
// step, each step the twin of the native one and tested on the same
// proofs ([Verify]):
//
//  1. the transcript seeded with the statement, the segment and the
//     digest of the proof's commitments;
//  2. [VerifyLookups]: the LogUp instance over the layout's slots (the
//     function tables left as claims on fixed commitments), the id
//     column, the slots' values, the decomposition zero-check with its
//     public tables;
//  3. [VerifyRequants]: the accumulator points and the batched
//     requantization sum-check;
//  4. the projections (gadgets/linear), their weight and bias claims
//     checked against the model's weights as circuit constants;
//  5. the factor sum-checks: gated products, RoPE rotations (the cos and
//     sin tables as constants), attention contractions as matrix
//     products (the causal mask in the public weights) and the scores'
//     key sum-checks;
//  6. the norms (LayerNorm and RMSNorm: row identities, the variance and
//     scaling sum-checks, γ, β and ε constants);
//  7. the softmax zero-check and its one-hot sum-check;
//  8. the residual adds at one point;
//  9. the embedding, in the first segment: its claim is the model's
//     embedding of the pass's R tokens T (the request's prompt, output
//     and zeros), evaluated with the tokens as variables (each row of the
//     embedding table folded with the column point, looked up at each
//     token);
//  10. the argmax, in a segment with the LM head, with every row's target
//     U_i as a variable, asserted equal to T[i + 1] on the live rows
//     (their bits give the one-hot points and the prefix selectors; each
//     is checked below the vocabulary size; they are absorbed packed
//     before the chosen logits). In a chunk of the LM head over columns
//     [a, b) (native "Chunks of the LM head"), each target's bits over the
//     vocabulary give [a ≤ t < b] and [t ≥ b] (each a prefix selector at
//     the boolean point of a constant), its column c = [a ≤ t < b]·(t − a)
//     the one-hot point of its Local logit, the prefix Prefix_c +
//     [t ≥ b]·Sel, and Local = Chosen is asserted where a ≤ t < b;
//  11. the boundary's point, in every segment that hands its stream on;
//  12. the grouped opening's field part (gadgets/pcs.VerifyGroupFieldParts,
//     the commitments in parts of the shape's PartVars) over every
//     claim, in the native order, keeping the scalars of the parts the
//     proof commits (native.SelectParts).
//
// The request is a private input — its prompt and output in buffers of
// the bucket's R rows, their lengths — bound to the statement's input and
// output digests (gadgets/statement.Request.Bind), which gives the pass's
// tokens T and its live rows; the circuit is fixed by the model (its
// weights are constants), the segment and R, and serves every request
// whose pass fits R. The model id is not checked in the segment:
// it seeds the transcript, and the aggregator derives it from the
// segments' verifying keys (package recursion).
//
// # Turns
//
// A turn's segment (native "Turns": the shape made WithTurn) has one
// circuit for every turn of its bucket and capacity: the turn's Start and
// Keep are public inputs, Keep asserted to be native TurnKeep,
// min(s + g, R), of the request's lengths, so nothing in the circuit
// depends on the start. The transcript absorbs "committed/turn", Start and the
// capacity after the segment; the contractions' masked weights over the
// cache's Capacity keys are the shifted causal sums of
// gadgets/poly.ShiftedCausalWeights at the variable Start (the context's
// eq(e_i, ·)·eq(r_i, ·) against eq(e_j, ·), the keys' eq(z_i, ·) against
// eq(e_j, ·)·eq(r_j, ·)); the softmax mask is gadgets/poly.ShiftedCausal
// at Start; the cache step verifies each block's reads
// (gadgets/kvcache.Verify of the R new rows from Start) and writes
// (gadgets/kvcache.VerifyWrites of Keep rows from Start), in the native
// order; and GPT-2's position rows in the embedding are the folded rows
// of P's first Capacity positions, looked up at Start + i; so are
// RoPE's tables C and S′ at a rotation's end point: the model's cos and
// sin rows of the first Capacity positions, each folded with the
// columns' β table, looked up at Start + i and summed with the rows' β
// table (Capacity is at most the RoPE tables' positions). The cache
// commitments enter with the others through the commitments' digest;
// the aggregator takes Start from the state in and checks the state out.
//
// # Batches
//
// A batch's segment (native "Batches": the shape of a stacked pass) has
// one circuit for every layout of its bucket: the layout is the
// request's, Bound.Starts (1 on each request's first row, and on every
// pad row), with Bound.Next the live rows' targets, both handed
// over by gadgets/statement.BatchRequest.Bind with the tokens and the
// live rows. From Starts, row by row, the circuit derives each row's
// position in its request, pos[a] = (1 − Starts[a])·(pos[a−1] + 1), and
// evaluates the block-diagonal mask: the contractions' masked weights
// and the softmax mask are Σ_a x[a]·(P[a] − c[a]), P the prefix sums of
// the key rows' weights and c[a] = P[begin(a) − 1] carried by c[a] =
// c[a−1] + Starts[a]·(P[a−1] − c[a−1]) — two products per row where a
// single request's mask costs one (O(log R) for the softmax's). GPT-2's
// position rows in the embedding are the folded rows of P's first
// min(R, context) positions looked up at pos[i] (a position beyond the
// table has no row to find: the lookup fails); RoPE's tables are read
// the same way (ropeAt at pos[r]); the argmax compares each live row's target with
// Next[i]. The circuit asserts Starts[0] = 1 and every Starts[a] a bit.
// A batch's pass is never a turn.
//
// # Public inputs
//
// [Publics], in order: the statement (model id, input digest, output
// digest); the digests (pcs.Digest) of the proof's commitments, of its
// multiplicities' commitment (its parts) and of the opening's folds; the
// scalars of the opening's pairing check — one per committed part (the
// proof's, native Shape.NbParts, then the parts of the model's fixed
// table commitments, Shape.NbTableParts), one per fold, two of the
// quotient and three of the generator; in a chunk of the LM head, its
// chosen logits (one per row), which the aggregator must find
// equal in every chunk of a pass; in a turn, its Start and Keep. The aggregator
// (recursion.Aggregator) recomputes the digests from the points
// and completes the pairing check with these scalars. The opening's
// quotient is absorbed after the last challenge, so nothing the circuit
// computes depends on it: it enters the pairing check alone.
//
// # Cost
//
// The built-in model's segments over 5 rows (testdata/segment.csv):
// 529,185 R1CS for the first (block 0 and the embedding), 588,894 for
// the last (block 1, the LM head and the argmax), 552,584 for a Llama
// segment (532,255, 591,964 and 555,654 before the attention
// contractions became matrix products, whose masked weights cost
// O(n + T) rather than O(n·T); 540,715, 615,657 and 564,962 before the
// model's ranges were widened to their windows, which leaves fewer limbs
// to look up). Most of it is the LogUp instance (≈ 850 R1CS per degree-3 GKR
// round); the steps' own counts are logged by their tests: the
// requantizations ≈ 28k, the projections ≈ 22–27k, the factors ≈ 20k
// (43k with Llama's gated product and rotations), a block's norms
// ≈ 51–77k, a softmax ≈ 19.5k, the residuals ≈ 3k, the argmax ≈ 5k.
// The embedding costs about V + 2^⌈log₂ d⌉ + rows·(3 + ⌈log₂ rows⌉)
// constraints and V·d constant coefficients.
//
// # Tests
//
// Each step has a circuit of its own, resumed from the native
// transcript state before it and checked against the state after it
// (steps_test.go): the honest proof solves it, and every value of the
// step's first and last proofs changed is rejected by both faces. The
// segment circuit is tested whole on the built-in model's two segments
// and a Llama segment: the honest proof solves it with the native
// scalars; a value of every kind of the proof changed is rejected by
// the native verifier and by the circuit with the honest scalars, and
// when the native field part still passes, the circuit computes the
// same scalars (which the pairing check rejects); every public input
// changed alone is rejected. TestGPT2SmallSegments, behind
// -committed.gpt2small, compiles GPT-2 small's segment circuits and logs
// their sizes.
package committed
