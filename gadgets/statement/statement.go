// Package statement is the in-circuit twin of package statement: the
// digest of a token sequence, computed exactly as natively (see
// statement.TokensDigest), so a circuit can bind the digests of its input
// and output tokens — of the first count tokens of a buffer, count a
// circuit variable, so that a circuit fixed by a buffer's size serves
// every length up to it — a request of a row bucket bound to its
// digests (Request.Bind: the lengths as variables, the pass's tokens and
// live rows); the digests of a list (statement.List): the list digest of
// a fixed list of leaves (ListDigestOf, each Leaf a request or a turn) or
// of the first count requests of buffers of m, count a variable
// (ListDigest), and the statement digest of a model id and a list digest
// (DigestOfList), the one public input of the final circuits, or of a
// single request (Digest); and a batch's pass (BatchRequest: up to m
// requests stacked in a bucket, bound to their list digest and count,
// BatchRequest.Bind giving the pass's tokens, live rows, targets and
// layout). The list and statement digests are SHA-256 in field
// arithmetic alone, with no lookup and no commitment, so that they serve
// in any large enough field, BW6-761's included, and in Groth16 circuits
// without commitments.
package statement

// tokenBits matches statement.TokenBits.
const tokenBits = 20
