// Package qkv proves the query, key and value projections of a transformer
// block, for a whole prompt or for the single new row of a decoding pass,
// with one batched sum-check. Its in-circuit verifier is gadgets/qkv.
//
// # Description
//
// For s input rows X ∈ F^{s×d} and weights in the [out, in] layout of the
// model package (W_Q ∈ F^{hm×d}, W_K, W_V ∈ F^{h_kv·m×d}; h_kv < h with
// grouped-query attention), the layer computes the accumulators
//
//	Q = X·W_Qᵀ + 1_s·b_Qᵀ,   K = X·W_Kᵀ + 1_s·b_Kᵀ,   V = X·W_Vᵀ + 1_s·b_Vᵀ,
//
// without biases for Llama. Rescaling (and RoPE) are separate layers. Every
// tensor is zero-padded to powers of two (ŝ = 2^⌈log₂ s⌉, d̂, and the
// output widths); on the padded grid the bias term is Sel_s(i)·b(j) with
// Sel_s the "first s rows" selector, so padded rows of Q, K, V are zero.
// A decoding pass is the case s = 1 (seed 000, "Prove Computation of New
// Vectors"): no row coordinates.
//
// # Claims in
//
// One claim per output, out = [Q, K, V]: y_o = õ(r_o^row ‖ r_o^col), with
// ⌈log₂ s⌉ row coordinates and ⌈log₂ width_o⌉ column coordinates.
//
// # Sum-check equation
//
// The prover sends the bias evaluations β_o = b̃_o(r_o^col) (with bias), and
// with h_o = y_o − S̃el_s(r_o^row)·β_o the batched sum-check (weights
// 1, λ, λ² drawn after the h_o are absorbed) proves
//
//	Σ_o λ^o·h_o = Σ_{x ∈ {0,1}^⌈log₂ d⌉} Σ_o λ^o · X̃(r_o^row, x) · W̃_o(r_o^col, x),
//
// a degree-2 sum-check over the d̂ input coordinates with the six tables
// X̃(r_o^row, ·), W̃_o(r_o^col, ·) (four when s = 1: the three X tables
// coincide). At the end point r the prover sends X̃(r_o^row, r) (one value
// when s = 1) and W̃_o(r_o^col, r).
//
// The three claims on X share the column point r, so they are merged by a
// same-poly sum-check over the row coordinates only, on the table
// X̃(·, r) of ŝ entries: ⌈log₂ s⌉ rounds instead of ⌈log₂ s⌉ + ⌈log₂ d⌉.
//
// # Claims out
//
//   - X̂ at (ρ ‖ r), ρ the end point of the same-poly sum-check (r alone when
//     s = 1);
//   - W_o at (r_o^col ‖ r) for o = Q, K, V, on the padded [out, in] matrix;
//   - b_o at r_o^col (with bias).
//
// The weight and bias claims carry values the prover supplied; the caller
// checks them against the fixed weights ([EvaluateMatrix] natively, from
// constants in a segment circuit).
//
// # What the verifier evaluates itself
//
// S̃el_s(r_o^row) for the bias terms (poly.Prefix, ≤ ⌈log₂ s⌉
// multiplications each) and the three β(r_o^row, ρ) of the same-poly check:
// O(log s + log d) field operations in all, besides the transcript.
//
// # Transcript order
//
//	label "qkv"; β_Q, β_K, β_V (with bias); h_Q, h_K, h_V; λ;
//	per round: p(0), p(2), challenge; W̃_Q, W̃_K, W̃_V at r;
//	s = 1: X̃(r);  s > 1: same-poly (X̃(r_Q^row, r), X̃(r_K^row, r),
//	X̃(r_V^row, r); α; rounds; X̃(ρ, r)).
//
// # Prover cost
//
// Binding the row coordinates of a weight matrix is a vector–matrix product
// with the eq table of r_o^col. Quantized weights are small, so the prover
// sums the eq entries by weight value (one addition per weight) and
// multiplies each of the 2B+1 buckets of a column by its value with
// additions only (Σ_v v·b_v as a sum of suffix sums); weights beyond ±256
// take one multiplication each. Binding X costs ŝ·d̂ multiplications per
// output, the sum-check O(d̂), the same-poly O(ŝ·d̂). The benchmarks report
// the prover time over the plain integer projection (model.MatMulInt) in
// the same run: go test -run '^$' -bench . ./protocol/qkv.
package qkv
