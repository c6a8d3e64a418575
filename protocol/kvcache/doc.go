// Package kvcache proves the key/value cache of a generation or a
// conversation: the cache after a pass (a decoding pass's one row, or a
// turn's rows) is the cache before it with the pass's kept rows written
// from the next position, and the prompt pass's cache is the prompt's
// keys (or values) zero-padded to the context. Claims on the cache
// of pass i made by pass i+1 are bound to the outputs of pass i by
// same-poly accumulation, so one transcript proves a whole generation from
// the last pass back to the prompt. The in-circuit verifier is
// gadgets/kvcache.
//
// A conversation's turns (inference/committed, "Turns") use it: each
// turn's attention reads the state in's cache and its new rows through
// [Prove], and its writes are proven by [ProveWrites]. The decoding
// passes of one transcript ([Prove] with several claims, [ProvePrompt])
// are tested natively and in circuit; the turns prove a generation token
// by token with one proof per turn instead.
//
// # Description
//
// The cache K ∈ F^{l×w} has the model's context length l of rows (padded
// to l̂ = 2^⌈log₂ l⌉) and the key/value width w = h_kv·m (padded to ŵ);
// rows at and beyond the number of cached tokens are zero (seed 000,
// "Proving passes over output tokens"). A pass with t cached tokens that
// computed R new rows X ∈ F^{R×w} (one for a decoding pass; a turn's row
// bucket, whose first n rows are its tokens and the rest padding) writes
// its first n rows from row t:
//
//	K_new = K_prev + Σ_{a<n} e_{t+a} ⊗ X_a   (e_i: one 1 at row i),
//
// which holds because rows t, t + 1, … of K_prev are zero. The count n is
// the verifier's (a circuit variable in the gadget, 0 ≤ n ≤ R, with no
// row past the context). Keys are cached after RoPE
// (Llama) and after rescaling, so the row claim goes to those layers and
// through them to the QKV layer; values likewise after rescaling.
//
// # Claims in
//
// Append ([Prove], [Verify]): Config.Claims claims on K_new (l̂ × ŵ,
// point (p_row ‖ p_col)): the attention's and, except for the last pass,
// the next pass's claim on its K_prev, which is this K_new; and the count
// n of rows written. An attention
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
// cache (⌈log₂ l⌉ + ⌈log₂ w⌉ rounds of degree 2) into K̃_new(p) = y. Each
// written row's MLE factorises, (e_{t+a} ⊗ X_a)~(p_row ‖ p_col) =
// β(p_row, bits(t + a))·X̃(a, p_col), so with w(a) = β(p_row, bits(t +
// a))·[a < n] the prover sends y_prev = K̃_prev(p) and proves
//
//	y − y_prev = Σ_{a ∈ {0,1}^⌈log₂ R⌉} w̃(a)·X̃(a, p_col)
//
// by a sum-check over a (⌈log₂ R⌉ rounds of degree 2; none for one row)
// that ends at ρ with the value v; it sends y_X = X̃(ρ, p_col), and the
// verifier checks
//
//	v = W(ρ)·y_X,   W(ρ) = Σ_{a<n} β(ρ, a)·β(p_row, bits(t + a)).
//
// For one row this is y = y_prev + β(p_row, bits(t))·y_X. Seed 000 binds
// the new row to the padded matrix with a sum-check of Σ_{x,y} β(x‖y,
// p)·P(x)·k(y) over the whole cache; the factorisation leaves a sum-check
// over the new rows only, and the claim on them at (ρ ‖ p_col), which the
// QKV layer takes as its output claim.
//
// Writes ([ProveWrites], [VerifyWrites]). A conversation's turn commits
// the written rows alone, W = Σ_{a<n} e_{t+a} ⊗ X_a (l̂ × ŵ, zero outside
// rows t…t+n−1), so that the commitment to the next cache is the previous
// one's plus W's (the commitment is linear). A claim W̃(p) = y is the
// append's identity without K_prev: the same shift sum-check proves
// y = Σ_a w̃(a)·X̃(a, p_col) and leaves the claim X̃(ρ, p_col).
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
// X at (ρ ‖ p_col) (the R × ŵ new rows). Prompt: one claim on K_prompt
// (ŝ × ŵ).
//
// # What the verifier evaluates itself
//
// W(ρ): n terms of β(ρ, a)·β(p_row, bits(t + a)), O(R·(log R + log l))
// (⌈log₂ l⌉ − 1 multiplications for one row), β(p_hi, 0…0), and the eq
// polynomials of the same-poly checks, O(log l + log w), per step.
//
// # Transcript order
//
//	append: label "kvcache"; [same-poly: values, α, rounds, evaluation];
//	        y_prev; the shift sum-check (y − y_prev, then per round the
//	        sent values and the challenge); y_X.
//	writes: label "kvcache/writes"; the shift sum-check (y, then per
//	        round the sent values and the challenge); y_X.
//	prompt: label "kvcache/prompt"; y' per cache claim (when l̂ > ŝ);
//	        [same-poly].
//
// # Soundness across passes
//
// The invariant "rows ≥ t of the cache are zero" holds by induction: the
// prompt step fixes rows ≥ ŝ of the first cache to zero, rows s…ŝ−1 are
// the zero padding of the prompt's K (the QKV layer's padded rows are
// zero), and each append writes only rows t…t+n−1: w(a) is zero for the
// pad rows a ≥ n, so a pad row's values never reach the cache. A cache altered between passes
// (say two rows swapped) makes the next pass's claim on K_prev disagree
// with the previous pass's K_new, and the same-poly check of that pass
// fails; the generation test in gadgets/kvcache shows it for both verifiers.
//
// # Prover cost
//
// Evaluating K_prev at p (l̂·ŵ), the new rows at p_col (R·ŵ), the shift
// sum-check (O(R)), and the same-poly sum-check over the cache, O(l̂·ŵ)
// per pass and per matrix.
package kvcache
