// Package statement defines what a veriformer proof states — this model,
// on this input, produced this output — as three values: the model id, the
// digest of the input tokens and the digest of the output tokens, each
// below 2²⁵³ so that it is the same integer in BN254, BLS12-377 and
// BW6-761 scalar fields. The final proof exposes them, in this order, as
// its public inputs; docs/statement.md tells a client how to recompute
// them.
//
// Token digests are Poseidon2 transcripts over the proof's field
// ([TokensDigest]); the in-circuit twin is gadgets/statement. The model id
// of the direct shape is a SHA-256 digest of the quantized model
// ([ModelID]), which the circuit holds as a constant.
package statement
