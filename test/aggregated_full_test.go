//go:build full

package test

import (
	"bytes"
	"context"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/test/internal/local"
)

// TestRunAggregatedFull runs the aggregated design all the way: segment
// proofs, BW6-761 aggregation, the BN254 wrapper's Groth16 setup (about 40
// minutes and 14 GB the first time, then cached) and proof, the Solidity
// verifier and a verified call on the simulated chain; a second deployment
// then rejects the wrapper proof for a wrong model id, input or output and a
// tampered proof. Run it with
//
//	go test -tags full ./test -run TestRunAggregatedFull -timeout 240m -v
func TestRunAggregatedFull(t *testing.T) {
	runAggregatedFull(t, pipeline.AggregatedOptions{
		Options:     pipeline.Options{Prompt: []int{'H', 'i'}, Tokens: 2, Chain: true, Log: testWriter{t}},
		SegmentSize: 1,
		Wrap:        true,
	})
}

// TestRunAggregatedWrapOnWorkers runs TestRunAggregated's request
// wrapped, every job on two in-process workers (package distributed):
// the native and Groth16 proofs, the aggregation and the wrapper, whose
// 3.6 GB proving key the worker that takes it fetches from the object
// store into its own key cache. The run verifies the wrapper's proof on
// the final statement, then on go-ethereum's simulated chain. The
// wrapper's keys are set up once for every model (TestRunAggregatedFull
// sets them up too). Run it with
//
//	go test -tags full ./test -run TestRunAggregatedWrapOnWorkers -timeout 120m -v
func TestRunAggregatedWrapOnWorkers(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Minute)
	defer cancel()
	opts := aggregatedOptions(t, m)
	opts.Wrap, opts.Chain = true, true
	opts.Queue = local.Queue(t, ctx, nil, "")
	rep, err := pipeline.RunAggregated(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.Proof == nil || rep.VerifyGas == 0 || rep.SubmitGas == 0 {
		t.Fatalf("no wrapped proof verified on chain (verify %d gas, submit %d)", rep.VerifyGas, rep.SubmitGas)
	}
}

// TestRunAggregatedChunks runs TestRunAggregatedDefault with the LM head in
// chunks of 100 vocabulary columns (--vocab-chunk 100): block 0, block 1
// without the LM head and three chunks ([0, 100), [100, 200), [200, 256)),
// five segment proofs and their committed aggregator (a larger circuit
// than TestRunAggregated's, whose first setup is too long for the default
// test run). Its output is the plain greedy generation's. Run it with
//
//	go test -tags full ./test -run TestRunAggregatedChunks -timeout 240m -v
func TestRunAggregatedChunks(t *testing.T) {
	opts := aggregatedOptions(t, model.Default())
	opts.VocabChunk = 100
	runAggregated(t, opts, 5)
}

