package model

import (
	"slices"
	"testing"

	"github.com/veriformer/veriformer/statement"
)

// TestForwardStacked checks, on a GPT-2 and a Llama family model, that a
// stacked pass of three requests computes each request's rows as the
// request's own pass does (the embedding, every layer's output and the
// logits, bit for bit): the causal mask is block-diagonal and positions
// restart per request. On the micro model (a context of 8) the 9 rows
// exceed the context, which each request's fit. A layout that does not
// describe requests in order is refused, and so is a request beyond the
// context.
func TestForwardStacked(t *testing.T) {
	for _, name := range []string{Tiny, LlamaTiny, Micro} {
		t.Run(name, func(t *testing.T) {
			m, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			requests := [][]int{{3, 1, 4, 1, 5}, {9}, {2, 6, 5}}
			var tokens, begins []int
			for _, r := range requests {
				start := len(tokens)
				for _, tok := range r {
					tokens, begins = append(tokens, tok), append(begins, start)
				}
			}
			stacked, err := m.ForwardStacked(tokens, begins)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(stacked.Begins, begins) {
				t.Fatalf("trace begins %v, want %v", stacked.Begins, begins)
			}
			d, v := m.Config.Hidden, m.Config.Vocab
			row := 0
			for k, r := range requests {
				own, err := m.Forward(m.NewCache(), r)
				if err != nil {
					t.Fatal(err)
				}
				n := len(r)
				same := func(what string, a, b []int64, width int) {
					t.Helper()
					if !slices.Equal(a[row*width:(row+n)*width], b[:n*width]) {
						t.Fatalf("request %d: %s differs from its own pass", k, what)
					}
				}
				same("the embedding", stacked.Embedding.Data, own.Embedding.Data, d)
				for l := range stacked.Layers {
					same("a layer's output", stacked.Layers[l].Output.Data, own.Layers[l].Output.Data, d)
				}
				same("the logits", stacked.Logits().Data, own.Logits().Data, v)
				row += n
			}
			// Without the layout, the second request attends to the first
			// (where the rows fit the context).
			if len(tokens) <= m.Config.MaxPositions {
				whole, err := m.Forward(m.NewCache(), tokens)
				if err != nil {
					t.Fatal(err)
				}
				if slices.Equal(whole.Logits().Data, stacked.Logits().Data) {
					t.Fatal("the stacked pass is the plain pass")
				}
			}
			for _, bad := range [][]int{
				{0, 0, 0, 0, 0, 5, 6, 6},    // one row short
				{1, 1, 1, 1, 1, 5, 6, 6, 6}, // row 0 not at 0
				{0, 0, 0, 0, 0, 5, 6, 6, 7}, // row 8 in row 7's request
				{0, 0, 0, 0, 0, 5, 6, 5, 5}, // back to an earlier request
				{0, 0, 0, 0, 0, 5, 6, 6, 9}, // a start after the row
			} {
				if _, err := m.ForwardStacked(tokens, bad); err == nil {
					t.Errorf("layout %v accepted for %d rows", bad, len(tokens))
				}
			}
			long := make([]int, m.Config.MaxPositions+1)
			if _, err := m.ForwardStacked(long, make([]int, len(long))); err == nil {
				t.Error("a request beyond the context accepted")
			}
		})
	}
}

// TestForwardStackedGenerations stacks three greedy generations of the
// built-in model as a batch's pass (statement.Stack) in a bucket of 16
// rows with pad rows: every live row's argmax is its request's next
// output token, as in the request's own pass.
func TestForwardStackedGenerations(t *testing.T) {
	m, err := Builtin(Tiny)
	if err != nil {
		t.Fatal(err)
	}
	var s statement.Stack
	s.Rows = 16
	for _, c := range []struct {
		prompt []int
		tokens int
	}{{[]int{'H', 'i'}, 3}, {[]int{'!'}, 1}, {[]int{'a', 'b', 'c'}, 4}} {
		gen, err := m.Generate(c.prompt, c.tokens)
		if err != nil {
			t.Fatal(err)
		}
		s.Requests = append(s.Requests, statement.Request{Prompt: c.prompt, Output: gen.Tokens})
	}
	if err := s.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		t.Fatal(err)
	}
	tr, err := m.ForwardStacked(s.Tokens(), s.Begins())
	if err != nil {
		t.Fatal(err)
	}
	v := m.Config.Vocab
	live := 0
	for i := range s.Rows {
		if next, ok := s.Next(i); ok {
			live++
			if got := Argmax(tr.Logits().Data[i*v : (i+1)*v]); got != next {
				t.Fatalf("row %d: argmax %d, the request's next token %d", i, got, next)
			}
		}
	}
	if live != 3+1+4 {
		t.Fatalf("%d live rows, want 8", live)
	}
}
