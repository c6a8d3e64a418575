package test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

// TestRunDirect proves a short greedy generation of the built-in micro
// model all the way to a verified call on the simulated chain: the same
// code as the default model's run (TestRunDirectDefault, full tier), on
// a circuit whose Groth16 setup takes a minute or two rather than four
// to nine. It needs more than a minute for that setup: the keys are real.
func TestRunDirect(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	runDirect(t, m)
}

// runDirect proves "Hi" and two generated tokens of m in the direct
// shape, checks the report, the plan and the on-chain rejections with
// both Solidity templates, then a run whose solcjs fails.
func runDirect(t *testing.T, m *model.Model) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	var generated []int
	opts := pipeline.Options{Model: m, Prompt: []int{'H', 'i'}, Tokens: 2, Chain: true, Log: testWriter{t},
		Generated: func(output []int) { generated = output }}
	rep, err := pipeline.RunDirect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(generated, rep.Output) {
		t.Errorf("Generated got %v, the report has %v", generated, rep.Output)
	}
	gen, err := m.Generate(opts.Prompt, opts.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Output, gen.Tokens) {
		t.Errorf("proven output %v, the greedy generation's %v", rep.Output, gen.Tokens)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	// Development keys with the commitment key on [γ]₂: the merged
	// verifier pairs five points in one call; gnark's pairs four, then two
	// in a second call.
	if rep.VerifyGas == 0 || rep.VerifyGas > maxVerifyGas {
		t.Errorf("verifier gas %d, over %d", rep.VerifyGas, maxVerifyGas)
	}
	if rep.OtherVerifyGas <= rep.VerifyGas {
		t.Errorf("gnark's verifier uses %d gas, the merged one %d", rep.OtherVerifyGas, rep.VerifyGas)
	}
	if len(rep.Contracts.Verifier.DeployedBytecode) > solidity.MaxCodeSize {
		t.Errorf("verifier code of %d bytes", len(rep.Contracts.Verifier.DeployedBytecode))
	}
	t.Logf("verifyProof: %d gas used (limit %d), %s verifier %d; submit %d", rep.VerifyGas, rep.VerifyGasLimit, rep.Verifier.Other(), rep.OtherVerifyGas, rep.SubmitGas)
	// The plan of the same run compiles the circuit the run compiled and
	// finds its keys.
	plan, err := pipeline.Plan(pipeline.Direct, pipeline.AggregatedOptions{Options: opts}, len(opts.Prompt))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 1 || plan[0].Kind != "direct" || plan[0].Curve != "bn254" || !plan[0].Cached || plan[0].Constraints != rep.Constraints {
		t.Errorf("plan %+v, the run's circuit has %d constraints", plan, rep.Constraints)
	}
	// Both templates against the same proof.
	for _, contracts := range []*solidity.Contracts{rep.Contracts, rep.OtherContracts} {
		checkOnChain(ctx, t, contracts, rep.Proof, rep.List)
	}
	checkArtifacts(t, rep)

	// Another request of the same bucket — a prompt of one token and
	// three generated — with a solcjs that fails: the run proves with the
	// first run's keys (the same circuit, no setup), then its on-chain
	// stage fails, and the report of the verified proof comes back with
	// the error, so that the proof is not lost.
	failing := filepath.Join(t.TempDir(), "solcjs")
	if err := os.WriteFile(failing, []byte("#!/bin/sh\necho broken >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(solidity.SolcjsEnv, failing)
	other := opts
	other.Prompt, other.Tokens = []int{'H'}, 3
	kept, err := pipeline.RunDirect(ctx, other)
	if err == nil {
		t.Fatal("a run with a failing solcjs succeeded")
	}
	if kept == nil || kept.Proof == nil {
		t.Fatalf("the failed on-chain stage lost the proof: %v", err)
	}
	if kept.Rows != rep.Rows || kept.Statement.ModelID.Cmp(rep.Statement.ModelID) != 0 {
		t.Errorf("the kept report has bucket %d and id %#x, the first run %d and %#x", kept.Rows, kept.Statement.ModelID, rep.Rows, rep.Statement.ModelID)
	}
	if a, b := stageNote(rep, "keys"), stageNote(kept, "keys"); a == "" || a != b {
		t.Errorf("the two requests' keys: %q and %q, want the same circuit", a, b)
	}
	if err := pipeline.WriteArtifacts(t.TempDir(), kept); err != nil {
		t.Errorf("the kept proof cannot be written: %v", err)
	}
}

// stageNote returns the note of the report's first stage whose name
// starts with prefix.
func stageNote(rep *pipeline.Report, prefix string) string {
	for _, st := range rep.Stages {
		if strings.HasPrefix(st.Name, prefix) {
			return st.Note
		}
	}
	return ""
}

// maxVerifyGas bounds the gas used by a verifyProof transaction of a
// final proof, either shape (development keys, whose commitment key is on
// [γ]₂ as a ceremony's, merged verifier: five pairs).
const maxVerifyGas = 280_000

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
