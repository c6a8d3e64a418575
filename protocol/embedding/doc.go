// Package embedding proves the token-embedding lookup X = onehot(tokens)·E
// so that a claim on X reduces to the public token ids and one claim on the
// fixed table E. The in-circuit verifier is gadgets/embedding.
//
// Status: tested natively and in circuit, not on the proving path today
// (the circuits check the opened embedding rows with
// gadgets/embedding.CheckRows); kept for the committed-tensor work.
//
// # Description
//
// For s token ids t₀, …, t_{s−1} < V and the table E ∈ F^{V×w}, X[i] =
// E[tᵢ]: X = M·E with M ∈ {0,1}^{s×V} one-hot by rows. Padded (ŝ, V̂, ŵ),
// rows of X̂ beyond s are zero, and so are M's.
//
// # Claims in
//
// One claim y = X̂(r_row ‖ r_col) (⌈log₂ s⌉ + ⌈log₂ w⌉ coordinates).
//
// # Sum-check equation
//
// Binding the rows of M to r_row gives the selector T(v) = Σ_{i<s}
// β(r_row, i)·[tᵢ = v], and
//
//	y = Σ_{v ∈ {0,1}^⌈log₂ V⌉} T(v)·Ê(v, r_col),
//
// a degree-2 sum-check over the vocabulary (⌈log₂ V⌉ rounds) ending at ρ,
// where the prover sends Ê(ρ, r_col).
//
// # Claims out
//
// Ê at (ρ ‖ r_col). There is no input claim: the tokens are public (part of
// the statement). The caller checks the table claim against the fixed
// table ([EvaluateTable] natively, from constants in a segment circuit).
//
// # What the verifier evaluates itself
//
// T̃(ρ) = Σ_{i<s} β(r_row, i)·β(ρ, bits(tᵢ)) from the token ids
// ([Selector]): s·(⌈log₂ s⌉ + ⌈log₂ V⌉) multiplications, O(s·log V). In a
// circuit the ids are variables: each costs ⌈log₂ V⌉ + 1 constraints to
// decompose, ⌈log₂ V⌉ to compare with V − 1 (when V is not a power of
// two) and 2⌈log₂ V⌉ for β: about 78 constraints per token for GPT-2's
// 50,257-entry vocabulary.
//
// # Transcript order
//
//	label "embedding"; y; per round p(0), p(2), challenge; Ê(ρ, r_col).
//
// # Prover cost
//
// Binding the columns of E to r_col costs V·w multiplications (plus the
// conversions of the integer table), without a padded field copy of the
// table; the sum-check is O(V̂). The lookup itself copies s·w integers, so
// the prover is slower than the plain computation by a factor of order
// V/s: the price of a claim on E at a random point, which any evaluation
// argument for E needs. The table is fixed, so E bound to r_col could be
// cached across proofs only if r_col repeated, which it does not.
//
// Benchmarks: go test -run '^$' -bench . ./protocol/embedding uses a
// 4,096-entry vocabulary of width 768; -embedding.gpt2 runs GPT-2's 50,257
// entries (a 309 MB integer table): about 1.5 s per proof on the shared
// 2-core machine.
package embedding
