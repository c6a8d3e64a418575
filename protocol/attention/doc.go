// Package attention proves the linear part of causal multi-head attention
// (seed 002), with grouped-query attention (seed 001): head padding, the
// head-batched product Q·Kᵀ, causal masking, the head-batched product with
// V and unpadding. The softmax between the scores and the probabilities is a
// separate lookup layer, so the protocol comes in two halves that the
// pipeline runs on either side of it:
//
//	claims on O ──[ProveOutput]──► claims on A (softmax output) and on V̂
//	claims on S_M (softmax input) + claim on V̂ ──[ProveScores]──► claims on Q, K, V
//
// [VerifyOutput] and [VerifyScores] are the native verifiers; package
// gadgets/attention is the in-circuit twin: it imports this package, is
// sized by [Config] (through [Config.Dims]) and converts [OutputProof] and
// [ScoresProof] to witnesses (ValueOfOutputProof, ValueOfScoresProof).
//
// # Description
//
// Q is s_q × h_q·m, K and V are l × h_kv·m (m the head width, h_q = g·h_kv
// query heads, query head i reading key/value head ⌊i/g⌋; g = 1 is plain
// multi-head attention, h_kv = 1 multi-query attention). Per query head
//
//	S_i = Q_i·K_{⌊i/g⌋}ᵀ,  A_i = softmax(S_i masked),  O_i = A_i·V_{⌊i/g⌋},
//
// and O = [O_0 | … | O_{h_q−1}] is s_q × h_q·m. The query rows are the
// tokens at positions o, o+1, … (o = [Config].Start) and row j sees keys
// 0…o+j: a prefill pass has o = 0 and s_q = l; a decoding pass has s_q = 1
// and o the token's position (l = o + 1 for a cache of exactly the keys so
// far, larger for a fixed-size cache whose later rows are masked); a
// continuation appends s_q > 1 tokens to a cache of o rows.
// [MaskedScores], [Output] and [PadProbabilities] are the plain integer
// computations, with which a caller lays out the tables its claims are on.
//
// Scaling. The scores are the exact integers Q_i·K_iᵀ: the 1/√m of
// softmax(Q·Kᵀ/√m) is not applied here. It is folded into the fixed-point
// rescaling that feeds the softmax lookups (the model's score
// requantization multiplies by 2^f/√m and is proven by its own lookup
// argument), so this layer stays exact and needs no rounding.
//
// # Layouts and padding
//
// Every dimension is padded to a power of two: ŝ_q, l̂, m̂, ĥ_kv, ĝ, and
// D_q = 2^⌈log₂(h_q·m)⌉, D_kv = 2^⌈log₂(h_kv·m)⌉ for the unpadded widths.
// Query head i = a·g + b (a its key/value head, b < g its rank in the group)
// sits at padded head a·ĝ + b, so the padded head index has the bits of a
// then of b (for a power-of-two g this is just i):
//
//	Q̂ = Q·P_Q   ŝ_q × ĥ_kv·ĝ·m̂, column (a, b, t)   Q̂[j, (a,b,t)] = Q[j, (a·g+b)·m + t]
//	K̂ = K·P_kv  l̂ × ĥ_kv·m̂,    column (a, t)      (V̂ likewise)
//	S, S_M, A   ĥ_kv·ĝ × ŝ_q × l̂, index (a, b, j, k) (see [Config.ScoreIndex])
//	Ô           ŝ_q × ĥ_kv·ĝ·m̂, column (a, b, t);  O = Ô·U, U = P_Qᵀ
//
// with zeros in every padded entry of Q̂, K̂, V̂ (they are products with the
// 0/1 matrices P). The masked scores are S_M = S ⊙ ẑ + c·(1 − ẑ) over the
// whole padded tensor: ẑ[a,b,j,k] = z[j,k] with z[j,k] = [j < s_q ∧ k ≤ o + j]
// (the seed's [j < s ∧ k ≤ j] for a prefill pass, which also masks the
// padded rows and keys), c = [Config.MaskValue] (the seed's −∞; 0
// gives the zeroified scores of the model's trace). A is the softmax output
// laid out the same way with zeros outside the h_q × s_q × l real entries
// ([PadProbabilities]); the rows j ≥ s_q must be zero for O to be the
// zero-padded output, the other padded entries of A meet zeros of Ṽ and do
// not matter.
//
// Variable order (X₁ most significant, row variables before column
// variables, as everywhere): a point of S_M or A is (r_a ‖ r_b ‖ r_j ‖ r_k)
// with ⌈log₂ h_kv⌉, ⌈log₂ g⌉, ⌈log₂ s_q⌉, ⌈log₂ l⌉ coordinates; a point of O
// is (r_s ‖ r_d) over ŝ_q × D_q; of Q, K, V (row ‖ column) over their
// zero-padded tables.
//
// # Output half: claims in
//
// Claims O(r_s, r_d) = y on the output (several are first merged by a
// same-poly step, [Config.OutputClaims]).
//
// # Output half: sum-checks
//
// Unpadding (degree 2, ⌈log₂ h_kv⌉ + ⌈log₂ g⌉ + ⌈log₂ m⌉ rounds):
//
//	O(r_s, r_d) = Σ_{x ∈ {0,1}^{log ĥm̂}} Ô(r_s, x)·U(x, r_d)
//
// ending at ρ = (ρ_a ‖ ρ_b ‖ ρ_t); the prover sends Ô(r_s, ρ). Head-batched
// A·V (degree 3, ⌈log₂ h_kv⌉ + ⌈log₂ l⌉ rounds), with Ṽ(a, k, t) = V̂(k, a, t)
// the permuted values and the seed's vector b(a) = β(a, ρ_a):
//
//	Ô(r_s, ρ_a, ρ_b, ρ_t) = Σ_{a,k} β(a, ρ_a)·A(a, ρ_b, r_s, k)·Ṽ(a, k, ρ_t)
//
// The seed sums over the group bits b as well, with b(a, b) = β((a,b), ρ_h);
// since Ṽ does not depend on b, Σ_b β(b, ρ_b)·A(a, b, …) = A(a, ρ_b, …) and
// the group bits are bound to ρ_b directly: ⌈log₂ g⌉ fewer rounds. The
// prover sends A and Ṽ at the final point (ρ'_a ‖ ρ'_k).
//
// # Output half: claims out
//
//	A(ρ'_a, ρ_b, r_s, ρ'_k)          ([OutputClaims].Probs, for the softmax layer)
//	V̂(ρ'_k, ρ'_a, ρ_t) = Ṽ(ρ'_a, ρ'_k, ρ_t)  ([OutputClaims].PaddedValues, for the scores half)
//
// # Scores half: claims in
//
// Claims S_M(r_a, r_b, r_j, r_k) = y_M on the masked scores (merged by a
// same-poly step when there are several, [Config.ScoreClaims]) and the
// claim on V̂ of the output half.
//
// # Scores half: sum-checks
//
// Masking: y_Z = y_M − m̃(r_j, r_k) with m̃ = c·(1 − z̃) is a claim on
// S ⊙ ẑ. Since ẑ and β(r_h, ·) factor over the head coordinates and
// Σ_h β(r_h, h) S(h, j, k) = S(r_h, j, k), the zeroifier sum-check of the
// seed runs over rows and keys only (degree 3, ⌈log₂ s_q⌉ + ⌈log₂ l⌉
// rounds), the head coordinates passing through:
//
//	y_Z = Σ_{j,k} β((j,k), (r_j,r_k))·z(j, k)·S(r_a, r_b, j, k)
//
// The prover sends S(r_a, r_b, ρ_j, ρ_k). Head-batched Q̂·K̂ᵀ (degree 3,
// ⌈log₂ h_kv⌉ + ⌈log₂ m⌉ rounds; K̂ does not depend on b, so b is bound to
// r_b as above):
//
//	S(r_a, r_b, ρ_j, ρ_k) = Σ_{a,t} β(a, r_a)·Q̂(ρ_j, a, r_b, t)·K̂(ρ_k, a, t)
//
// The prover sends Q̂(ρ_j, ρ'_a, r_b, ρ'_t) and K̂(ρ_k, ρ'_a, ρ'_t). Padding,
// one batched sum-check (degree 2, ⌈log₂(h_q·m)⌉ rounds) for the three
// claims ŷ_Q, ŷ_K, ŷ_V on Q̂, K̂, V̂, with the batching powers λ, λ²:
//
//	ŷ_Q + λ·ŷ_K + λ²·ŷ_V = Σ_{x ∈ {0,1}^{log D_q}} Q(ρ_j, x)·P_Q(x, c_Q)
//	                      + λ·K'(ρ_k, x)·P'_kv(x, c_K) + λ²·V'(ρ_v, x)·P'_kv(x, c_V)
//
// where K', V', P'_kv are the K, V, P_kv tables of width D_kv ≤ D_q extended
// with zeros (new leading variables) so that all terms share the variables.
// The prover sends Q(ρ_j, ρ″), K(ρ_k, ρ″_kv), V(ρ_v, ρ″_kv), ρ″_kv the
// last ⌈log₂(h_kv·m)⌉ coordinates of ρ″.
//
// # Scores half: claims out
//
//	Q(ρ_j, ρ″), K(ρ_k, ρ″_kv), V(ρ_v, ρ″_kv)   ([InputClaims])
//
// # What the verifier evaluates itself
//
// All in O(log) field operations, never a table:
//   - β/eq factors: β(ρ'_a, ρ_a), β((ρ_j,ρ_k), (r_j,r_k)), β(ρ'_a, r_a);
//   - the mask and zeroifier, m̃ = c·(1 − z̃):
//     poly.CausalZeroifier for a prefill pass, poly.Prefix (z(k) = [k ≤ o])
//     for one query row, and otherwise poly.ShiftedCausal, an automaton that
//     reads the bits of j and k from the least significant end in the state
//     (carry of j + o, [k > j + o], [j < s_q] on the bits read), about 36
//     multiplications per bit;
//   - P_kv = poly.Padding for h_kv heads of width m; P_Q = poly.Padding for
//     h_q heads of width m when g is a power of two (then (a, b) are the bits
//     of the head index), and otherwise, m being a power of two,
//     P̃_Q(r_c, r_a, r_b, r_t) = β(r_c^lo, r_t)·P̃_{h_kv,g}(r_c^hi, r_a, r_b)
//     (the low log₂ m bits of a column of Q are t, the high ones (a·g + b),
//     a padding of h_kv "heads" of g members); shapes where neither g nor m
//     is a power of two are rejected by [Config.Dims] (a model's
//     integer pass never makes one: model.Config.HeadLayout pads both);
//   - U(ρ, r_d) = P_Q(r_d, ρ);
//   - the zero-extension factor Π_{k<e}(1 − ρ″_k) of K', V', P'_kv.
//
// # Transcript
//
// Output half: label "attention/output"; the same-poly step (values, α,
// rounds, evaluation) when there are several claims; the unpadding
// sum-check (its sum, then per round the sent values and the challenge);
// Ô(r_s, ρ); the A·V sum-check; A and Ṽ at its final point. Scores half:
// label "attention/scores"; the same-poly step when needed; the zeroifier
// sum-check; S(r_h, ρ_j, ρ_k); the Q̂·K̂ᵀ sum-check; Q̂ and K̂ claims; the
// batched padding sum-check (the three sums, λ, the rounds); Q, K, V at its
// final point. The gadget absorbs the same elements in the same order.
//
// # Warning
//
// The two halves prove O = A·V and S_M = mask(Q·Kᵀ) exactly; they do not
// relate A to S_M. That future and padded keys get no weight (causality)
// and that the padded rows of A, hence of O, are zero, rest on the softmax
// layer in between: it must prove A = 0 wherever S_M holds the mask value c
// (as the model's fixed-point softmax computes), and A = 0 in the padded
// rows.
//
// # Bounds
//
// The plain computation and the prover check that every sum fits 62 bits
// (entry bit lengths plus ⌈log₂⌉ of the number of terms), so nothing wraps
// in int64 or in the field. |MaskValue| < 2⁶².
//
// # Cost
//
// The prover computes S and Ô with integer arithmetic and folds integer
// tables with eq tables (integer entries are loaded as raw Montgomery limbs
// and the sums scaled once, so no per-entry conversion). For GPT-2 small
// (12 heads of 64) the two halves run 46 sum-check rounds, for a 16-token
// prefill as for a decoding step at context 64. Benchmarks
// (go test -bench . ./protocol/attention) compare the prover with the plain
// integer computation of the layer in the same run (metric ×plain) on
// GPT-2-small prefill (s = 16), decoding (context 64) and Llama-style GQA
// 4:1 shapes, on both fields. The tests cover s ∈ {1, 3, 5, 16},
// heads ∈ {1, 3, 12}, head widths 10 and 64, GQA 4:1 and 3:1, MQA decoding,
// several claims per half, the built-in model's attention on a prefill and a
// decoding pass, tampering of every proof element, wrong masks and wrong
// head padding, each against the native verifier and the gadget on BN254
// and BLS12-377.
package attention
