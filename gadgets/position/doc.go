// Package position is the in-circuit verifier of the positional-encoding
// protocol of package protocol/position (whose documentation gives the
// equations), in the native verifier's transcript order.
//
// # Usage
//
// Size the circuit with [PlaceholderProof](cfg) from the native
// position.Config, fill it with [ValueOfProof](native proof) and call
// [Verify] with the claim on the layer's output.
// The input claim goes to the embedding layer; the table claim is checked by
// the caller against the fixed position table.
//
// # Size
//
// With N transcript permutations, about 186·N R1CS constraints on BN254:
//
//	decoding pass (s = 1):  N = 1 (label) + 1
//	prompt:                 N = 1 + 1 + [s ≠ ŝ]·(1 + 4·⌈log₂ s⌉ + 1) + 2·log₂(ĉ/ŝ)
//
// plus 4 per masked round, 2⌈log₂ s⌉ for β(r_row, ρ), ⌈log₂ s⌉ for
// S̃el_s(ρ) and one per halving. testdata/constraints.csv: 932 for a
// 16-token GPT-2-small prompt at context 64, 2,424 at context 1,024, 5,420
// for 5 tokens (masked) at context 1,024, 186 for a decoding pass (the
// label of the test's constant transcript is free).
//
// Not included, left to the caller: the evaluation of the fixed table P̂ at
// the table claim's point (ĉ + ŵ multiplications for the eq tables; for a
// decoding pass the row coordinates are constant bits, so only the row t
// of the table enters, ŵ multiplications).
package position
