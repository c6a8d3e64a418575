// Package position proves the learned positional encoding of GPT-2,
// O = X + P[Start : Start+s], for a prompt (Start = 0, any s) or a decoding
// pass (one row at any position), and binds the claim on the rows of the
// position table it uses to a claim on the whole committed table. The
// in-circuit verifier is gadgets/position.
//
// Status: tested natively and in circuit, not on the proving path today
// (the opened embedding rows are checked element-wise against E + P);
// kept for the committed-tensor work, where the table is committed.
//
// # Description
//
// X ∈ F^{s×w} are the token embeddings of the pass, P ∈ F^{c×w} the
// position table (c the context length). Padded (ŝ = 2^⌈log₂ s⌉, ŵ, ĉ),
// the output Ô is zero beyond row s like every activation, so on the
// padded grid
//
//	Ô(i, j) = X̂(i, j) + Sel_s(i)·P̂(i, j)   (prompt),   Ô(j) = X̂(j) + P̂(t, j)   (decoding, s = 1).
//
// Seed 003 adds all ŝ rows of P̂; the selector keeps the zero padding of the
// activations and costs a short sum-check when s is not a power of two.
//
// # Claims in
//
// One claim y = Õ(r_row ‖ r_col) (⌈log₂ s⌉ + ⌈log₂ w⌉ coordinates).
//
// # Equations
//
// The prover sends y_X = X̂(r); the claim on the table part is y − y_X.
//
// Decoding pass: y − y_X = P̂(bits(t) ‖ r_col), a claim on P̂ at a point
// whose row coordinates are the constant bits of t. Nothing else is sent.
//
// Prompt, s not a power of two: a degree-3 sum-check over the ⌈log₂ s⌉
// row coordinates,
//
//	y − y_X = Σ_{i ∈ {0,1}^⌈log₂ s⌉} β(r_row, i)·Sel_s(i)·P̂_{<ŝ}(i, r_col),
//
// ending at ρ with the prover's P̂_{<ŝ}(ρ, r_col); the verifier computes
// β(r_row, ρ)·S̃el_s(ρ) itself. For s = ŝ the claim on P̂_{<ŝ} is y − y_X at
// ρ = r_row directly.
//
// Then the recursive halving of seed 003 binds the claim on the first
// b = ŝ rows to the whole ĉ-row table in log₂(ĉ/ŝ) steps: from a claim v on
// the first b rows at π, the prover sends z, the MLE of rows [b, 2b) at
// (π, r_col), the verifier draws τ and the claim on the first 2b rows is
//
//	v ← (1 − τ)·v + τ·z   at (τ ‖ π),
//
// the MLE identity M̃(x₁ ‖ x') = (1 − x₁)·M̃₁(x') + x₁·M̃₂(x') for the
// halves of M. Each z is absorbed before its τ, so a wrong v survives a
// step with probability 1/|F|. The z are the log₂(ĉ/ŝ) intermediate claims
// in the proof.
//
// # Claims out
//
// X̂ at r (to the embedding layer), and P̂ at (τ_k, …, τ₁, ρ, r_col) for a
// prompt, at (bits(t), r_col) for a decoding pass; the caller checks the
// table claim against the fixed table ([EvaluateTable] natively, from
// constants in a segment circuit).
//
// # What the verifier evaluates itself
//
// β(r_row, ρ) and S̃el_s(ρ) (poly.Eq, poly.Prefix: O(log s)), and one
// multiplication per halving step.
//
// # Transcript order
//
//	label "position"; y_X; [s ≠ ŝ, s > 1: the masked sum-check (sum,
//	rounds p(0), p(2), p(3)), P̂_{<ŝ}(ρ, r_col)]; per halving: z, τ.
//
// # Prover cost
//
// Binding the column coordinates of the table, ĉ·ŵ multiplications (the
// table is fixed, so this could be cached per r_col); the sum-check and the
// siblings O(ĉ).
package position
