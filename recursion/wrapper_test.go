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

// aggregated is the fixture's honest toy aggregator proof, with a
// deployment whose slot 2 holds the fixture's aggregator and slot 6
// another bucket.
type aggregated struct {
	proof      groth16.Proof
	statement  stmt.Statement
	deployment *Deployment
	slot       int
}

func getAggregated(t *testing.T) aggregated {
	t.Helper()
	f := getFixture(t)
	dep := &Deployment{ModelDigest: big.NewInt(31337)}
	leaf, err := BucketLeaf(2, f.aggregator.VK, f.statement.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	dep.Leaves[2], dep.Leaves[6] = leaf, big.NewInt(5)
	return aggregated{proof: f.proof, statement: f.statement, deployment: dep, slot: 2}
}

func TestWrapperAssignment(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	w, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.statement, a.deployment, a.slot)
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.deployment.FinalModelID()
	if err != nil {
		t.Fatal(err)
	}
	if final.ModelID.Cmp(want) != 0 || final.InputDigest.Cmp(a.statement.InputDigest) != 0 || final.OutputDigest.Cmp(a.statement.OutputDigest) != 0 {
		t.Fatalf("final statement %v", final)
	}
	if w.InnerModelID.(*big.Int).Cmp(a.statement.ModelID) != 0 {
		t.Fatal("wrapper assignment carries another inner model id")
	}
	if _, _, err := WrapperAssignment(a.proof, f.layer0, a.statement, a.deployment, a.slot); err == nil {
		t.Fatal("wrapper assignment with a BLS12-377 key")
	}
	other := a.statement
	other.OutputDigest = big.NewInt(1)
	if _, _, err := Wrap(a.proof, f.aggregator.VK, other, a.deployment, a.slot, &Keys{}); err == nil {
		t.Fatal("Wrap accepted an aggregator proof for another statement")
	}
	if _, _, err := WrapperAssignment(a.proof, f.aggregator.VK, stmt.Statement{}, a.deployment, a.slot); err == nil {
		t.Fatal("wrapper assignment of an empty statement")
	}
	if _, _, err := WrapperAssignment(a.proof, f.aggregator.VK, a.statement, a.deployment, 6); err == nil {
		t.Fatal("wrapper assignment for a slot holding another bucket's leaf")
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
	w, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.statement, a.deployment, a.slot)
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

// TestBatchWrapperAssignment reads the fixture's aggregator statement as
// a batch's, (inner id, list digest 51, 52 requests): the batch wrapper's
// assignment states the final id, and its public input is the batch
// digest of the final id and the list digest (statement.Batch.Digest's
// second step), not the statement digest; a list digest beyond 250 bits
// and counts of 0 and beyond MaxBatch are refused. Its solve in the test
// engine is the full tier's TestBatchWrapperTestEngine.
func TestBatchWrapperAssignment(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	w, final, err := BatchWrapperAssignment(a.proof, f.aggregator.VK, a.statement, a.deployment, a.slot)
	if err != nil {
		t.Fatal(err)
	}
	id, err := a.deployment.FinalModelID()
	if err != nil {
		t.Fatal(err)
	}
	want, err := stmt.BatchDigestOfList(id, a.statement.InputDigest)
	if err != nil {
		t.Fatal(err)
	}
	single, err := final.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if final.ModelID.Cmp(id) != 0 || w.StatementDigest.(*big.Int).Cmp(want) != 0 || want.Cmp(single) == 0 || !w.batch {
		t.Fatalf("batch wrapper: final %v, digest %v, want %v", final, w.StatementDigest, want)
	}
	for name, bad := range map[string]stmt.Statement{
		"a list digest of 251 bits": {ModelID: a.statement.ModelID, InputDigest: new(big.Int).Lsh(big.NewInt(1), 250), OutputDigest: big.NewInt(1)},
		"no request":                {ModelID: a.statement.ModelID, InputDigest: big.NewInt(1), OutputDigest: big.NewInt(0)},
		"too many requests":         {ModelID: a.statement.ModelID, InputDigest: big.NewInt(1), OutputDigest: big.NewInt(stmt.MaxBatch + 1)},
	} {
		if _, _, err := BatchWrapperAssignment(a.proof, f.aggregator.VK, bad, a.deployment, a.slot); err == nil {
			t.Errorf("%s: assigned", name)
		}
	}
}
