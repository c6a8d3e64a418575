package test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/veriformer/veriformer/pipeline"
)

// TestRunAggregated proves the default model in the aggregated shape over
// committed tensors: two one-block committed segment proofs, their
// segment circuits on BLS12-377 with real Groth16 proofs, the committed
// aggregator on BW6-761 with a real proof, and the BN254 wrapper checked
// with gnark's test engine (its Groth16 setup is behind the build tag
// full, see recursion). The plan of the same run then finds every
// circuit's keys in the cache: it compiles the circuits the run compiled.
func TestRunAggregated(t *testing.T) {
	runAggregated(t, pipeline.Committed)
}

// TestRunAggregatedOpened is TestRunAggregated over opened tensors.
func TestRunAggregatedOpened(t *testing.T) {
	runAggregated(t, pipeline.Opened)
}

func runAggregated(t *testing.T, tensors pipeline.Tensors) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	opts := pipeline.AggregatedOptions{Options: pipeline.Options{Prompt: []int{'H', 'i'}, Tokens: 2, Log: testWriter{t}}, SegmentSize: 1, Tensors: tensors}
	rep, err := pipeline.RunAggregated(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.Statement.ModelID == nil || rep.Statement.ModelID.Sign() == 0 {
		t.Fatal("no final statement")
	}
	plan, err := pipeline.PlanAggregated(opts, len(opts.Prompt))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"segment", "segment", "aggregator"}
	if len(plan) != len(kinds) {
		t.Fatalf("plan of %d circuits: %+v", len(plan), plan)
	}
	for i, it := range plan {
		if it.Kind != kinds[i] || !it.Cached || it.KeyKind != "development" || it.Constraints == 0 || it.SetupEstimateS != 0 || it.ProveEstimateS <= 0 {
			t.Errorf("plan item %d: %+v", i, it)
		}
	}
	if plan[0].Curve != "bls12_377" || plan[2].Curve != "bw6_761" || plan[0].Constraints+plan[1].Constraints != rep.Constraints {
		t.Errorf("plan: %+v, the run's segments %d constraints", plan, rep.Constraints)
	}
}
