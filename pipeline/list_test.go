package pipeline

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model"
)

// TestRunListRefuses: a mixed list its deployment cannot serve — another
// number of requests or turns than its mix, no mix, a request without a
// prompt, a turn whose history and bucket exceed the cache, a bucket the
// deployment does not list, a mix without the turns' cache — is refused
// at once, before any inference or proof, with what to do instead.
func TestRunListRefuses(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	deployment := func() AggregatedOptions {
		return AggregatedOptions{Options: Options{Model: m, CacheDir: t.TempDir()}, Capacity: 4, Mix: &Mix{Requests: 1, Turns: 1}}
	}
	request := ListRequest{Prompt: []int{'H'}, Tokens: 1}
	turn := ListTurn{ListRequest: request}
	for name, c := range map[string]struct {
		change func(*ListOptions)
		want   string
	}{
		"two requests":        {func(o *ListOptions) { o.Requests = append(o.Requests, request) }, "deployment's lists hold 1 and 1"},
		"no turn":             {func(o *ListOptions) { o.Turns = nil }, "deployment's lists hold 1 and 1"},
		"no mix":              {func(o *ListOptions) { o.Mix = nil }, "mix"},
		"an empty prompt":     {func(o *ListOptions) { o.Requests[0].Prompt = nil }, "prompt"},
		"beyond the capacity": {func(o *ListOptions) { o.Turns[0].History = []int{1, 2, 3, 4} }, "new conversation"},
		"an unlisted bucket":  {func(o *ListOptions) { o.Buckets = []int{1}; o.Requests[0].Prompt = []int{'H', 'i'} }, "deployment"},
		"no capacity":         {func(o *ListOptions) { o.Capacity = 0 }, "capacity"},
		"a mix of one leaf":   {func(o *ListOptions) { o.Mix = &Mix{Turns: 1}; o.Requests = nil }, "two leaves"},
	} {
		var log bytes.Buffer
		opts := ListOptions{AggregatedOptions: deployment(), Requests: []ListRequest{request}, Turns: []ListTurn{turn}}
		opts.Log = &log
		c.change(&opts)
		_, err := RunList(context.Background(), opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
		if log.Len() != 0 {
			t.Errorf("%s: refused after a stage ran:\n%s", name, log.String())
		}
	}
}

// TestMixedCatalog: a mixed deployment's list catalog lists the request
// segment circuits, the turn segment circuits, the list's aggregator and
// the wrapper; its lone turn's catalog the turn's circuits alone; the
// plan of either lists the circuits of both, each once, then the
// wrapper.
func TestMixedCatalog(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	opts := AggregatedOptions{Options: Options{Model: m, Tokens: 1, Bucket: 2, CacheDir: t.TempDir()}, Capacity: 4, Mix: &Mix{Requests: 2, Turns: 1}, MixedList: true, Wrap: true}
	cat, err := Circuits(Aggregated, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cat.Circuits {
		names = append(names, c.Kind+": "+c.Name)
	}
	want := []string{"segment: request segment 1/1 (blocks 0–0)", "segment: turn segment 1/1 (blocks 0–0)", "aggregator: aggregator of 2 requests and 1 turn", "wrapper: BN254 wrapper"}
	if !slices.Equal(names, want) || len(cat.passes) != 3 || cat.passes[2].segments[0] != 1 {
		t.Fatalf("the mixed list's catalog %q, passes %+v", names, cat.passes)
	}
	opts.MixedList = false
	lone, err := Circuits(Aggregated, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(lone.Circuits) != 3 || lone.Circuits[0].Name != "segment 1/1 (blocks 0–0)" || lone.Circuits[1].Name != "turn aggregator of 1 segment" || len(lone.passes) != 1 || lone.passes[0].kind != passTurn {
		t.Fatalf("the lone turn's catalog: %d circuits, passes %+v", len(lone.Circuits), lone.passes)
	}
	opts.MixedList = true
	opts.Mix = &Mix{Requests: 0, Turns: 2}
	two, err := Circuits(Aggregated, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(two.Shapes) != 1 || len(two.passes) != 2 || two.passes[1].kind != passTurn {
		t.Fatalf("a list of two turns: %d segment circuits, passes %+v", len(two.Shapes), two.passes)
	}
}

// TestCount: counts of nouns in the singular and the plural.
func TestCount(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{{1, "turn", "1 turn"}, {2, "turn", "2 turns"}, {0, "request", "0 requests"}, {3, "pass", "3 passes"}, {1, "leaf", "1 leaf"}, {4, "leaf", "4 leaves"}} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
