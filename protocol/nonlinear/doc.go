// Package nonlinear checks the non-linear steps of a forward pass on their
// opened tensors (docs/architecture.md): table applications (GELU, SiLU,
// exp, 1/√, RoPE cos/sin), the softmax of causal attention, LayerNorm and
// RMSNorm, rotary embeddings, residual adds and the greedy argmax. Each
// check follows the exact integer rules of package model (see its
// documentation, sections "Norms", "Attention", "RoPE", "Tables") and
// fails with an error naming the tensor and element; the in-circuit twin is
// gadgets/nonlinear.
//
// # Relations
//
// Softmax, per row over the unmasked entries j ≤ Start + i:
//
//	m ≥ s_j with equality for some j;  z_j = m − s_j = lo_j + 2¹⁶·hi_j
//	x_j = EXP(lo_j)·[hi_j = 0];  Σ = Σ_j x_j
//	p_j·2Σ + ρ_j = 2·x_j·2^P + Σ,  ρ_j ∈ [0, 2Σ);  p_j = 0 when masked
//
// Norms, per row h of n values (LayerNorm; RMSNorm has μ = 0):
//
//	Σᵢ hᵢ = μ·n + r_μ, r_μ ∈ [0, n);  V = Σᵢ (hᵢ − μ)² + ε
//	V = v·4^e + r_V, r_V ∈ [0, 4^e), v < 2¹⁶, v ≥ 2¹⁴ if e > 0;  T = RSQRT(v)
//	yᵢ = requant((hᵢ − μ)·T·2^(Eₘₐₓ−e)·γᵢ + βᵢ)
//
// RoPE at position p, pair j: (x_j·C − x_{j+hd/2}·S, x_{j+hd/2}·C + x_j·S)
// requantized, C and S the table values at p·hd/2 + j. Argmax: the chosen
// logit is ≥ every logit, > those of smaller index.
//
// The accumulators of matmuls are not checked here: package requant turns
// claims on them into claims on the opened outputs and remainders, and the
// layer protocols prove the contractions by sum-check.
package nonlinear
