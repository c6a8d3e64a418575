package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// TestParseBatchFile reads a batch file whose good lines become requests
// and whose bad lines (an over-long one too) carry their own errors, each
// other line still read; a file of no request, of too many or too large
// is refused whole.
func TestParseBatchFile(t *testing.T) {
	file := strings.Join([]string{
		`{"prompt": "Hello", "tokens": 3}`,
		``,
		`{"promptTokens": [72, 105], "tokens": 1}`,
		`not json`,
		`{"prompt": "a", "promptTokens": [1], "tokens": 1}`,
		`{"tokens": 2}`,
		`{"prompt": "a", "tokens": 0}`,
		`{"prompt": "a", "tokens": 1, "state": "0x1"}`,
		`{"promptTokens": [1048576], "tokens": 1}`,
		`{"prompt": "", "tokens": 1}`,
		`{"prompt": "a", "tokens": 1} {}`,
		`{"prompt": "` + strings.Repeat("a", maxLine) + `", "tokens": 1}`,
		`{"prompt": "b", "tokens": 1}`,
	}, "\n")
	lines, err := ParseBatchFile([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	wantNumbers := []int{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
	if len(lines) != len(wantNumbers) {
		t.Fatalf("%d lines read, want %d", len(lines), len(wantNumbers))
	}
	for i, l := range lines {
		if l.Number != wantNumbers[i] {
			t.Fatalf("line %d numbered %d", wantNumbers[i], l.Number)
		}
		if good := i < 2 || i == 11; good != (l.Err == nil) {
			t.Errorf("line %d: error %v", l.Number, l.Err)
		}
	}
	if *lines[0].Line.Prompt != "Hello" || lines[0].Line.Tokens != 3 || fmt.Sprint(lines[1].Line.PromptTokens) != "[72 105]" {
		t.Fatalf("read %+v and %+v", lines[0].Line, lines[1].Line)
	}
	for name, data := range map[string]string{
		"empty":         "",
		"blank lines":   "\n  \n\n",
		"too many":      strings.Repeat("{\"prompt\":\"a\",\"tokens\":1}\n", statement.MaxLeaves+1),
		"a large file ": strings.Repeat(" ", maxBatchFile+1),
	} {
		if _, err := ParseBatchFile([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzParseBatchFile decodes arbitrary bytes: never a panic, and every
// line accepted is a request that can be generated (one prompt, tokens in
// range).
func FuzzParseBatchFile(f *testing.F) {
	f.Add([]byte(`{"prompt": "Hello", "tokens": 3}` + "\n" + `{"promptTokens": [1, 2], "tokens": 1}`))
	f.Add([]byte("not json\n\n{}"))
	f.Add([]byte(`{"prompt": "a", "promptTokens": [1], "tokens": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := ParseBatchFile(data)
		if err != nil {
			return
		}
		if len(lines) == 0 || len(lines) > statement.MaxLeaves {
			t.Fatalf("accepted %d lines", len(lines))
		}
		for _, l := range lines {
			if l.Err != nil {
				continue
			}
			if (l.Line.Prompt == nil) == (len(l.Line.PromptTokens) == 0) || l.Line.Tokens < 1 {
				t.Fatalf("line %d accepted: %+v", l.Number, l.Line)
			}
			for _, tok := range l.Line.PromptTokens {
				if tok < 0 || tok >= 1<<statement.TokenBits {
					t.Fatalf("line %d accepted token %d", l.Number, tok)
				}
			}
		}
	})
}

// TestBatchRows: a batch's bucket is the smallest power of two that holds
// its rows, or the one asked for, and may exceed every context.
func TestBatchRows(t *testing.T) {
	for _, c := range []struct{ n, bucket, want int }{
		{1, 0, 1}, {7, 0, 8}, {8, 0, 8}, {9, 0, 16}, {200, 0, 256}, {3, 64, 64}, {MaxBatchRows, 0, MaxBatchRows},
	} {
		got, err := BatchRows(c.n, c.bucket)
		if err != nil || got != c.want {
			t.Errorf("BatchRows(%d, %d) = %d, %v; want %d", c.n, c.bucket, got, err, c.want)
		}
	}
	for _, c := range []struct{ n, bucket int }{{0, 0}, {MaxBatchRows + 1, 0}, {9, 8}, {3, 12}, {1, 2 * MaxBatchRows}} {
		if got, err := BatchRows(c.n, c.bucket); err == nil {
			t.Errorf("BatchRows(%d, %d) = %d, accepted", c.n, c.bucket, got)
		}
	}
}

// TestRunBatchRefuses: a batch is refused before anything is proven when
// it holds no request, too many, asks for conversations' turns or for
// more slots than a batch may hold, when its deployment's buckets are not
// batch buckets, and when none of its requests can be proven (each
// reported).
func TestRunBatchRefuses(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	base := AggregatedOptions{Options: Options{Model: m, CacheDir: t.TempDir()}}
	one := []BatchRequest{{Prompt: []int{1}, Tokens: 1}}
	with := func(change func(*BatchOptions)) BatchOptions {
		o := BatchOptions{AggregatedOptions: base, Requests: one}
		change(&o)
		return o
	}
	var logs strings.Builder
	for name, c := range map[string]struct {
		opts BatchOptions
		want string
	}{
		"no request":    {with(func(o *BatchOptions) { o.Requests = nil }), "no requests"},
		"too many":      {with(func(o *BatchOptions) { o.Requests = make([]BatchRequest, statement.MaxLeaves+1) }), "at most"},
		"turns":         {with(func(o *BatchOptions) { o.Capacity = 8 }), "turns"},
		"slots":         {with(func(o *BatchOptions) { o.Slots = statement.MaxLeaves + 1 }), "slots"},
		"bucket":        {with(func(o *BatchOptions) { o.Bucket = 12 }), "power of two"},
		"deployment":    {with(func(o *BatchOptions) { o.Buckets = []int{16, 24} }), "24"},
		"two in a slot": {with(func(o *BatchOptions) { o.Buckets = []int{16, 16} }), "two buckets"},
		"none provable": {with(func(o *BatchOptions) {
			o.Log = &logs
			o.Requests = []BatchRequest{{Err: errors.New("unread")}, {Prompt: []int{300}, Tokens: 1}, {Prompt: make([]int, 9), Tokens: 1}, {Prompt: []int{1}}}
		}), "no request of the batch"},
	} {
		_, err := RunBatch(context.Background(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
	for _, want := range []string{"request 1/4: left out: unread", "outside the vocabulary", "beyond the model's context", "at least one token"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
	}
}
