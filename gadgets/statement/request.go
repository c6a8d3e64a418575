package statement

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	native "github.com/veriformer/veriformer/statement"
)

// Request is the in-circuit form of statement.Request: a circuit fixed by
// the bucket's R rows holds the prompt and the output in buffers of R
// tokens each, zero past their lengths, and the lengths s and g as
// variables, so that one circuit serves every request whose pass fits
// the bucket.
type Request struct {
	Prompt, Output       []frontend.Variable
	PromptLen, OutputLen frontend.Variable
}

// PlaceholderRequest returns a Request sized for a bucket of rows, to
// compile.
func PlaceholderRequest(rows int) Request {
	return Request{Prompt: make([]frontend.Variable, rows), Output: make([]frontend.Variable, rows)}
}

// ValueOfRequest returns the assignment of a request; it fails when the
// request does not fit its bucket.
func ValueOfRequest(r native.Request) (Request, error) {
	if len(r.Prompt) < 1 || len(r.Output) < 1 || r.Len() > r.Rows {
		return Request{}, fmt.Errorf("statement: %d prompt and %d output tokens do not fit a bucket of %d rows", len(r.Prompt), len(r.Output), r.Rows)
	}
	out := Request{Prompt: buffer(r.Prompt, r.Rows), Output: buffer(r.Output, r.Rows), PromptLen: len(r.Prompt), OutputLen: len(r.Output)}
	return out, nil
}

// buffer returns tokens padded with zeros to size.
func buffer(tokens []int, size int) []frontend.Variable {
	out := make([]frontend.Variable, size)
	for i := range out {
		out[i] = 0
		if i < len(tokens) {
			out[i] = tokens[i]
		}
	}
	return out
}

// Bound is a request bound to its digests.
type Bound struct {
	// Tokens are the pass's tokens T[0..R] (statement.Request.Tokens, and
	// one more: T[R], the target of row R − 1).
	Tokens []frontend.Variable
	// Live[i] = [s − 1 ≤ i < n] for each row i < R: the rows whose
	// logits' argmax is T[i + 1].
	Live []frontend.Variable
	// Next, in a batch's pass, holds each live row's target, its
	// request's next output token (a request's last row is followed by
	// another request's first token, not its output); nil: T[i + 1].
	Next []frontend.Variable
	// Starts, in a batch's pass, holds for each row 1 when it is its
	// request's first row, 0 otherwise (Starts[0] = 1); nil for one
	// request.
	Starts []frontend.Variable
}

// Bind asserts that the request's prompt and output have the digests
// input and output (statement.TokensDigest of the first s and g tokens
// of the buffers, the buffers zero past them: see prefixDigest)
// and that 1 ≤ s, 1 ≤ g and n = s + g − 1 ≤ R; it returns the pass's
// tokens and live rows.
//
// T[i] = Prompt[i] + Output[i − s] (0 outside the buffer): the prompt
// is zero from s on and the output, shifted right by s with a barrel
// shifter over the bits of s, is zero below s. Cost: the two prefix
// digests, a thermometer of n, ⌈log₂(R + 1)⌉·(R + 1) selects and R
// products, about 3k constraints for R = 16.
func (r Request) Bind(api frontend.API, input, output frontend.Variable) (Bound, error) {
	rows := len(r.Prompt)
	if rows < 1 || len(r.Output) != rows {
		return Bound{}, fmt.Errorf("statement: request buffers of %d and %d tokens: want one bucket's size, at least 1", len(r.Prompt), len(r.Output))
	}
	tauS := gpoly.Thermometer(api, r.PromptLen, rows)
	tauG := gpoly.Thermometer(api, r.OutputLen, rows)
	api.AssertIsEqual(tauS[0], 1) // s ≥ 1
	api.AssertIsEqual(tauG[0], 1) // g ≥ 1
	n := api.Sub(api.Add(r.PromptLen, r.OutputLen), 1)
	tauN := gpoly.Thermometer(api, n, rows) // n ≤ R
	in, err := prefixDigest(api, r.Prompt, r.PromptLen, tauS)
	if err != nil {
		return Bound{}, err
	}
	api.AssertIsEqual(in, input)
	out, err := prefixDigest(api, r.Output, r.OutputLen, tauG)
	if err != nil {
		return Bound{}, err
	}
	api.AssertIsEqual(out, output)

	// shifted[i] = Output[i − s] for s ≤ i ≤ R, else 0.
	shifted := make([]frontend.Variable, rows+1)
	for i := range shifted {
		shifted[i] = 0
		if i < rows {
			shifted[i] = r.Output[i]
		}
	}
	shifted = shiftRight(api, shifted, r.PromptLen, bits.Len(uint(rows)))
	b := Bound{Tokens: make([]frontend.Variable, rows+1), Live: make([]frontend.Variable, rows)}
	for i := range b.Tokens {
		b.Tokens[i] = shifted[i]
		if i < rows {
			b.Tokens[i] = api.Add(r.Prompt[i], shifted[i])
		}
	}
	for i := range b.Live {
		// [i ≥ s − 1] = 1 − [i + 1 < s]; τˢ_R = 0 as s ≤ R.
		var below frontend.Variable = 0
		if i+1 < rows {
			below = tauS[i+1]
		}
		b.Live[i] = api.Mul(api.Sub(1, below), tauN[i])
	}
	return b, nil
}
