package statement

import (
	"fmt"
	"math/bits"
)

// Request is one inference as a proof sees it: a prompt of s tokens, the
// g tokens greedily generated after it, and the number of rows R of the
// pass that proves them (the row bucket), with n = s + g − 1 ≤ R.
//
// The pass runs over the R tokens T = (Prompt ‖ Output ‖ 0, 0, …)[:R]:
// row i holds token T[i] at position i. Rows s − 1 ≤ i < n are the live
// rows, whose logits must have T[i + 1] (an output token) as their
// argmax; the rows past n are pad rows, computed by the same integer
// rules on token 0 and stated nothing about. A causal pass makes rows
// i < n depend on T[0..i] only, so the live rows are those of the n-row
// pass whatever the pad rows hold.
//
// A request with Batch set is a batch's pass instead: those requests
// stacked in the Rows rows ([Stack]), Prompt and Output empty; Len,
// Check, Tokens, Begins, Live and Next are then the stack's.
type Request struct {
	Prompt, Output []int
	Rows           int
	Batch          []Request
}

// Stack returns the batch's stack, and whether the request is a batch's
// pass.
func (r Request) Stack() (Stack, bool) {
	if r.Batch == nil {
		return Stack{}, false
	}
	return Stack{Requests: r.Batch, Rows: r.Rows}, true
}

// Begins returns, for a batch's pass, each row's request's first row
// ([Stack.Begins]); nil for a single request (every row attends from row
// 0).
func (r Request) Begins() []int {
	if s, ok := r.Stack(); ok {
		return s.Begins()
	}
	return nil
}

// Bucket returns the smallest row bucket that holds a pass of n rows
// under a context of maxPositions: the least power of two ≥ n, or the
// context itself when that power is beyond it. It returns 0 when n is
// not in [1, maxPositions].
func Bucket(n, maxPositions int) int {
	if n < 1 || n > maxPositions {
		return 0
	}
	r := 1 << bits.Len(uint(n-1))
	return min(r, maxPositions)
}

// NewRequest returns the request of a prompt and its output in the
// smallest bucket (rows 0) or in a bucket of rows, checked by [Check].
func NewRequest(prompt, output []int, rows, vocab, maxPositions int) (Request, error) {
	r := Request{Prompt: prompt, Output: output, Rows: rows}
	if rows == 0 {
		r.Rows = Bucket(r.Len(), maxPositions)
	}
	return r, r.Check(vocab, maxPositions)
}

// Len returns n = s + g − 1, the rows the request needs (a batch's: the
// sum over its requests).
func (r Request) Len() int {
	if s, ok := r.Stack(); ok {
		return s.Len()
	}
	return len(r.Prompt) + len(r.Output) - 1
}

// Check checks the request against a model of this vocabulary and
// context: s ≥ 1, g ≥ 1, n ≤ Rows ≤ maxPositions, every token in the
// vocabulary. (Buckets are powers of two by the provers' choice,
// [Bucket]; a proof holds for any Rows.)
func (r Request) Check(vocab, maxPositions int) error {
	if s, ok := r.Stack(); ok {
		if len(r.Prompt) != 0 || len(r.Output) != 0 {
			return fmt.Errorf("statement: a batch's pass with a prompt or an output of its own")
		}
		return s.Check(vocab, maxPositions)
	}
	if len(r.Prompt) < 1 || len(r.Output) < 1 {
		return fmt.Errorf("statement: a request needs a prompt and an output (got %d and %d tokens)", len(r.Prompt), len(r.Output))
	}
	n := r.Len()
	if n > maxPositions {
		return fmt.Errorf("statement: %d prompt and %d output tokens need %d positions, beyond the context of %d", len(r.Prompt), len(r.Output), n, maxPositions)
	}
	if r.Rows < n {
		return fmt.Errorf("statement: %d prompt and %d output tokens need a bucket of at least %d rows (bucket %d); the bucket has %d",
			len(r.Prompt), len(r.Output), n, Bucket(n, maxPositions), r.Rows)
	}
	if r.Rows > maxPositions {
		return fmt.Errorf("statement: a bucket of %d rows is beyond the context of %d", r.Rows, maxPositions)
	}
	for i, t := range append(append([]int(nil), r.Prompt...), r.Output...) {
		if t < 0 || t >= vocab {
			return fmt.Errorf("statement: token %d is %d, outside the vocabulary of %d", i, t, vocab)
		}
	}
	return nil
}

// Tokens returns the pass's R tokens T = (Prompt ‖ Output ‖ 0, …)[:R].
func (r Request) Tokens() []int {
	if s, ok := r.Stack(); ok {
		return s.Tokens()
	}
	t := make([]int, r.Rows)
	n := copy(t, r.Prompt)
	copy(t[n:], r.Output)
	return t
}

// Live reports whether row i is live: s − 1 ≤ i < n, its logits' argmax
// the output token T[i + 1].
func (r Request) Live(i int) bool {
	if s, ok := r.Stack(); ok {
		return s.Live(i)
	}
	return i >= len(r.Prompt)-1 && i < r.Len()
}

// Next returns T[i + 1], the output token a live row i must have as its
// argmax, and whether row i is live.
func (r Request) Next(i int) (int, bool) {
	if s, ok := r.Stack(); ok {
		return s.Next(i)
	}
	if !r.Live(i) {
		return 0, false
	}
	return r.Output[i+1-len(r.Prompt)], true
}
