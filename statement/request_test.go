package statement

import (
	"slices"
	"strings"
	"testing"
)

func TestBucket(t *testing.T) {
	for _, c := range []struct{ n, ctx, want int }{
		{1, 32, 1}, {2, 32, 2}, {3, 32, 4}, {9, 32, 16}, {16, 32, 16}, {17, 32, 32}, {32, 32, 32},
		{33, 32, 0}, {0, 32, 0}, {17, 24, 24}, {9, 1024, 16},
	} {
		if got := Bucket(c.n, c.ctx); got != c.want {
			t.Errorf("Bucket(%d, %d) = %d, want %d", c.n, c.ctx, got, c.want)
		}
	}
}

func TestRequest(t *testing.T) {
	r, err := NewRequest([]int{5, 6, 7}, []int{8, 9}, 0, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows != 4 || r.Len() != 4 {
		t.Fatalf("rows %d, len %d: want 4 and 4", r.Rows, r.Len())
	}
	r.Rows = 8
	if got, want := r.Tokens(), []int{5, 6, 7, 8, 9, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("Tokens() = %v, want %v", got, want)
	}
	var live []int
	for i := range r.Rows {
		if r.Live(i) {
			live = append(live, i)
		}
	}
	if want := []int{2, 3}; !slices.Equal(live, want) {
		t.Errorf("live rows %v, want %v", live, want)
	}
	for i, want := range map[int]int{2: 8, 3: 9} {
		if got, ok := r.Next(i); !ok || got != want {
			t.Errorf("Next(%d) = %d, %v; want %d", i, got, ok, want)
		}
	}
	if _, ok := r.Next(4); ok {
		t.Error("Next(4): a pad row live")
	}
	for _, c := range []struct {
		name           string
		prompt, output []int
		rows           int
		want           string
	}{
		{"empty prompt", nil, []int{1}, 4, "needs a prompt"},
		{"empty output", []int{1}, nil, 4, "needs a prompt"},
		{"beyond the context", make([]int, 30), make([]int, 4), 0, "beyond the context"},
		{"bucket too small", []int{1, 2, 3}, []int{1, 2, 3}, 4, "bucket of at least 5 rows (bucket 8)"},
		{"bucket beyond the context", []int{1}, []int{1}, 64, "beyond the context"},
		{"token outside", []int{1, 10}, []int{1}, 0, "outside the vocabulary"},
		{"last token outside", []int{1}, []int{1, 10}, 2, "token 2 is 10"},
	} {
		_, err := NewRequest(c.prompt, c.output, c.rows, 10, 32)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if _, err := NewRequest([]int{1}, []int{1}, 24, 10, 24); err != nil {
		t.Errorf("a bucket of the context's size refused: %v", err)
	}
}
