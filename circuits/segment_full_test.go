//go:build full

package circuits

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/statement"
)

// TestSegmentGroth16UnusedInputs proves the middle segment of a
// three-block model (about 290k R1CS) with real Groth16 and checks that
// groth16.Verify accepts the honest public inputs and rejects the proof
// when any statement value, none of which the middle segment uses,
// changes. About 10 minutes on 2 loaded cores.
func TestSegmentGroth16UnusedInputs(t *testing.T) {
	f := newSegmentFixture(t)
	k := 1
	ccs := f.compile(t, k)
	checkInputsUsed(t, k, ccs)
	pk, vk, err := groth16.Setup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	assignment, err := f.layout.AssignSegment(f.segs[k], f.st, f.prompt, f.output, f.chains[k], f.chains[k+1], f.proofs[k])
	if err != nil {
		t.Fatal(err)
	}
	field := ecc.BLS12_377.ScalarField()
	w, err := frontend.NewWitness(assignment, field)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := groth16.Prove(ccs, pk, w)
	if err != nil {
		t.Fatal(err)
	}
	verify := func(st statement.Statement) error {
		public, err := frontend.NewWitness(&Segment{ModelID: st.ModelID, InputDigest: st.InputDigest, OutputDigest: st.OutputDigest,
			ChainIn: f.chains[k].String(), ChainOut: f.chains[k+1].String()}, field, frontend.PublicOnly())
		if err != nil {
			t.Fatal(err)
		}
		return groth16.Verify(proof, vk, public)
	}
	if err := verify(f.st); err != nil {
		t.Fatalf("honest middle segment proof rejected: %v", err)
	}
	plusOne := func(v *big.Int) *big.Int { return new(big.Int).Add(v, big.NewInt(1)) }
	for name, st := range map[string]statement.Statement{
		"ModelID":      {ModelID: plusOne(f.st.ModelID), InputDigest: f.st.InputDigest, OutputDigest: f.st.OutputDigest},
		"InputDigest":  {ModelID: f.st.ModelID, InputDigest: plusOne(f.st.InputDigest), OutputDigest: f.st.OutputDigest},
		"OutputDigest": {ModelID: f.st.ModelID, InputDigest: f.st.InputDigest, OutputDigest: plusOne(f.st.OutputDigest)},
	} {
		if err := verify(st); err == nil {
			t.Errorf("middle segment proof verified with a changed %s", name)
		}
	}
}
