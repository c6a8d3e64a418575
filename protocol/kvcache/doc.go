// Package kvcache proves the key/value cache of a generation: the
// cache after a decoding pass is the cache before it with the new row
// written at the next position, and the prompt pass's cache is the
// prompt's keys (or values) zero-padded to the context. Claims on the cache
// of pass i made by pass i+1 are bound to the outputs of pass i by
// same-poly accumulation, so one transcript proves a whole generation from
// the last pass back to the prompt. The in-circuit verifier is
// gadgets/kvcache.
//
// Status: tested natively and in circuit, not on the proving path today
// (package inference proves one pass over the whole sequence); kept for
// the committed-tensor and conversation work, where passes share a cache.
//
// # Description
//
// The cache K ∈ F^{l×w} has the model's context length l of rows (padded
// to l̂ = 2^⌈log₂ l⌉) and the key/value width w = h_kv·m (padded to ŵ);
// rows at and beyond the number of cached tokens are zero (seed 000,
// "Proving passes over output tokens"). A decoding pass with t cached
// tokens appends its row k ∈ F^w at row t:
//
//	K_new = K_prev + P ⊗ k,   P = e_t (one 1 at row t),
//
// which holds because row t of K_prev is zero. Keys are cached after RoPE
// (Llama) and after rescaling, so the row claim goes to those layers and
// through them to the QKV layer; values likewise after rescaling.
//
// # Claims in
//
// Append ([Prove], [Verify]): Config.Claims claims on K_new (l̂ × ŵ,
// point (p_row ‖ p_col)): the attention's and, except for the last pass,
// the next pass's claim on its K_prev, which is this K_new. An attention
// that reads only the t + 1 rows filled so far (padded to 2^k rows) makes
// its claim on those rows; [ExtendRows] turns it into a claim on the whole
// cache by prepending ⌈log₂ l⌉ − k zero coordinates (M̃(0…0 ‖ x) is the MLE
// of the first rows of M), at no cost.
// Prompt ([ProvePrompt], [VerifyPrompt]): claims on the prompt pass's cache
// (l̂ × ŵ) from the first decoding pass, and the attention's claims on the
// prompt's own K (ŝ × ŵ).
//
// # Equations
//
// Append. Several claims are first merged by a same-poly sum-check over the
// cache (⌈log₂ l⌉ + ⌈log₂ w⌉ rounds of degree 2) into K̃_new(p) = y. The
// tensor product's MLE factorises, (P ⊗ k)~(p_row ‖ p_col) =
// P̃(p_row)·k̃(p_col), and P̃(p_row) = β(p_row, bits(t)) (poly.EqIndex),
// so the prover sends y_prev = K̃_prev(p) and y_k = k̃(p_col) and the
// verifier checks
//
//	y = y_prev + β(p_row, bits(t))·y_k.
//
// Seed 000 binds k̃ to the padded matrix P ⊗ k with a sum-check of
// Σ_{x,y} β(x‖y, p)·P(x)·k(y); the factorisation above makes that sum-check
// unnecessary, and it leaves the K and V row claims at their own points
// p_col, which the QKV layer takes as separate output claims anyway.
//
// Prompt. With ŝ = 2^⌈log₂ s⌉ the cache is the prompt matrix followed by
// zero rows, so for a cache claim at (p_hi ‖ p_lo ‖ p_col), p_hi the
// ⌈log₂ l⌉ − ⌈log₂ s⌉ leading row coordinates, the prover sends
// y' = K̃_prompt(p_lo, p_col) and the verifier checks
//
//	y = β(p_hi, 0…0)·y' = Πₖ (1 − p_hi,k)·y'.
//
// The converted claims and the attention's claims on K_prompt are merged by
// same-poly (⌈log₂ s⌉ + ⌈log₂ w⌉ rounds).
//
// # Claims out
//
// Append: K_prev at p (to pass i−1's append, or to its prompt step) and
// k at p_col. Prompt: one claim on K_prompt (ŝ × ŵ).
//
// # What the verifier evaluates itself
//
// β(p_row, bits(t)) (⌈log₂ l⌉ − 1 multiplications), β(p_hi, 0…0), and the
// eq polynomials of the same-poly checks: O(log l + log w) per step.
//
// # Transcript order
//
//	append: label "kvcache"; [same-poly: values, α, rounds, evaluation];
//	        y_prev, y_k.
//	prompt: label "kvcache/prompt"; y' per cache claim (when l̂ > ŝ);
//	        [same-poly].
//
// # Soundness across passes
//
// The invariant "rows ≥ t of the cache are zero" holds by induction: the
// prompt step fixes rows ≥ ŝ of the first cache to zero, rows s…ŝ−1 are
// the zero padding of the prompt's K (the QKV layer's padded rows are
// zero), and each append writes only row t. A cache altered between passes
// (say two rows swapped) makes the next pass's claim on K_prev disagree
// with the previous pass's K_new, and the same-poly check of that pass
// fails; the generation test in gadgets/kvcache shows it for both verifiers.
//
// # Prover cost
//
// Evaluating K_prev at p (l̂·ŵ), the row at p_col (ŵ), and the same-poly
// sum-check over the cache, O(l̂·ŵ) per pass and per matrix.
package kvcache
