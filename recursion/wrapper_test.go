package recursion

import (
	"math/big"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/test"

	stmt "github.com/veriformer/veriformer/statement"
)

// aggregated is the fixture's honest toy aggregator proof.
type aggregated struct {
	proof     groth16.Proof
	statement stmt.Statement
}

func getAggregated(t *testing.T) aggregated {
	t.Helper()
	f := getFixture(t)
	return aggregated{proof: f.proof, statement: f.statement}
}

func TestWrapperAssignment(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	w, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.statement)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FinalModelID(f.aggregator.VK, a.statement.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	if final.ModelID.Cmp(want) != 0 || final.InputDigest.Cmp(a.statement.InputDigest) != 0 || final.OutputDigest.Cmp(a.statement.OutputDigest) != 0 {
		t.Fatalf("final statement %v", final)
	}
	if w.InnerModelID.(*big.Int).Cmp(a.statement.ModelID) != 0 {
		t.Fatal("wrapper assignment carries another inner model id")
	}
	if _, _, err := WrapperAssignment(a.proof, f.layer0, a.statement); err == nil {
		t.Fatal("wrapper assignment with a BLS12-377 key")
	}
	other := a.statement
	other.OutputDigest = big.NewInt(1)
	if _, _, err := Wrap(a.proof, f.aggregator.VK, other, &Keys{}); err == nil {
		t.Fatal("Wrap accepted an aggregator proof for another statement")
	}
	if _, _, err := WrapperAssignment(a.proof, f.aggregator.VK, stmt.Statement{}); err == nil {
		t.Fatal("wrapper assignment of an empty statement")
	}
}

// TestWrapperTestEngine runs the wrapper on a real BW6-761 proof in gnark's
// test engine: the honest assignment, one with a wrong final model id and
// one whose public digest is another statement's. It needs about a
// minute: three runs of the 7.9M-constraint wrapper in the test engine,
// the only check of its constraints short of its 40-minute setup.
func TestWrapperTestEngine(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	placeholder, err := NewWrapper(AggregatorCommitments(f.aggregator.CCS))
	if err != nil {
		t.Fatal(err)
	}
	w, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.statement)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := test.IsSolved(placeholder, w, ecc.BN254.ScalarField()); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper in the test engine: %v", time.Since(start))
	bad := *w
	bad.ModelID = w.InnerModelID
	if err := test.IsSolved(placeholder, &bad, ecc.BN254.ScalarField()); err == nil {
		t.Fatal("wrapper accepts the inner model id as the final one")
	}
	// The public input: the digest of another final statement.
	bad = *w
	other := final
	other.OutputDigest = new(big.Int).Add(other.OutputDigest, big.NewInt(1))
	if bad.StatementDigest, err = other.Digest(); err != nil {
		t.Fatal(err)
	}
	if err := test.IsSolved(placeholder, &bad, ecc.BN254.ScalarField()); err == nil {
		t.Fatal("wrapper accepts the digest of another statement")
	}
}
