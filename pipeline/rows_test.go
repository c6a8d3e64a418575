package pipeline

import (
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model"
)

// TestRows: the smallest bucket by default; a bucket asked for is kept
// when it holds the pass and is a power of two or the context, and
// refused otherwise with the bucket the request needs.
func TestRows(t *testing.T) {
	m := model.Default() // context 32
	for _, c := range []struct {
		prompt, tokens, bucket, want int
		err                          string
	}{
		{2, 2, 0, 4, ""},
		{12, 3, 0, 16, ""},
		{1, 1, 0, 1, ""},
		{12, 3, 16, 16, ""},
		{12, 3, 32, 32, ""},
		{12, 6, 16, 0, "at least 17 rows (bucket 32)"},
		{12, 3, 24, 0, "power of two"},
		{12, 3, 64, 0, "beyond the model's context"},
		{30, 4, 0, 0, "beyond the model's context of 32"},
		{0, 4, 0, 0, "at least 1"},
	} {
		got, err := Rows(m, c.prompt, c.tokens, c.bucket)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Rows(%d, %d, bucket %d) = %d, %v; want %d, %q", c.prompt, c.tokens, c.bucket, got, err, c.want, c.err)
		}
	}
}
