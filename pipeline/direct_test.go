package pipeline

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/veriformer/veriformer/solidity"
)

// TestRunDirect proves a short greedy generation of the default model all
// the way to a verified call on the simulated chain.
func TestRunDirect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var generated []int
	rep, err := RunDirect(ctx, Options{Prompt: []int{'H', 'i'}, Tokens: 2, Chain: true, Log: testWriter{t},
		Generated: func(output []int) { generated = output }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(generated, rep.Output) {
		t.Errorf("Generated got %v, the report has %v", generated, rep.Output)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.VerifyGas == 0 || rep.VerifyGas > 400_000 {
		t.Errorf("verifier gas %d", rep.VerifyGas)
	}
	if len(rep.Contracts.Verifier.DeployedBytecode) > solidity.MaxCodeSize {
		t.Errorf("verifier code of %d bytes", len(rep.Contracts.Verifier.DeployedBytecode))
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
