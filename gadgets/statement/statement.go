// Package statement is the in-circuit twin of package statement: the
// digest of a token sequence, computed exactly as natively (see
// statement.TokensDigest), so a circuit can bind the digests of its input
// and output tokens — of a fixed number of them (TokensDigest) or of the
// first count tokens of a buffer, count a circuit variable
// (TokensDigestPrefix), so that a circuit fixed by a buffer's size serves
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

import (
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/transcript"
)

// tokenBits matches statement.TokenBits.
const tokenBits = 20

// TokensDigest returns the digest of the tokens; each token is
// range-checked below 2²⁰. Cost: one range check per token and one
// permutation per twelve tokens, plus two.
func TokensDigest(api frontend.API, tokens []frontend.Variable) (frontend.Variable, error) {
	tr, err := transcript.New(api, "tokens")
	if err != nil {
		return nil, err
	}
	if err := tr.AbsorbPacked(tokens, 0, 1<<tokenBits-1); err != nil {
		return nil, err
	}
	return tr.State(), nil
}
