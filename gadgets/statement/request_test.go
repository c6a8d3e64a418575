package statement

import (
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	native "github.com/veriformer/veriformer/statement"
)

// requestCircuit binds a request to its digests and asserts the pass's
// tokens and live rows are the expected ones.
type requestCircuit struct {
	Request       Request
	Input, Output frontend.Variable `gnark:",public"`
	Tokens, Live  []frontend.Variable
}

func (c *requestCircuit) Define(api frontend.API) error {
	b, err := c.Request.Bind(api, c.Input, c.Output)
	if err != nil {
		return err
	}
	for i := range c.Tokens {
		api.AssertIsEqual(b.Tokens[i], c.Tokens[i])
	}
	for i := range c.Live {
		api.AssertIsEqual(b.Live[i], c.Live[i])
	}
	return nil
}

func requestPlaceholder(rows int) *requestCircuit {
	return &requestCircuit{Request: PlaceholderRequest(rows), Tokens: make([]frontend.Variable, rows+1), Live: make([]frontend.Variable, rows)}
}

// requestAssignment is the honest assignment of r over the curve's field:
// native digests, tokens (statement.Request.Tokens and T[R]) and live
// rows.
func requestAssignment(t *testing.T, curve ecc.ID, r native.Request) *requestCircuit {
	t.Helper()
	v, err := ValueOfRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	c := &requestCircuit{Request: v, Input: nativeDigest(t, curve, r.Prompt), Output: nativeDigest(t, curve, r.Output)}
	tokens := append(r.Tokens(), 0)
	if tok, ok := r.Next(r.Rows - 1); ok {
		tokens[r.Rows] = tok
	}
	for i, tok := range tokens {
		c.Tokens = append(c.Tokens, tok)
		if i < r.Rows {
			live := 0
			if r.Live(i) {
				live = 1
			}
			c.Live = append(c.Live, live)
		}
	}
	return c
}

// TestRequestBind: for buckets of 1, 5 and 16 rows and every prompt and
// output length whose pass fits, the bound tokens and live rows are the
// native ones; and a request is refused with a length one more or one
// less under the same digests, a prompt token at s, a pass of R + 1
// rows, an empty prompt or output, and a token of 2²⁰.
func TestRequestBind(t *testing.T) {
	seq := []int{72, 101, 108, 108, 111, 1, 255, 50256, 1<<20 - 1, 3, 4, 5, 6, 7, 8, 9, 10}
	curve := ecc.BN254
	field := curve.ScalarField()
	refused := func(name string, placeholder, c *requestCircuit) {
		t.Helper()
		if err := test.IsSolved(placeholder, c, field); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, rows := range []int{1, 5, 16} {
		placeholder := requestPlaceholder(rows)
		for s := 1; s <= rows; s++ {
			for g := 1; s+g-1 <= rows; g++ {
				r := native.Request{Prompt: seq[:s], Output: seq[len(seq)-g:], Rows: rows}
				name := fmt.Sprintf("bucket %d/s %d/g %d", rows, s, g)
				honest := requestAssignment(t, curve, r)
				if err := test.IsSolved(placeholder, honest, field); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
		// Tampers on one request of the bucket.
		s, g := (rows+1)/2, rows/2+1
		r := native.Request{Prompt: seq[:s], Output: seq[len(seq)-g:], Rows: rows}
		name := fmt.Sprintf("bucket %d/s %d/g %d", rows, s, g)
		bad := requestAssignment(t, curve, r)
		bad.Request.PromptLen = s + 1
		refused(name+": prompt length s + 1", placeholder, bad)
		bad = requestAssignment(t, curve, r)
		bad.Request.PromptLen = s - 1
		refused(name+": prompt length s − 1", placeholder, bad)
		bad = requestAssignment(t, curve, r)
		bad.Request.OutputLen = g - 1
		refused(name+": output length g − 1", placeholder, bad)
		if s < rows {
			bad = requestAssignment(t, curve, r)
			bad.Request.Prompt[s] = 1
			refused(name+": a prompt token at s", placeholder, bad)
		}
		// Tokens and live rows are those of the bound request, not free.
		bad = requestAssignment(t, curve, r)
		bad.Tokens[rows] = 7
		refused(name+": T[R] changed", placeholder, bad)
	}
	// A pass of R + 1 rows: the buffers hold the tokens, the bucket not
	// their pass.
	over := native.Request{Prompt: seq[:3], Output: seq[:3], Rows: 4}
	c := &requestCircuit{Request: Request{Prompt: buffer(over.Prompt, 4), Output: buffer(over.Output, 4), PromptLen: 3, OutputLen: 3},
		Input: nativeDigest(t, curve, over.Prompt), Output: nativeDigest(t, curve, over.Output)}
	refused("a pass of R + 1 rows", &requestCircuit{Request: PlaceholderRequest(4)}, c)
	for _, e := range []struct {
		name           string
		prompt, output []int
	}{{"an empty prompt", nil, seq[:2]}, {"an empty output", seq[:2], nil}} {
		c := &requestCircuit{Request: Request{Prompt: buffer(e.prompt, 4), Output: buffer(e.output, 4), PromptLen: len(e.prompt), OutputLen: len(e.output)},
			Input: nativeDigest(t, curve, e.prompt), Output: nativeDigest(t, curve, e.output)}
		refused(e.name, &requestCircuit{Request: PlaceholderRequest(4)}, c)
	}
	// A token of 2²⁰: token 0 plus 2²⁰ and token 1 minus one pack into
	// the honest element (see TestTokensDigestPrefix).
	r := native.Request{Prompt: []int{5, 6, 7}, Output: []int{8, 9}, Rows: 4}
	bad := requestAssignment(t, curve, r)
	bad.Request.Prompt[0], bad.Request.Prompt[1] = 5+1<<20, 5
	bad.Tokens[0], bad.Tokens[1] = 5+1<<20, 5
	refused("a token of 2^20", requestPlaceholder(4), bad)
	if _, err := ValueOfRequest(native.Request{Prompt: seq[:3], Output: seq[:3], Rows: 4}); err == nil {
		t.Error("ValueOfRequest: a request beyond its bucket accepted")
	}
}

// TestRequestConstraints snapshots Bind's R1CS count on BN254 for
// buckets of 16 and 64 rows beside the fixed-length digests of a prompt
// and an output of R/2 tokens each (testdata/prefix_constraints.csv
// holds those of one buffer).
func TestRequestConstraints(t *testing.T) {
	checkCounts(t, "testdata/request_constraints.csv", "rows", func(size int) []namedCircuit {
		return []namedCircuit{
			{"two TokensDigest of R/2", &twoDigests{A: make([]frontend.Variable, size/2), B: make([]frontend.Variable, size/2)}},
			{"Request.Bind", &requestCircuit{Request: PlaceholderRequest(size)}},
		}
	})
}

type twoDigests struct {
	A, B []frontend.Variable
	D    frontend.Variable `gnark:",public"`
}

func (c *twoDigests) Define(api frontend.API) error {
	a, err := TokensDigest(api, c.A)
	if err != nil {
		return err
	}
	b, err := TokensDigest(api, c.B)
	if err != nil {
		return err
	}
	api.AssertIsEqual(api.Add(a, b), c.D)
	return nil
}
