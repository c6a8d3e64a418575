package pcs_test

import (
	"fmt"
	"io"
	"log"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// Two MLEs committed whole, three claims, one grouped opening; the verifier
// runs its field part, then its group part.
func ExampleOpenGroupParts() {
	srs, err := pcs.NewDevelopmentSRS(16, log.New(io.Discard, "", 0)) // development only
	if err != nil {
		panic(err)
	}
	a := make([]fr.Element, 16) // 4 variables
	b := make([]fr.Element, 4)  // 2 variables
	for i := range a {
		a[i].SetUint64(uint64(i))
	}
	for i := range b {
		b[i].SetInt64(int64(-i))
	}
	ca, _ := pcs.Commit(srs, a)
	cb, _ := pcs.Commit(srs, b)
	commitments := []pcs.Commitment{ca, cb}

	// The statement binds the commitments; the points are challenges.
	start := func() (*pcs.Transcript, []pcs.Claim) {
		t := transcript.New[fr.Element]("example")
		t.Absorb(pcs.Digest(commitments))
		p, q, r := t.Challenges(4), t.Challenges(4), t.Challenges(2)
		return t, []pcs.Claim{
			{Commitment: 0, Point: p, Value: poly.Evaluate[fr.Element](a, p)},
			{Commitment: 0, Point: q, Value: poly.Evaluate[fr.Element](a, q)},
			{Commitment: 1, Point: r, Value: poly.Evaluate[fr.Element](b, r)},
		}
	}

	t, claims := start()
	proof, err := pcs.OpenGroupParts(t, srs, [][]fr.Element{a, b}, claims, pcs.MaxNbVars)
	if err != nil {
		panic(err)
	}

	t, claims = start()
	check, err := pcs.VerifyGroupFieldParts(t, len(commitments), claims, proof, pcs.MaxNbVars)
	if err != nil {
		panic(err)
	}
	err = pcs.VerifyGroup(srs.VerifyingKey(), commitments, &proof.Opening, check)
	fmt.Println("verified:", err == nil, "scalars for the group part:", len(check.Commitments)+len(check.Folds)+3)
	// Output: verified: true scalars for the group part: 8
}
