package statement

import (
	"slices"
	"testing"
)

// TestStack checks the rows of a batch of three requests in a bucket of
// 16: the tokens, the requests' first rows, the live rows and their
// targets, each request's as its own pass has them; and the refusal of
// batches that are empty, do not fit the bucket or hold a bad request.
func TestStack(t *testing.T) {
	s := Stack{Requests: []Request{
		{Prompt: []int{1, 2, 3}, Output: []int{4, 5}}, // rows 0–3
		{Prompt: []int{6}, Output: []int{7}},          // row 4
		{Prompt: []int{8, 9}, Output: []int{10, 11}},  // rows 5–7
	}, Rows: 16}
	if err := s.Check(100, 64); err != nil {
		t.Fatal(err)
	}
	// Rows beyond the context: each request's positions are within it.
	if err := (Stack{Requests: s.Requests, Rows: 16}).Check(100, 4); err != nil {
		t.Fatalf("a bucket beyond a context of 4 whose requests fit it: %v", err)
	}
	if s.Len() != 8 || !slices.Equal(s.Offsets(), []int{0, 4, 5}) {
		t.Fatalf("Len %d, offsets %v", s.Len(), s.Offsets())
	}
	wantTokens := []int{1, 2, 3, 4, 6, 8, 9, 10, 0, 0, 0, 0, 0, 0, 0, 0}
	if got := s.Tokens(); !slices.Equal(got, wantTokens) {
		t.Fatalf("tokens %v, want %v", got, wantTokens)
	}
	wantBegins := []int{0, 0, 0, 0, 4, 5, 5, 5, 8, 9, 10, 11, 12, 13, 14, 15}
	if got := s.Begins(); !slices.Equal(got, wantBegins) {
		t.Fatalf("begins %v, want %v", got, wantBegins)
	}
	// Live rows: request 0's rows 2, 3 (targets 4, 5), request 1's row 4
	// (target 7), request 2's rows 6, 7 (targets 10, 11).
	want := map[int]int{2: 4, 3: 5, 4: 7, 6: 10, 7: 11}
	for i := -1; i <= 16; i++ {
		tok, ok := s.Next(i)
		if w, live := want[i]; live != ok || (live && tok != w) || s.Live(i) != live {
			t.Errorf("row %d: next %d, %v; want %d, %v", i, tok, ok, w, live)
		}
	}
	for name, bad := range map[string]Stack{
		"empty":                        {Rows: 16},
		"beyond the bucket":            {Requests: s.Requests, Rows: 7},
		"a request beyond the context": {Requests: []Request{{Prompt: make([]int, 40), Output: make([]int, 30)}}, Rows: 128},
		"no output":                    {Requests: []Request{{Prompt: []int{1}}}, Rows: 4},
		"a token outside":              {Requests: []Request{{Prompt: []int{1}, Output: []int{100}}}, Rows: 4},
		"too many":                     {Requests: make([]Request, MaxLeaves+1), Rows: 64},
	} {
		if err := bad.Check(100, 64); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRequestBatch checks that a request holding a batch is the batch's
// stack (Len, Tokens, Begins, Next, Check) and that a single request has
// no layout; a batch's pass with a prompt of its own, a batch inside a
// batch and a batch beyond its bucket are refused.
func TestRequestBatch(t *testing.T) {
	requests := []Request{{Prompt: []int{1, 2}, Output: []int{3}}, {Prompt: []int{4}, Output: []int{5, 6}}}
	r := Request{Rows: 4, Batch: requests}
	s, ok := r.Stack()
	if !ok || r.Len() != 4 || !slices.Equal(r.Tokens(), s.Tokens()) || !slices.Equal(r.Begins(), []int{0, 0, 2, 2}) {
		t.Fatalf("batch request: %v, Len %d, tokens %v, begins %v", ok, r.Len(), r.Tokens(), r.Begins())
	}
	for i := range 4 {
		a, okA := r.Next(i)
		b, okB := s.Next(i)
		if a != b || okA != okB || r.Live(i) != okB {
			t.Fatalf("row %d: %d, %v against the stack's %d, %v", i, a, okA, b, okB)
		}
	}
	if err := r.Check(10, 16); err != nil {
		t.Fatal(err)
	}
	if single := (Request{Prompt: []int{1}, Output: []int{2}, Rows: 2}); single.Begins() != nil {
		t.Fatal("a single request has a layout")
	}
	for name, bad := range map[string]Request{
		"a prompt of its own": {Prompt: []int{1}, Rows: 4, Batch: requests},
		"a batch inside":      {Rows: 8, Batch: []Request{r}},
		"beyond the bucket":   {Rows: 3, Batch: requests},
		"an empty batch":      {Rows: 4, Batch: []Request{}},
	} {
		if err := bad.Check(10, 16); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
