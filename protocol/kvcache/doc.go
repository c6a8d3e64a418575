// Package kvcache proves the key/value cache steps of a conversation's
// turn (inference/committed, "Turns"): the append, by which the cache a
// pass's attention reads is the cache before the pass with the pass's
// rows written from the next position ([Prove], [Verify]), and the
// writes, a claim on the written rows alone ([ProveWrites],
// [VerifyWrites]), by which a turn commits its own rows. The in-circuit
// verifier is gadgets/kvcache.
//
// # Description
//
// The cache K ∈ F^{l×w} has the model's context length l of rows (padded
// to l̂ = 2^⌈log₂ l⌉) and the key/value width w = h_kv·m (padded to ŵ);
// rows at and beyond the number t of cached tokens are zero (seed 000,
// "Proving passes over output tokens"). A pass with t cached tokens that
// computed R new rows X ∈ F^{R×w} (a turn's row bucket, whose first
// rows are its tokens and the rest padding; one row for a turn of one
// token) writes its first n rows from row t:
//
//	K_new = K_prev + Σ_{a<n} e_{t+a} ⊗ X_a   (e_i: one 1 at row i),
//
// which is K_prev with rows t…t+n−1 replaced because those rows of
// K_prev are zero. The count n is the verifier's (a circuit variable in
// the gadget, 0 ≤ n ≤ R, with no row past the context). Keys are cached
// after RoPE (Llama) and after rescaling, so the row claim goes to those
// layers and through them to the QKV layer; values likewise after
// rescaling.
//
// A turn's attention reads K_new with every one of its R rows written
// (n = R: the pad rows attend to their own keys), and the turn keeps
// n = Keep of them: it commits the written rows alone,
//
//	W = Σ_{a<n} e_{t+a} ⊗ X_a   (l̂ × ŵ, zero outside rows t…t+n−1, [Writes]),
//
// so that the commitment to the next cache is the previous one's plus
// W's (the commitment is linear). [Table] gives the padded matrix of a
// cache's rows, the one its commitment commits to.
//
// # Claims in
//
// Append: Config.Claims claims on K_new (l̂ × ŵ, point (p_row ‖ p_col));
// a turn makes one, its attention's. Writes: one claim on W (l̂ × ŵ).
// Both take the count n of rows written.
//
// # Equations
//
// Append. Several claims are first merged by a same-poly sum-check over
// the cache (⌈log₂ l⌉ + ⌈log₂ w⌉ rounds of degree 2) into K̃_new(p) = y.
// Each written row's MLE factorises, (e_{t+a} ⊗ X_a)~(p_row ‖ p_col) =
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
// Writes. A claim W̃(p) = y is the append's identity without K_prev: the
// same shift sum-check proves y = Σ_a w̃(a)·X̃(a, p_col) and leaves the
// claim X̃(ρ, p_col).
//
// # Claims out
//
// Append: K_prev at p (the cache before the pass) and X at (ρ ‖ p_col)
// (the R × ŵ new rows). Writes: X at (ρ ‖ p_col).
//
// # What the verifier evaluates itself
//
// W(ρ): n terms of β(ρ, a)·β(p_row, bits(t + a)), O(R·(log R + log l))
// (⌈log₂ l⌉ − 1 multiplications for one row), and, for several claims,
// the eq polynomials of the same-poly check, O(log l + log w).
//
// # Transcript order
//
//	append: label "kvcache"; [same-poly: values, α, rounds, evaluation];
//	        y_prev; the shift sum-check (y − y_prev, then per round the
//	        sent values and the challenge); y_X.
//	writes: label "kvcache/writes"; the shift sum-check (y, then per
//	        round the sent values and the challenge); y_X.
//
// # Zero rows
//
// The append's K_new is the cache with the rows written only while rows
// t, t + 1, … of K_prev are zero; the caller keeps that invariant
// (inference/committed: the empty state is zero, and each turn adds W,
// zero outside its rows). The pad rows a ≥ n have weight w(a) = 0, so
// their values never reach K_new or W.
//
// # Prover cost
//
// Append: evaluating K_prev at p (l̂·ŵ), the new rows at p_col (R·ŵ) and
// the shift sum-check (O(R)), plus, for several claims, the same-poly
// sum-check over the cache, O(l̂·ŵ). Writes: the new rows at p_col and
// the shift sum-check.
package kvcache
