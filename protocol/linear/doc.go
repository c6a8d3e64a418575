// Package linear proves the linear layers of a transformer: K ≥ 1 matmuls
// with int8 weights that read the same input (an attention output
// projection, an MLP's up or down projection, the LM head, or Q, K and V
// together), with one batched sum-check over the inner dimension. Its
// in-circuit verifier is gadgets/linear.
//
// # Description
//
// For an input X of Rows × In (an opened tensor: a requantized output of
// the previous step), weights W_k of out_k × In in the model package's
// [out, in] layout and optional biases b_k of out_k entries, the layer
// computes the accumulators
//
//	Acc_k = X·W_kᵀ + 1·b_kᵀ   (Rows × out_k),  k = 0, …, K−1.
//
// Requantization is protocol/requant: it turns the opened Out and Rem of a
// step into a claim on the accumulator's MLE. Every tensor is zero-padded
// to powers of two (R̂ = 2^⌈log₂ Rows⌉, Î = 2^⌈log₂ In⌉, ô_k); on the padded
// grid the bias term is Sel_Rows(r)·b_k(j), with Sel_Rows the "first Rows
// rows" selector, so padded rows of Acc_k are zero as the MLE requires.
//
// Variables: Acc_k, X and W_k are matrices, so their points are (row
// coordinates ‖ column coordinates), each part most significant bit first.
// The sum-check runs over the In coordinates, which are the columns of
// both X and W_k.
//
// # Claims in
//
// One claim per projection: y_k = Ãcc_k(r_row_k ‖ r_col_k), ⌈log₂ Rows⌉ +
// ⌈log₂ out_k⌉ coordinates (in the pipeline, from
// protocol/requant.EvaluateAcc). Their points must be fixed by the
// transcript already. With [Config].SharedRow all r_row_k are equal (the
// usual case: a caller draws one row point for the outputs of a layer);
// Prove and Verify check it.
//
// # Sum-check equation
//
// The prover sends β_k = b̃_k(r_col_k) for every projection with a bias;
// with h_k = y_k − S̃el_Rows(r_row_k)·β_k (h_k = y_k without bias) and λ
// drawn after the h_k are absorbed (only when K > 1), a degree-2 sum-check
// over ⌈log₂ In⌉ variables proves
//
//	Σ_k λᵏ·h_k = Σ_{x ∈ {0,1}^⌈log₂ In⌉} Σ_k λᵏ · X̃(r_row_k, x) · W̃_k(r_col_k, x).
//
// The bias term is exact: Σ_{r<Rows, j<out_k} β(r_row, r)·β(r_col, j)·b_k[j]
// = S̃el_Rows(r_row)·b̃_k(r_col). The tables are X̃(r_row, ·) and
// W̃_k(r_col_k, ·) of Î entries. When the row is shared (SharedRow, or
// Rows = 1, or K = 1) X̃ enters as one table, factor of every term;
// otherwise there is one X table per projection. At the end point r* the
// prover sends W̃_k(r_col_k, r*) for every k and X̃(r_row_k, r*) (one value
// when the row is shared, K values otherwise), and the verifier checks
// the last round against Σ_k λᵏ·X̃(r_row_k, r*)·W̃_k(r_col_k, r*).
//
// With distinct row points the K claims on X share their column point r*,
// so a same-poly sum-check over the row coordinates alone (⌈log₂ Rows⌉
// rounds, on the table X̃(·, r*) of R̂ entries) merges them into one.
//
// # Claims out
//
//   - X at (ρ ‖ r*): ρ = r_row_0 when the row is shared, the end point of
//     the same-poly sum-check otherwise ([Claims].Input: always one claim);
//   - W_k at (r_col_k ‖ r*) on the padded out_k × In matrix
//     ([Claims].Weights[k]);
//   - b_k at r_col_k ([Claims].Biases[k], a zero claim without bias).
//
// X is opened, so the caller evaluates its MLE directly (poly.EvaluateTensor
// natively, gadgets/poly.EvaluateTensor in a circuit). The weight and bias
// claims carry values the prover supplied; the caller checks them against
// the fixed weights: [EvaluateWeight] and [EvaluateBias] natively,
// gadgets/linear.EvaluateWeight and EvaluateBias from circuit constants.
//
// # What the verifier evaluates itself
//
// S̃el_Rows(r_row_k) for the bias terms (poly.Prefix, ≤ ⌈log₂ Rows⌉
// multiplications each) and, with distinct rows, the K equality
// polynomials β(r_row_k, ρ) of the same-poly check: O(K·log Rows) field
// operations besides the rounds and the transcript.
//
// # Transcript order
//
//	label "linear"; β_k for the projections with bias, in order;
//	h_0, …, h_{K−1}; λ (K > 1); per round p(0), p(2), challenge;
//	W̃_0(r_col_0, r*), …, W̃_{K−1}(r_col_{K−1}, r*); the X̃ values;
//	distinct rows: same-poly (the X̃ values again, α, rounds, X̃(ρ, r*)).
//
// # Prover cost
//
// Binding the row coordinates of W_k is the vector–matrix product
// t[i] = Σ_j β(r_col_k, j)·W_k[j, i]. Weights are int8, so the prover sorts
// the eq entries into buckets by weight value, column block by column
// block: one addition per weight (of eq[j] or of the precomputed −eq[j],
// into the bucket of |W|), then Σ_v v·bucket[v] as a sum of suffix sums,
// 2·128 additions per column. The additions are plain integer additions of
// the Montgomery limbs into 320-bit accumulators, reduced modulo p once
// per column (the representation is linear), so the fold has no field
// multiplication and no modular reduction per weight. Binding X costs
// Rows·Î multiplications per distinct row point, the sum-check O(K·Î),
// the same-poly O(R̂·Î).
//
// The prover's work is Σ_k out_k·In additions whatever Rows is, while the
// plain matmul is Rows·Σ_k out_k·In multiply-adds: the ratio is about
// 1.3–1.8× for a 16-token prompt and an order of magnitude for a one-token
// decoding pass. Benchmarks (GPT-2 small shapes, prover against
// model.MatMulInt timed in the same iterations, both fields):
//
//	go test -run '^$' -bench . ./protocol/linear
//
// # Tests
//
// The tests prove random layers (non-powers of two, K = 1 to 3, shared and
// distinct rows, with and without biases, int8 weights including −128)
// against model.MatMulInt, tamper every proof value, prove false claims
// with the honest prover, check a changed weight is caught by
// [EvaluateWeight], and prove every matmul of a real generation of the
// default model (Q, K, V batched; O; the MLP; the LM head) from claims
// derived by protocol/requant from the opened Out and Rem.
package linear
