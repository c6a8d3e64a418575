//go:build full

package recursion

import (
	"math/big"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/test"

	stmt "github.com/veriformer/veriformer/statement"
)

// TestBatchWrapperTestEngine runs the batch wrapper on the fixture's
// real BW6-761 proof in gnark's test engine, its statement read as a
// batch's: the honest assignment is solved; one whose public input is
// the batch digest of another list digest, and one stating the
// statement digest of the same values, are not.
func TestBatchWrapperTestEngine(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	placeholder, err := NewBatchWrapper(AggregatorCommitments(f.aggregator.CCS))
	if err != nil {
		t.Fatal(err)
	}
	w, final, err := BatchWrapperAssignment(a.proof, f.aggregator.VK, a.statement, a.deployment, a.slot)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := test.IsSolved(placeholder, w, ecc.BN254.ScalarField()); err != nil {
		t.Fatal(err)
	}
	t.Logf("batch wrapper in the test engine: %v", time.Since(start))
	bad := *w
	if bad.StatementDigest, err = stmt.BatchDigestOfList(final.ModelID, new(big.Int).Add(final.InputDigest, big.NewInt(1))); err != nil {
		t.Fatal(err)
	}
	err = test.IsSolved(placeholder, &bad, ecc.BN254.ScalarField())
	if err == nil {
		t.Fatal("batch wrapper accepts another list digest's batch digest")
	}
	t.Logf("another list digest: %v", err)
	bad = *w
	if bad.StatementDigest, err = final.Digest(); err != nil {
		t.Fatal(err)
	}
	if test.IsSolved(placeholder, &bad, ecc.BN254.ScalarField()) == nil {
		t.Fatal("batch wrapper accepts the statement digest")
	}
}
