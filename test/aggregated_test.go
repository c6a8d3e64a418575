package test

import (
	"context"
	"github.com/veriformer/veriformer/pipeline"
	"os"
	"testing"
	"time"
)

// TestRunAggregated proves the default model in the aggregated shape: two
// one-block segments on BLS12-377 with real Groth16 proofs, their BW6-761
// aggregation with a real proof, and the BN254 wrapper checked with gnark's
// test engine (its Groth16 setup is behind the build tag full, see
// recursion).
func TestRunAggregated(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	rep, err := pipeline.RunAggregated(ctx, pipeline.AggregatedOptions{Options: pipeline.Options{Prompt: []int{'H', 'i'}, Tokens: 2, Log: testWriter{t}}, SegmentSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.Statement.ModelID == nil || rep.Statement.ModelID.Sign() == 0 {
		t.Fatal("no final statement")
	}
}
