package test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/veriformer/veriformer/pipeline"
	"math/big"
	"testing"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/solidity"
)

// checkOnChain deploys contracts on a fresh simulated chain and checks, on
// a final proof of st, that the registry refuses the proof with any 32-byte
// word changed, with the commitment and its proof of knowledge swapped or
// zeroed, and for a statement with any value changed, then records the
// honest submission.
func checkOnChain(ctx context.Context, t *testing.T, contracts *solidity.Contracts, proof groth16.Proof, st solidity.Statement) {
	t.Helper()
	chain, sim, err := pipeline.SimulatedChain()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	dep, err := chain.DeployVerifierAndRegistry(ctx, contracts, st.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	calldata, err := solidity.PackSubmit(proof, st)
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
	for name, wrong := range map[string]solidity.Statement{
		"another model id":      {ModelID: new(big.Int).Add(st.ModelID, one), InputDigest: st.InputDigest, OutputDigest: st.OutputDigest},
		"another input digest":  {ModelID: st.ModelID, InputDigest: new(big.Int).Add(st.InputDigest, one), OutputDigest: st.OutputDigest},
		"another output digest": {ModelID: st.ModelID, InputDigest: st.InputDigest, OutputDigest: new(big.Int).Add(st.OutputDigest, one)},
	} {
		if _, err := chain.Submit(ctx, dep.Registry, proof, wrong); err == nil {
			t.Errorf("registry records the final proof for %s", name)
		}
	}
	if _, err := chain.Submit(ctx, dep.Registry, proof, st); err != nil {
		t.Fatalf("honest submission after the rejections: %v", err)
	}
	ok, err := solidity.IsVerified(ctx, chain.Backend(), dep.Registry, st)
	if err != nil || !ok {
		t.Fatalf("honest statement not recorded: %v, %v", ok, err)
	}
}
