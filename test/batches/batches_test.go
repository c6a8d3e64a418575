//go:build !full

package batches

import (
	"context"
	"errors"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/statement"
)

// TestRunSmallBatch proves a batch of the built-in micro model (one
// block, a context of 8) in the aggregated design with real keys: three
// requests of 3, 1 and 3 rows stacked in a bucket of 8 rows by circuits
// of three request slots, three others reported and left out (a line
// that was not read, a request beyond the context, one past the slots).
// Each proven request's output is its own greedy generation; the batch
// states each request's statement under the final model id, in order;
// the wrapper's witness for the aggregator's proof states the report's
// list's statement digest; the aggregator's proof is refused on a list
// with a leaf changed, swapped, dropped or added, or another model id. Solving the wrapper and recording the list on
// chain are the full tier's (TestRunBatch in package test); the
// registry's submit of lists is tested with real proofs by solidity's
// TestRegistryLists.
func TestRunSmallBatch(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	unread := errors.New("line 2: not a request")
	requests := []pipeline.BatchRequest{
		{Prompt: []int{'H', 'i'}, Tokens: 2},
		{Err: unread},
		{Prompt: []int{'a'}, Tokens: 1},
		{Prompt: []int{1, 2, 3, 4, 5, 6, 7, 8}, Tokens: 2}, // 9 positions
		{Prompt: []int{'o', 'k'}, Tokens: 2},
		{Prompt: []int{'x'}, Tokens: 1}, // the three slots are taken
	}
	opts := pipeline.BatchOptions{
		AggregatedOptions: pipeline.AggregatedOptions{
			Options:     pipeline.Options{Model: m, Log: testWriter{t}},
			SegmentSize: 1, Slots: 3,
		},
		Requests: requests,
	}
	rep, err := pipeline.RunBatch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 8 || rep.Proven() != 3 {
		t.Fatalf("a batch of %d requests in %d rows, want 3 in 8", rep.Proven(), rep.Rows)
	}
	wantIndex := []int{0, -1, 1, -1, 2, -1}
	for i, res := range rep.Results {
		if res.Index != wantIndex[i] {
			t.Fatalf("request %d: index %d, want %d (%v)", i, res.Index, wantIndex[i], res.Err)
		}
		if res.Index < 0 {
			if res.Err == nil {
				t.Fatalf("request %d left out without a reason", i)
			}
			continue
		}
		gen, err := m.Generate(requests[i].Prompt, requests[i].Tokens)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gen.Tokens, res.Output) {
			t.Fatalf("request %d: the batch generated %v, its own pass %v", i, res.Output, gen.Tokens)
		}
		want, err := statement.Of[fr.Element](rep.Statement.ModelID, requests[i].Prompt, res.Output)
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.List.Leaves[res.Index]; got.String() != want.List().Leaves[0].String() {
			t.Fatalf("request %d: the batch states %v, want %v", i, got, want)
		}
	}
	if !errors.Is(rep.Results[1].Err, unread) || !strings.Contains(rep.Results[3].Err.Error(), "context") || !strings.Contains(rep.Results[5].Err.Error(), "slots") {
		t.Fatalf("the reasons given: %v; %v; %v", rep.Results[1].Err, rep.Results[3].Err, rep.Results[5].Err)
	}
	if rep.Statement.OutputDigest.Cmp(big.NewInt(3)) != 0 {
		t.Fatalf("the batch states %v requests", rep.Statement.OutputDigest)
	}

	// The wrapper's witness for the aggregator's proof states the
	// report's list of requests, each a leaf. Solving the wrapper on it
	// is the full tier's; recursion's TestWrapperTestEngine solves the
	// one wrapper on a toy proof of a list, honest and tampered.
	a := rep.Aggregated
	if a == nil {
		t.Fatal("no aggregator proof in the report")
	}
	if len(rep.List.Leaves) != 3 {
		t.Fatalf("the report's list holds %d leaves", len(rep.List.Leaves))
	}
	w, final, err := recursion.WrapperAssignment(a.Proof, a.Key, a.List, a.Deployment, a.Slot)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := rep.List.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := final.Digest(); err != nil || got.Cmp(digest) != 0 {
		t.Fatalf("the wrapper states %v, the report %v", final, rep.List)
	}
	if got, ok := w.StatementDigest.(*big.Int); !ok || got.Cmp(digest) != 0 {
		t.Fatalf("the wrapper's public input is %v, the list's statement digest %#x", w.StatementDigest, digest)
	}

	// The aggregator's proof is of its list (its public ListDigest) and
	// of no other: each tampered list is refused natively. The wrapper's
	// in-circuit check of the same public inputs is recursion's
	// TestWrapperTestEngine (a toy proof, a tampered list digest) and,
	// on this proof, the full tier's.
	if err := recursion.VerifyAggregated(a.Proof, a.Key, a.List); err != nil {
		t.Fatalf("the aggregator's proof on its list: %v", err)
	}
	leaves := a.List.Leaves
	changed := slices.Clone(leaves)
	changed[1] = statement.RequestLeaf(changed[1].Input, new(big.Int).Add(changed[1].Output, big.NewInt(1)))
	for name, l := range map[string]statement.List{
		"a leaf's output":    {ModelID: a.List.ModelID, Leaves: changed},
		"two leaves swapped": {ModelID: a.List.ModelID, Leaves: []statement.Leaf{leaves[1], leaves[0], leaves[2]}},
		"a leaf dropped":     {ModelID: a.List.ModelID, Leaves: leaves[:2]},
		"a leaf added":       {ModelID: a.List.ModelID, Leaves: append(slices.Clone(leaves), leaves[0])},
		"another model id":   {ModelID: new(big.Int).Add(a.List.ModelID, big.NewInt(1)), Leaves: leaves},
	} {
		if err := recursion.VerifyAggregated(a.Proof, a.Key, l); err == nil {
			t.Errorf("%s: the aggregator's proof verifies", name)
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
