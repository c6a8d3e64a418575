package statement

import (
	"fmt"
	"math/big"

	"github.com/veriformer/veriformer/field"
)

// Stack is a batch's pass: the requests' passes stacked in the rows of
// one bucket of Rows rows, in order, request j on the n_j = s_j + g_j − 1
// rows from o_j = n_0 + … + n_{j−1}, then pad rows up to Rows. A row
// attends to the rows of its own request up to itself, at its position
// within the request (model.Model.ForwardStacked), so each request's rows
// are those of its own pass; each pad row is a block of its own, on
// token 0 at position 0, and is stated nothing about. The Rows of each
// request are ignored.
type Stack struct {
	Requests []Request
	Rows     int
}

// Len returns the rows the requests need: the sum of their n_j.
func (s Stack) Len() int {
	n := 0
	for _, r := range s.Requests {
		n += r.Len()
	}
	return n
}

// Check checks every request against a model of this vocabulary and
// context ([Request.Check] in a bucket of its own n rows: each request's
// positions within the context), that there is at least one and at most
// [MaxLeaves], and that their rows fit the bucket, Len() ≤ Rows. The
// bucket itself may exceed the context: positions restart per request.
func (s Stack) Check(vocab, maxPositions int) error {
	if len(s.Requests) == 0 || len(s.Requests) > MaxLeaves {
		return fmt.Errorf("statement: a batch of %d requests, want 1 to %d", len(s.Requests), MaxLeaves)
	}
	for j, r := range s.Requests {
		if r.Batch != nil {
			return fmt.Errorf("statement: request %d of the batch is a batch", j)
		}
		r.Rows = max(r.Len(), 1)
		if err := r.Check(vocab, maxPositions); err != nil {
			return fmt.Errorf("statement: request %d of the batch: %w", j, err)
		}
	}
	if n := s.Len(); n > s.Rows {
		return fmt.Errorf("statement: a batch of %d rows in a bucket of %d rows", n, s.Rows)
	}
	return nil
}

// Offsets returns o_j, the first row of each request.
func (s Stack) Offsets() []int {
	out := make([]int, len(s.Requests))
	o := 0
	for j, r := range s.Requests {
		out[j] = o
		o += r.Len()
	}
	return out
}

// Tokens returns the pass's Rows tokens: each request's pass tokens
// (prompt ‖ output but its last token) in order, then zeros.
func (s Stack) Tokens() []int {
	t := make([]int, 0, s.Rows)
	for _, r := range s.Requests {
		n := r.Len()
		r.Rows = n
		t = append(t, r.Tokens()...)
	}
	return append(t, make([]int, s.Rows-len(t))...)
}

// Begins returns, for each of the Rows rows, the first row of its
// request: o_j on request j's rows, the row itself on a pad row (each a
// block of its own, at position 0, so that no pad row's position exceeds
// the context).
func (s Stack) Begins() []int {
	b := make([]int, 0, s.Rows)
	for j, o := range s.Offsets() {
		for range s.Requests[j].Len() {
			b = append(b, o)
		}
	}
	for len(b) < s.Rows {
		b = append(b, len(b))
	}
	return b
}

// at returns the request holding row i and the row within it, or −1.
func (s Stack) at(i int) (int, int) {
	if i < 0 {
		return -1, 0
	}
	for j, r := range s.Requests {
		n := r.Len()
		if i < n {
			return j, i
		}
		i -= n
	}
	return -1, 0
}

// Live reports whether row i is live: a live row of its request's pass,
// its logits' argmax the request's next output token.
func (s Stack) Live(i int) bool {
	_, ok := s.Next(i)
	return ok
}

// Next returns the output token a live row i must have as its argmax
// ([Request.Next] of its request, at its row within the request) and
// whether row i is live.
func (s Stack) Next(i int) (int, bool) {
	j, k := s.at(i)
	if j < 0 {
		return 0, false
	}
	r := s.Requests[j]
	r.Rows = r.Len()
	return r.Next(k)
}

// StackStatement returns the statement a batch's pass states over the
// field E, and the list of its requests: the model id, the list digest
// ([List.ListDigest] of a request leaf per request, whose digests are
// [TokensDigest] over E) and the number of requests.
func StackStatement[E field.Scalar, P field.Ptr[E]](id *big.Int, s Stack) (Statement, List, error) {
	l := List{ModelID: new(big.Int).Set(id)}
	for j, r := range s.Requests {
		st, err := Of[E, P](id, r.Prompt, r.Output)
		if err != nil {
			return Statement{}, List{}, fmt.Errorf("statement: request %d of the batch: %w", j, err)
		}
		l.Leaves = append(l.Leaves, RequestLeaf(st.InputDigest, st.OutputDigest))
	}
	list, err := l.ListDigest()
	if err != nil {
		return Statement{}, List{}, err
	}
	return Statement{ModelID: l.ModelID, InputDigest: list, OutputDigest: big.NewInt(int64(len(l.Leaves)))}, l, nil
}
