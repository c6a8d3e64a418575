package statement

import (
	"fmt"
	"math/big"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/transcript"
)

// TokenBits bounds token ids: every vocabulary has fewer than 2²⁰ tokens.
const TokenBits = 20

// ModelIDBits is the size of a model id: small enough to be the same
// integer in BN254 Fr, BLS12-377 Fr and BW6-761 Fr (model.IDBits).
const ModelIDBits = 250

// Statement is what a proof proves: this model (by id), on this input,
// produced this output. Each value is below 2²⁵³ and means the same
// integer in the scalar fields of BN254, BLS12-377 and BW6-761.
type Statement struct {
	ModelID      *big.Int
	InputDigest  *big.Int
	OutputDigest *big.Int
}

// String prints the statement as three hexadecimal values.
func (s Statement) String() string {
	return fmt.Sprintf("model %#064x input %#064x output %#064x", s.ModelID, s.InputDigest, s.OutputDigest)
}

// Elements returns the statement as field elements, in the order the
// transcript absorbs them and the final proof exposes them.
func Elements[E field.Scalar, P field.Ptr[E]](s Statement) []E {
	out := make([]E, 3)
	for i, v := range []*big.Int{s.ModelID, s.InputDigest, s.OutputDigest} {
		P(&out[i]).SetBigInt(v)
	}
	return out
}

// TokensDigest is the digest of a token sequence over the field E: a
// transcript for domain "tokens" with an empty statement that absorbs the
// tokens packed by AbsorbPacked over [0, 2²⁰ − 1] (the count, then twelve
// 20-bit tokens per element on both fields); the digest is its final state.
func TokensDigest[E field.Scalar, P field.Ptr[E]](tokens []int) (E, error) {
	values := make([]int64, len(tokens))
	for i, t := range tokens {
		if t < 0 || t >= 1<<TokenBits {
			var z E
			return z, fmt.Errorf("statement: token %d is %d, outside [0, 2^%d)", i, t, TokenBits)
		}
		values[i] = int64(t)
	}
	tr := transcript.New[E, P]("tokens")
	if err := tr.AbsorbPacked(values, 0, 1<<TokenBits-1); err != nil {
		var z E
		return z, err
	}
	return tr.State(), nil
}

// Of returns the statement of an inference over the field E: the model
// id, the digest of the input tokens and the digest of the output tokens.
func Of[E field.Scalar, P field.Ptr[E]](id *big.Int, input, output []int) (Statement, error) {
	in, err := TokensDigest[E, P](input)
	if err != nil {
		return Statement{}, fmt.Errorf("statement: input: %w", err)
	}
	out, err := TokensDigest[E, P](output)
	if err != nil {
		return Statement{}, fmt.Errorf("statement: output: %w", err)
	}
	var a, b big.Int
	P(&in).BigInt(&a)
	P(&out).BigInt(&b)
	return Statement{ModelID: new(big.Int).Set(id), InputDigest: &a, OutputDigest: &b}, nil
}
