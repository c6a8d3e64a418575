// Package statement defines what a veriformer proof states: a [List], a
// model id and an ordered list of leaves, each a request — this model, on
// the input whose digest is in, produced the output whose digest is out —
// or a turn of a conversation, which also takes the conversation's state
// from state in to state out. A single request is a list of one. Every
// value is below 2²⁵⁴ (token digests are field elements; the model id and
// the states have 250 bits), so that it is the same integer in every
// field a proof carries it in.
//
// A leaf's words are, as 256-bit integers,
//
//	request  (in + 1·2²⁵⁴, out)
//	turn     (state in + 2·2²⁵⁴, in, out, state out)
//
// the kind in the top two bits of the first word ([Leaf.Words]), so that
// the words of a list parse back into its leaves ([ParseWords]). The list
// digest is the low 250 bits of SHA-256 of the leaves' words as 32-byte
// big-endian words ([List.ListDigest]); the statement digest, the final
// proof's one public input, is the low 253 bits of SHA-256 of the model id
// and the list digest ([List.Digest]), which a contract recomputes from
// the words with the SHA-256 precompile. docs/statement.md tells a client
// how to recompute all of them. A turn never leaves the empty state
// [EmptyState].
//
// Token digests are Poseidon2 transcripts over the proof's field
// ([TokensDigest]); the in-circuit twin is gadgets/statement. The model id
// of the direct design is the digest of the quantized model and its
// tokenizer (model.Model.ID), which the circuit holds as a constant. A
// [Statement] is one pass's (model id, input digest, output digest), as
// the circuits of a pass state it; its digest is its list of one's.
//
// A [Request] is an inference as a proof sees it: the prompt, the output
// and the row bucket R whose pass proves them. One circuit serves every
// request of a bucket: the pass runs over R tokens, the prompt, the
// output and zeros; the rows between the prompt's last and the pass's
// last have the output tokens as their argmax, and the statement says
// nothing of the rest.
package statement
