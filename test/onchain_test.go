package test

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/statement"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/solidity"
)

// checkOnChain deploys contracts on a fresh simulated chain and checks, on
// a final proof of the list l, that the registry refuses the proof with
// any 32-byte word changed, with the commitment and its proof of
// knowledge swapped or zeroed, and for a list with any value changed,
// then records the honest submission, holds its leaf and takes a replay
// quietly.
func checkOnChain(ctx context.Context, t *testing.T, contracts *solidity.Contracts, proof groth16.Proof, l solidity.List) {
	t.Helper()
	chain, sim, err := pipeline.SimulatedChain()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	dep, err := chain.DeployVerifierAndRegistry(ctx, contracts, l.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	calldata, err := solidity.PackSubmit(proof, l)
	if err != nil {
		t.Fatal(err)
	}
	proofBytes, err := solidity.ProofBytes(proof)
	if err != nil {
		t.Fatal(err)
	}
	if len(proofBytes) != 384 {
		t.Fatalf("final proof of %d bytes, want 384 (one commitment)", len(proofBytes))
	}
	start := bytes.Index(calldata, proofBytes)
	if start < 0 {
		t.Fatal("proof bytes not found in the calldata")
	}
	refused := func(name string, bad []byte) {
		if _, err := chain.SubmitCalldata(ctx, dep.Registry, bad); err == nil {
			t.Errorf("registry records a final proof with %s", name)
		}
	}
	for w := 0; w < len(proofBytes)/32; w++ {
		bad := bytes.Clone(calldata)
		bad[start+32*w+31] ^= 1
		refused(fmt.Sprintf("word %d changed", w), bad)
	}
	commitment, pok := proofBytes[0x100:0x140], proofBytes[0x140:0x180]
	zero := make([]byte, 64)
	for name, pair := range map[string][2][]byte{
		"commitment and proof of knowledge swapped": {pok, commitment},
		"commitment zeroed":                         {zero, pok},
		"proof of knowledge zeroed":                 {commitment, zero},
		"both zeroed":                               {zero, zero},
	} {
		bad := bytes.Clone(calldata)
		copy(bad[start+0x100:], pair[0])
		copy(bad[start+0x140:], pair[1])
		refused(name, bad)
	}
	one := big.NewInt(1)
	leaf := l.Leaves[0]
	for name, wrong := range map[string]solidity.List{
		"another model id":      {ModelID: new(big.Int).Add(l.ModelID, one), Leaves: l.Leaves},
		"another input digest":  {ModelID: l.ModelID, Leaves: []solidity.Leaf{statement.RequestLeaf(new(big.Int).Add(leaf.Input, one), leaf.Output)}},
		"another output digest": {ModelID: l.ModelID, Leaves: []solidity.Leaf{statement.RequestLeaf(leaf.Input, new(big.Int).Add(leaf.Output, one))}},
		"the request twice":     {ModelID: l.ModelID, Leaves: []solidity.Leaf{leaf, leaf}},
	} {
		if _, err := chain.Submit(ctx, dep.Registry, proof, wrong); err == nil {
			t.Errorf("registry records the final proof for %s", name)
		}
	}
	if _, err := chain.Submit(ctx, dep.Registry, proof, l); err != nil {
		t.Fatalf("honest submission after the rejections: %v", err)
	}
	ok, err := solidity.IsVerified(ctx, chain.Backend(), dep.Registry, l, 0)
	if err != nil || !ok {
		t.Fatalf("honest list not recorded: %v, %v", ok, err)
	}
	// A replay (anyone may copy the transaction) returns quietly.
	receipt, err := chain.Submit(ctx, dep.Registry, proof, l)
	if err != nil {
		t.Fatalf("a replayed submission: %v", err)
	}
	if events, err := solidity.ListEvents(receipt, dep.Registry); err != nil || len(events) != 0 {
		t.Fatalf("a replayed submission emitted %d list events (%v)", len(events), err)
	}
}
