package solidity

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/statement"
)

// turnProof returns a proof of the turn's digest.
func turnProof(t *testing.T, v *variant, turn Turn) groth16.Proof {
	t.Helper()
	return digestProof(t, v, turn.Digest)
}

// digestProof returns a proof of the digest the function computes.
func digestProof(t *testing.T, v *variant, digest func() (*big.Int, error)) groth16.Proof {
	t.Helper()
	d, err := digest()
	if err != nil {
		t.Fatal(err)
	}
	proof, _, err := v.proveDigest(d)
	if err != nil {
		t.Fatal(err)
	}
	return proof
}

// TestRegistryTurns: a conversation of two turns recorded in order, the
// second starting from the state the first left, one event each whose
// states link them; a turn from a state never recorded, a first turn
// replayed from another conversation's state, a turn leaving the empty
// state, and a proof of one turn submitted as another (its state out
// changed) are refused; a second submission of a recorded turn changes
// nothing.
func TestRegistryTurns(t *testing.T) {
	f := loadFixture(t)
	v := f.commitment
	ctx := testContext(t)
	chain := newSimChain(t)
	deployment, err := chain.DeployVerifierAndRegistry(ctx, v.contracts, nil)
	if err != nil {
		t.Fatal(err)
	}
	registry := deployment.Registry
	model := v.statement.ModelID
	first := Turn{ModelID: model, StateIn: statement.EmptyState, InputDigest: big.NewInt(11), OutputDigest: big.NewInt(12), StateOut: big.NewInt(1001)}
	second := Turn{ModelID: model, StateIn: first.StateOut, InputDigest: big.NewInt(21), OutputDigest: big.NewInt(22), StateOut: big.NewInt(1002)}
	firstProof, secondProof := turnProof(t, v, first), turnProof(t, v, second)

	// The second turn before the first: its state in is unknown.
	_, err = chain.SubmitTurn(ctx, registry, secondProof, second)
	wantRevert(t, err, "UnknownState("+model.String()+", 1001)")

	receipts := map[string]uint64{}
	for _, c := range []struct {
		name  string
		turn  Turn
		proof groth16.Proof
	}{{"first", first, firstProof}, {"second", second, secondProof}} {
		receipt, err := chain.SubmitTurn(ctx, registry, c.proof, c.turn)
		if err != nil {
			t.Fatalf("%s turn: %v", c.name, err)
		}
		receipts[c.name] = receipt.GasUsed
		events, err := TurnEvents(receipt, registry)
		if err != nil || len(events) != 1 {
			t.Fatalf("%s turn: %d events (%v)", c.name, len(events), err)
		}
		got := events[0].Turn
		for i, w := range turnWords(got) {
			if w.Cmp(turnWords(c.turn)[i]) != 0 {
				t.Fatalf("%s turn: event %v, want %v", c.name, got, c.turn)
			}
		}
		if ok, err := IsTurnVerified(ctx, chain.Backend(), registry, c.turn); err != nil || !ok {
			t.Fatalf("%s turn not recorded (%v)", c.name, err)
		}
		if ok, err := IsState(ctx, chain.Backend(), registry, model, c.turn.StateOut); err != nil || !ok {
			t.Fatalf("%s turn's state out not recorded (%v)", c.name, err)
		}
	}
	t.Logf("submitTurn: %d gas (first turn), %d gas (second)", receipts["first"], receipts["second"])
	// A second submission of a recorded turn: no event, nothing changes.
	again, err := chain.SubmitTurn(ctx, registry, secondProof, second)
	if err != nil {
		t.Fatal(err)
	}
	if events, _ := TurnEvents(again, registry); len(events) != 0 || again.GasUsed >= receipts["second"] {
		t.Fatalf("a recorded turn submitted again: %d events, %d gas", len(events), again.GasUsed)
	}
	// The states are the model's: another model's turn cannot start from
	// them.
	if ok, err := IsState(ctx, chain.Backend(), registry, new(big.Int).Add(model, big.NewInt(1)), first.StateOut); err != nil || ok {
		t.Fatalf("a state recorded for another model (%v)", err)
	}

	// Refused: a turn from a state no turn left, with its own valid proof;
	// a turn whose proof is another turn's (state out changed); a turn
	// leaving the empty state.
	stray := Turn{ModelID: model, StateIn: big.NewInt(999), InputDigest: big.NewInt(31), OutputDigest: big.NewInt(32), StateOut: big.NewInt(1003)}
	_, err = chain.SubmitTurn(ctx, registry, turnProof(t, v, stray), stray)
	wantRevert(t, err, "UnknownState("+model.String()+", 999)")
	forged := second
	forged.StateOut = big.NewInt(1004)
	_, err = chain.SubmitTurn(ctx, registry, secondProof, forged)
	wantRevert(t, err, "ProofInvalid()", "PairingFailed()", "CommitmentInvalid()")
	if ok, _ := IsState(ctx, chain.Backend(), registry, model, forged.StateOut); ok {
		t.Fatal("a forged turn's state out recorded")
	}
	empty := Turn{ModelID: model, StateIn: second.StateOut, InputDigest: big.NewInt(41), OutputDigest: big.NewInt(42), StateOut: big.NewInt(0)}
	if _, err := PackSubmitTurn(secondProof, empty); err == nil {
		t.Fatal("a turn leaving the empty state packed")
	}
	encoded, err := ProofBytes(secondProof)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := registryABI.Pack("submitTurn", encoded, empty.ModelID, empty.StateIn, empty.InputDigest, empty.OutputDigest, empty.StateOut)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.SubmitCalldata(ctx, registry, raw)
	wantRevert(t, err, "EmptyStateOut()")
	// A turn's proof is not a statement's: the same words as a statement
	// digest differ.
	st := Statement{ModelID: model, InputDigest: first.InputDigest, OutputDigest: first.OutputDigest}
	_, err = chain.Submit(ctx, registry, firstProof, st)
	wantRevert(t, err, "ProofInvalid()", "PairingFailed()", "CommitmentInvalid()")
}
