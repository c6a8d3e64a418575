// Package attention is the in-circuit verifier of the multi-head attention
// layer (package protocol/attention, whose documentation states the
// protocol): [VerifyOutput] turns claims on the output O into claims on the
// softmax output A and on the padded values V̂, [VerifyScores] turns claims
// on the masked scores S_M and the claim on V̂ into claims on Q, K and V.
// Both take frontend.API only, follow the native transcript order step for
// step, and evaluate every structured MLE (β factors, causal zeroifier and
// mask, the prefix selector of a decoding step or the shifted causal
// automaton of a continuation ([Zeroifier]), padding matrices P_Q and P_kv,
// the unpadding U = P_Qᵀ) in closed form with package gadgets/poly. The shape
// is a constant of the circuit, given as the native attention.Config (its
// Dims method validates it and derives the sizes, so both verifiers accept
// the same shapes); [PlaceholderOutputProof] and [PlaceholderScoresProof]
// size a circuit, [ValueOfOutputProof] and [ValueOfScoresProof] fill it
// from the native proofs. This package imports the native one, never the
// reverse, as gnark's std/recursion/groth16 does with backend/groth16.
//
// # Variable order
//
// As in the native package: a point of S_M or A is (r_a ‖ r_b ‖ r_j ‖ r_k)
// (key/value head, rank in the group, query row, key), a point of a matrix
// is (row ‖ column), X₁ the most significant bit.
//
// # Size
//
// The transcript dominates: each absorbed value or drawn challenge is one
// Poseidon2 compression, about 186 R1CS constraints on BN254 (a little
// less for a challenge, whose second input is a constant). With
// U = ⌈log₂ h_kv⌉ + ⌈log₂ g⌉ + ⌈log₂ m⌉, M = ⌈log₂ h_kv⌉ + ⌈log₂ l⌉,
// Z = ⌈log₂ s_q⌉ + ⌈log₂ l⌉, K = ⌈log₂ h_kv⌉ + ⌈log₂ m⌉ and
// D = ⌈log₂(h_q·m)⌉ the rounds of the five sum-checks (a degree-d round
// absorbs d values and draws one challenge), the halves make
//
//	T_output = 6 + 3U + 4M,   T_scores = 13 + 4Z + 4K + 3D
//
// transcript operations and cost about 186·T constraints each (within 1%
// on the snapshot shapes: the round arithmetic, d multiplications per
// round, and the closed forms, a few dozen multiplications, are the rest).
// Each extra claim on O or S_M adds a same-poly step over the n variables of
// the tensor, about 186·(3n + claims + 2) constraints.
// testdata/constraints.csv records the exact counts
// (TestConstraintSnapshot; go test -run Snapshot -update rewrites it):
// 33,935 for GPT-2 small (12 heads of 64, 16-token prefill: T = 68 + 115),
// 33,916 for a GPT-2 decoding step at context 64, 35,467 for 4 tokens
// appended to a cache of 60, 35,425 for Llama-style GQA 4:1 (32 query
// heads of 128, 8 key/value heads).
package attention
