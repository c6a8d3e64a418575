// Package embedding is the in-circuit verifier of the embedding-lookup
// protocol of package protocol/embedding (whose documentation gives the
// equations), in the native verifier's transcript order.
//
// # Usage
//
// Size the circuit with [PlaceholderProof](cfg) from the native
// embedding.Config, fill it with [ValueOfProof](native proof) and call
// [Verify] with the token ids (circuit
// variables that the caller binds to the statement's input digest) and the
// claim on X̂. The table claim is checked by the caller against the fixed
// embedding table.
//
// # Size
//
// With n = ⌈log₂ V⌉, the transcript costs N = 1 (label) + 1 (y) + 3n
// (rounds) + 1 (Ê) permutations, about 186 R1CS constraints each on BN254,
// plus 2 per round. Each token costs n + 1 (bits), n when V is not a power
// of two (comparison with V − 1), 2n − 1 (β(ρ, bits(t))), ⌈log₂ s⌉ − 1
// (β(r_row, i)) and 1. testdata/constraints.csv: 10,582 for 16 GPT-2 tokens
// (V = 50,257), 9,408 for one; 9,814 / 8,835 for Llama's V = 32,000.
//
// Not included, left to the caller: the evaluation of the fixed table Ê at
// (ρ ‖ r_col), V̂ + ŵ multiplications for the eq tables and V·w constant
// linear combinations.
//
// # Rows of opened tensors
//
// [CheckRows] is what the circuits use while the embedding output is an
// opened tensor: each row is compressed with the powers of a challenge γ,
// Σⱼ (x[r][j] − P[r][j])·γʲ, and looked up (gnark's log-derivative lookup)
// among the V values Σⱼ E[v][j]·γʲ — about V + rows·w constraints instead
// of a lookup table of V·w entries; a wrong row survives with probability
// below w/|F| when γ is drawn after x and the tokens are fixed.
package embedding
