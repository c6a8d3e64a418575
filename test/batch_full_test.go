//go:build full

package test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

// TestRunBatch proves a batch of three requests of the built-in micro
// model, stacked in a bucket of 8 rows, all the way: the batch's segment
// circuit, the list aggregator, the wrapper (its Groth16 setup about 18
// minutes and 14 GB the first time, then cached: every run's) and the
// record on a simulated chain, where the registry emits the list's event
// and holds each request under its root (pipeline.RunBatch checks both). The
// default tier's TestRunSmallBatch (package test/batches) runs the same
// batch up to the aggregator. Run it with
//
//	go test -tags full ./test -run TestRunBatch -timeout 120m -v
func TestRunBatch(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Minute)
	defer cancel()
	rep, err := pipeline.RunBatch(ctx, pipeline.BatchOptions{
		AggregatedOptions: pipeline.AggregatedOptions{
			Options:     pipeline.Options{Model: m, Chain: true, Log: testWriter{t}},
			SegmentSize: 1, Slots: 3, Wrap: true,
		},
		Requests: []pipeline.BatchRequest{
			{Prompt: []int{'H', 'i'}, Tokens: 2},
			{Prompt: []int{'a'}, Tokens: 1},
			{Prompt: []int{'o', 'k'}, Tokens: 2},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.Proven() != 3 || rep.SubmitGas == 0 {
		t.Fatalf("%d requests proven, submit %d gas", rep.Proven(), rep.SubmitGas)
	}
	root, err := solidity.ListRoot(rep.List)
	if err != nil {
		t.Fatal(err)
	}
	if root != rep.Root {
		t.Fatalf("the registry stored root %s, the batch's is %s", rep.Root, root)
	}
	t.Logf("submit: %d gas, %d per request", rep.SubmitGas, rep.SubmitGas/3)
	dir := t.TempDir()
	if err := pipeline.WriteBatchArtifacts(dir, rep); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"batch.json", "proof.bin"} {
		if _, err := os.Stat(dir + "/" + name); err != nil {
			t.Fatal(err)
		}
	}
}
