// Package qkv proves the query, key and value projections of a transformer
// block, for a whole prompt or for the single new row of a decoding pass.
// It is the three-projection case of protocol/linear: [Config] names the
// shape in heads, [Config.Linear] maps it to a linear.Config, and [Prove]
// and [Verify] are linear.Prove and linear.Verify on it. [Witness],
// [Proof] and [Claims] are linear's types. Its in-circuit verifier is
// gadgets/qkv, the same specialisation of gadgets/linear.
//
// Status: tested natively and in circuit, not on the proving path today
// (package inference proves Q, K and V with protocol/linear directly);
// kept for the committed-tensor and conversation work.
//
// # Description
//
// For s input rows X ∈ F^{s×d} and int8 weights in the [out, in] layout of
// the model package (W_Q of h·m × d; W_K and W_V of h_kv·m × d, h_kv < h
// with grouped-query attention), the layer computes the accumulators
//
//	Q = X·W_Qᵀ + 1_s·b_Qᵀ,   K = X·W_Kᵀ + 1_s·b_Kᵀ,   V = X·W_Vᵀ + 1_s·b_Vᵀ,
//
// without biases for Llama: the linear layer with input width In = d and
// projections (out, bias) = (h·m, b), (h_kv·m, b), (h_kv·m, b), in the
// order Q, K, V. Requantization and RoPE are separate layers. A decoding
// pass is the case s = 1 (seed 000, "Prove Computation of New Vectors").
//
// # Claims in
//
// One claim per output, out = [Q, K, V]: y_o = õ(r_o^row ‖ r_o^col), with
// ⌈log₂ s⌉ row coordinates and ⌈log₂ width_o⌉ column coordinates. The row
// points may differ (the claim on Q comes from attention, those on K and V
// from the KV cache), so the configuration leaves linear's SharedRow off.
//
// # Sum-check equation
//
// As in protocol/linear with K = 3: the prover sends β_o = b̃_o(r_o^col)
// (with bias), and with h_o = y_o − S̃el_s(r_o^row)·β_o a degree-2 batched
// sum-check over the ⌈log₂ d⌉ input coordinates proves
//
//	Σ_o λ^o·h_o = Σ_{x ∈ {0,1}^⌈log₂ d⌉} Σ_o λ^o · X̃(r_o^row, x) · W̃_o(r_o^col, x).
//
// At its end point r* the prover sends W̃_o(r_o^col, r*) and X̃(r_o^row, r*)
// (one value when s = 1). For s > 1 the three claims on X share r*, and a
// same-poly sum-check over the row coordinates merges them.
//
// # Claims out
//
//   - X at (ρ ‖ r*), ρ the end point of the same-poly sum-check (no row
//     coordinates when s = 1): [Claims].Input;
//   - W_o at (r_o^col ‖ r*): [Claims].Weights[o], o = 0, 1, 2 for Q, K, V;
//   - b_o at r_o^col: [Claims].Biases[o] (zero claims without bias).
//
// The caller checks the weight and bias claims against the fixed weights
// (linear.EvaluateWeight and linear.EvaluateBias natively, gadgets/linear
// from constants in a segment circuit) and the input claim against X.
//
// # Transcript order
//
// linear's: label "linear"; β_Q, β_K, β_V (with bias); h_Q, h_K, h_V; λ;
// per round p(0), p(2), challenge; W̃_Q, W̃_K, W̃_V at r*; the X̃ values;
// s > 1: same-poly (the X̃ values again, α, rounds, X̃(ρ, r*)).
//
// # Costs
//
// The prover is linear's (one addition per int8 weight to bind the weight
// rows). BenchmarkProve times it on prompt shapes with distinct row
// points, which protocol/linear's benchmarks do not cover (GPT-2 small and
// a TinyLlama grouped-query layer over 16 tokens), against the plain int8
// projections in the same iterations:
//
//	go test -run '^$' -bench . ./protocol/qkv
package qkv
