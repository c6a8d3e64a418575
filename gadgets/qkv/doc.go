// Package qkv is the in-circuit verifier of the QKV layer protocol (package
// protocol/qkv, whose documentation gives the equations): the same
// transcript order, the same claims out.
//
// # Usage
//
// Size the circuit with [PlaceholderProof](shape), fill it with the native
// proof's Assignment, and call [Verify] with the claims on Q, K and V. The
// returned weight and bias claims must be checked by the caller, a segment
// circuit evaluating the fixed weights from constants; the input claim goes
// to the layer below.
//
// # Size
//
// Everything is logarithmic in the shapes. With N the number of transcript
// permutations,
//
//	N = 1 (label) + 3·[bias] + 3 (sums) + 1 (λ) + 3·⌈log₂ d⌉ (rounds)
//	    + 3 (weights) + (s = 1 ? 1 : 3 + 1 + 3·⌈log₂ s⌉ + 1)
//
// and the circuit has about 186·N R1CS constraints on BN254 (190 on
// BLS12-377) plus 2 per sum-check round, ⌈log₂ s⌉ per selector S̃el_s and
// 2⌈log₂ s⌉ per β of the same-poly check. testdata/constraints.csv
// snapshots the count (transcript seeded with constants, so its first
// permutation is free): 10,666 for a GPT-2-small layer over 16 tokens
// (d = 768, 12 heads of 64, with bias), 7,655 for its one-token decoding
// pass, 10,668 / 7,657 for a TinyLlama layer (d = 2048, 32:4 heads).
//
// go test -tags prover_checks ./gadgets/qkv also proves and verifies a small
// instance with Groth16 on BN254 and BLS12-377.
//
// Not included, left to the caller: the fixed-weight evaluations W̃_o at
// (r_o^col ‖ r) and b̃_o at r_o^col, about 2^a + 2^b multiplications for an
// eq table per point and free constant linear combinations per matrix.
package qkv
