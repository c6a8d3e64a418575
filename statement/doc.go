// Package statement defines what a veriformer proof states — this model,
// on this input, produced this output — as three values: the model id, the
// digest of the input tokens and the digest of the output tokens, each
// below 2²⁵³ so that it is the same integer in BN254, BLS12-377 and
// BW6-761 scalar fields. The final (BN254) proof exposes one public input,
// their [Digest]: SHA-256 of the three values as 32-byte big-endian words,
// its three most significant bits cleared, which a contract recomputes
// with the SHA-256 precompile; docs/statement.md tells a client how to
// recompute all of them.
//
// Token digests are Poseidon2 transcripts over the proof's field
// ([TokensDigest]); the in-circuit twin is gadgets/statement. The model id
// of the direct design is the digest of the quantized model and its
// tokenizer (model.Model.ID), which the circuit holds as a constant.
//
// A [Batch] is many inferences of one model proven at once; its proof's
// one public input is [Batch.Digest], SHA-256 of the model id and the
// list digest ([Batch.ListDigest], SHA-256 of the count and the
// inferences' digests, truncated to 250 bits).
//
// A [Request] is an inference as a proof sees it: the prompt, the output
// and the row bucket R whose pass proves them. One circuit serves every
// request of a bucket: the pass runs over R tokens, the prompt, the
// output and zeros; the rows between the prompt's last and the pass's
// last have the output tokens as their argmax, and the statement says
// nothing of the rest.
package statement