func runAggregatedFull(t *testing.T, opts pipeline.AggregatedOptions) {
	ctx, cancel := context.WithTimeout(context.Background(), 290*time.Minute)
	defer cancel()
	rep, err := pipeline.RunAggregated(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStats(os.Stdout); err != nil {
		t.Fatal(err)
	}
	if rep.VerifyGas == 0 || rep.SubmitGas == 0 || rep.OtherVerifyGas == 0 {
		t.Fatalf("no gas measured: verify %d (%s: %d), submit %d", rep.VerifyGas, rep.Verifier.Other(), rep.OtherVerifyGas, rep.SubmitGas)
	}
	t.Logf("verifyProof: %d gas used (limit %d), %s verifier %d; submit %d", rep.VerifyGas, rep.VerifyGasLimit, rep.Verifier.Other(), rep.OtherVerifyGas, rep.SubmitGas)
	if rep.VerifyGas > maxVerifyGas {
		t.Errorf("verifier gas %d, over %d", rep.VerifyGas, maxVerifyGas)
	}
	if n := len(rep.Contracts.Verifier.DeployedBytecode); n > solidity.MaxCodeSize {
		t.Errorf("verifier code of %d bytes", n)
	}

	// What cmd/export uses gives the same final id and verifying key.
	keys, err := pipeline.VerifyingKeysAggregated(opts, len(opts.Prompt), len(rep.Output))
	if err != nil {
		t.Fatal(err)
	}
	if keys.FinalModelID.Cmp(rep.Statement.ModelID) != 0 {
		t.Fatalf("export's model id %#x, the proof states %#x", keys.FinalModelID, rep.Statement.ModelID)
	}
	if err := recursion.VerifyWrapped(rep.Proof, keys.Wrapper.VK, rep.List); err != nil {
		t.Fatalf("the exported wrapper key rejects the proof: %v", err)
	}

	chain, sim, err := pipeline.SimulatedChain()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	honest := rep.List
	dep, err := chain.DeployVerifierAndRegistry(ctx, rep.Contracts, honest.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := solidity.EstimateVerifyGas(ctx, chain.Backend(), dep.Verifier, rep.Proof, honest); err != nil {
		t.Fatalf("honest wrapper proof rejected: %v", err)
	}
	one := big.NewInt(1)
	leaf := honest.Leaves[0]
	for name, st := range map[string]solidity.List{
		"model id":      {ModelID: new(big.Int).Add(honest.ModelID, one), Leaves: honest.Leaves},
		"input digest":  {ModelID: honest.ModelID, Leaves: []solidity.Leaf{statement.RequestLeaf(new(big.Int).Add(leaf.Input, one), leaf.Output)}},
		"output digest": {ModelID: honest.ModelID, Leaves: []solidity.Leaf{statement.RequestLeaf(leaf.Input, new(big.Int).Add(leaf.Output, one))}},
	} {
		if _, err := solidity.EstimateVerifyGas(ctx, chain.Backend(), dep.Verifier, rep.Proof, st); err == nil {
			t.Errorf("verifier accepts the wrapper proof for a wrong %s", name)
		}
		if _, err := chain.Submit(ctx, dep.Registry, rep.Proof, st); err == nil {
			t.Errorf("registry records the wrapper proof for a wrong %s", name)
		}
	}
	calldata, err := solidity.PackSubmit(rep.Proof, honest)
	if err != nil {
		t.Fatal(err)
	}
	// Flip one bit in each 32-byte word of the proof (A, B, C, the
	// commitment and its proof of knowledge).
	proofBytes, err := solidity.ProofBytes(rep.Proof)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(calldata, proofBytes)
	if start < 0 {
		t.Fatal("proof bytes not found in the calldata")
	}
	for w := 0; w < len(proofBytes)/32; w++ {
		bad := append([]byte(nil), calldata...)
		bad[start+32*w+31] ^= 1
		if _, err := chain.SubmitCalldata(ctx, dep.Registry, bad); err == nil {
			t.Errorf("registry records a wrapper proof with word %d tampered", w)
		}
	}
	if _, err := chain.Submit(ctx, dep.Registry, rep.Proof, honest); err != nil {
		t.Fatalf("honest submission after the rejections: %v", err)
	}
}

// TestRunAggregatedBuckets is TestRunAggregated with the micro model
// deployed with the buckets of 4 and 8 rows: the first request ("Hi" and
// two tokens, bucket 4) proven, the wrapper solved with the deployment,
// the plan listing both buckets' circuits; a second request ("Hello" and
// two tokens) proven in bucket 8 states the same final model id, and a
// deployment of bucket 4 alone another. About four minutes on 2 cores
// (the second bucket's setups and proof).
func TestRunAggregatedBuckets(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	opts := aggregatedOptions(t, m)
	opts.Buckets = []int{4, 8}
	first := runAggregated(t, opts, 1)
	other := opts
	other.Prompt = []int{'H', 'e', 'l', 'l', 'o'}
	rep, err := pipeline.RunAggregated(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	if first.Rows != 4 || rep.Rows != 8 {
		t.Fatalf("buckets %d and %d, want 4 and 8", first.Rows, rep.Rows)
	}
	if rep.Statement.ModelID.Cmp(first.Statement.ModelID) != 0 {
		t.Fatalf("the bucket of 8 rows states model id %#x, that of 4 %#x", rep.Statement.ModelID, first.Statement.ModelID)
	}
	// A deployment of the bucket of 4 alone is another model id.
	alone := opts
	alone.Buckets = nil
	single, err := pipeline.VerifyingKeysAggregated(alone, len(opts.Prompt), opts.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if single.FinalModelID.Cmp(first.Statement.ModelID) == 0 {
		t.Fatal("the deployments of buckets {4, 8} and {4} state the same model id")
	}
}
