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
	list       stmt.List
	deployment *Deployment
	slot       int
}

func getAggregated(t *testing.T) aggregated {
	t.Helper()
	f := getFixture(t)
	dep := &Deployment{ModelDigest: big.NewInt(31337)}
	leaf, err := BucketLeaf(2, f.aggregator.VK, f.list.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	dep.Leaves[2], dep.Leaves[6] = leaf, big.NewInt(5)
	return aggregated{proof: f.proof, list: f.list, deployment: dep, slot: 2}
}

func TestWrapperAssignment(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	w, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.list, a.deployment, a.slot)
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.deployment.FinalModelID()
	if err != nil {
		t.Fatal(err)
	}
	if final.ModelID.Cmp(want) != 0 || len(final.Leaves) != len(a.list.Leaves) {
		t.Fatalf("final list %v", final)
	}
	digest, err := final.Digest()
	if err != nil || w.StatementDigest.(*big.Int).Cmp(digest) != 0 {
		t.Fatalf("wrapper public input %v, want the final list's digest %v (%v)", w.StatementDigest, digest, err)
	}
	if w.InnerModelID.(*big.Int).Cmp(a.list.ModelID) != 0 {
		t.Fatal("wrapper assignment carries another inner model id")
	}
	if _, _, err := WrapperAssignment(a.proof, f.layer0, a.list, a.deployment, a.slot); err == nil {
		t.Fatal("wrapper assignment with a BLS12-377 key")
	}
	other := stmt.List{ModelID: a.list.ModelID, Leaves: a.list.Leaves[:1]}
	if _, _, err := Wrap(a.proof, f.aggregator.VK, other, a.deployment, a.slot, &Keys{}); err == nil {
		t.Fatal("Wrap accepted an aggregator proof for another list")
	}
	if _, _, err := WrapperAssignment(a.proof, f.aggregator.VK, stmt.List{}, a.deployment, a.slot); err == nil {
		t.Fatal("wrapper assignment of an empty list")
	}
	if _, _, err := WrapperAssignment(a.proof, f.aggregator.VK, a.list, a.deployment, 6); err == nil {
		t.Fatal("wrapper assignment for a slot holding another bucket's leaf")
	}
}

// TestWrapperTestEngine runs the wrapper on a real BW6-761 proof of a
// list holding a request and a turn in gnark's test engine: the honest
// assignment, one with a wrong final model id, one whose public digest
// is another list's and one whose list digest is not the aggregator's. It needs about a
// minute: three runs of the 7.9M-constraint wrapper in the test engine,
// the only check of its constraints short of its 40-minute setup.
func TestWrapperTestEngine(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	placeholder, err := NewWrapper(AggregatorCommitments(f.aggregator.CCS))
	if err != nil {
		t.Fatal(err)
	}
	w, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.list, a.deployment, a.slot)
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
	// The public input: the digest of another final list.
	bad = *w
	other := stmt.List{ModelID: final.ModelID, Leaves: final.Leaves[:1]}
	if bad.StatementDigest, err = other.Digest(); err != nil {
		t.Fatal(err)
	}
	if err := test.IsSolved(placeholder, &bad, ecc.BN254.ScalarField()); err == nil {
		t.Fatal("wrapper accepts the digest of another list")
	}
	// Another list digest with its matching statement digest: the
	// aggregator proof is not of it.
	bad = *w
	otherList, err := other.ListDigest()
	if err != nil {
		t.Fatal(err)
	}
	bad.ListDigest = otherList
	if bad.StatementDigest, err = other.Digest(); err != nil {
		t.Fatal(err)
	}
	if err := test.IsSolved(placeholder, &bad, ecc.BN254.ScalarField()); err == nil {
		t.Fatal("wrapper accepts a list digest the aggregator did not prove")
	}
}
