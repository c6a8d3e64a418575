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

// TestDeploymentRows: with a deployment's buckets and no bucket asked
// for, a request takes the smallest of them that holds it, and one
// beyond them all is refused naming the bucket it needs.
func TestDeploymentRows(t *testing.T) {
	opts := &AggregatedOptions{Options: Options{Model: model.Default()}, Buckets: []int{16, 4}}
	for _, c := range []struct{ prompt, tokens, want int }{{2, 2, 4}, {3, 2, 4}, {4, 2, 16}, {12, 5, 16}} {
		if got, err := opts.rows(c.prompt, c.tokens); err != nil || got != c.want {
			t.Errorf("%d + %d tokens: bucket %d, %v; want %d", c.prompt, c.tokens, got, err, c.want)
		}
	}
	if _, err := opts.rows(12, 6); err == nil || !strings.Contains(err.Error(), "at least 17 rows (bucket 32); the deployment has [16 4]") {
		t.Errorf("a request beyond the deployment: %v", err)
	}
	opts.Bucket = 32
	if got, err := opts.rows(2, 2); err != nil || got != 32 {
		t.Errorf("--bucket 32 with a deployment: %d, %v", got, err)
	}
}

// TestCheckDeployment: a deployment's buckets must be buckets of the
// model, one per slot, and hold the run's.
func TestCheckDeployment(t *testing.T) {
	m := model.Default() // context 32
	for _, c := range []struct {
		buckets []int
		rows    int
		err     string
	}{
		{[]int{4, 16}, 16, ""},
		{[]int{4, 16}, 8, "not one of the deployment's"},
		{[]int{4, 64}, 4, "beyond the model's context"},
		{[]int{4, 6}, 4, "power of two"},
		{[]int{4, 4}, 4, "two buckets of slot 2"},
		{[]int{32}, 32, ""},
	} {
		err := checkDeployment(m, c.buckets, c.rows, false)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("deployment %v, bucket %d: %v, want %q", c.buckets, c.rows, err, c.err)
		}
	}
}
