// Package qkv is the in-circuit verifier of the QKV layer protocol
// (protocol/qkv): the three-projection case of gadgets/linear. The native
// qkv.Config names the layer in heads and its Linear method maps it to a
// linear.Config with projections Q (Heads·HeadDim columns), K and V (KVHeads·HeadDim
// columns each), all with or all without bias, and row points that may
// differ; [Verify] checks the head counts and runs linear.Verify on it.
// [Proof] and [Claims] are gadgets/linear's types, so the transcript order
// and the claims out are those of protocol/linear: one claim on X, then
// Weights[o] and Biases[o] for o = 0, 1, 2 (Q, K, V).
//
// # Usage
//
// Size the circuit with [PlaceholderProof](cfg), fill it with
// [ValueOfProof](native proof), and call [Verify] with the claims on Q, K and V. The
// returned weight and bias claims must be checked by the caller, a segment
// circuit evaluating the fixed weights from constants
// (linear.EvaluateWeight, linear.EvaluateBias); the input claim goes to the
// layer below.
//
// # Size
//
// Everything is logarithmic in the shapes (see gadgets/linear for the
// count per transcript permutation and per round). testdata/constraints.csv
// snapshots the verifier alone on BN254 (transcript seeded with constants,
// so its first permutation is free): 11,224 R1CS for a GPT-2-small layer
// over 16 tokens (d = 768, 12 heads of 64, with bias), 7,655 for its
// one-token decoding pass, 11,226 / 7,657 for a TinyLlama layer
// (d = 2048, 32:4 heads). With more than one row the three claimed values
// of X are absorbed after the sum-check and again by the same-poly merge
// (linear's transcript order).
//
// go test -tags prover_checks ./gadgets/qkv also proves and verifies a small
// instance with Groth16 on BN254 and BLS12-377.
package qkv
