package pcs

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
)

func (f *groupFixture) clone() *groupFixture {
	g := &groupFixture{commitments: slices.Clone(f.commitments), parts: f.parts, m: f.m, proof: &GroupProof{}}
	for _, c := range f.claims {
		g.claims = append(g.claims, Claim{Commitment: c.Commitment, Point: slices.Clone(c.Point), Value: c.Value})
	}
	for _, r := range f.proof.SumCheck.Rounds {
		g.proof.SumCheck.Rounds = append(g.proof.SumCheck.Rounds, slices.Clone(r))
	}
	g.proof.Opening = Proof{
		Folds:       slices.Clone(f.proof.Opening.Folds),
		Evaluations: slices.Clone(f.proof.Opening.Evaluations),
		Quotient:    f.proof.Opening.Quotient,
	}
	return g
}

func addOne(x *fr.Element) {
	var one fr.Element
	one.SetOne()
	x.Add(x, &one)
}

func addGenerator(p *bls12377.G1Affine) {
	_, _, g, _ := bls12377.Generators()
	p.Add(p, &g)
}

// tamperings lists every single-element change of a grouped opening: each
// commitment, claim value, claim point coordinate, sum-check round value,
// fold commitment, fold evaluation and quotient point.
func tamperings(f *groupFixture) map[string]func(*groupFixture) {
	m := map[string]func(*groupFixture){}
	for j := range f.commitments {
		m[fmt.Sprintf("commitment %d", j)] = func(g *groupFixture) { addGenerator(&g.commitments[j]) }
	}
	for k := range f.claims {
		m[fmt.Sprintf("claim %d value", k)] = func(g *groupFixture) { addOne(&g.claims[k].Value) }
		for i := range f.claims[k].Point {
			m[fmt.Sprintf("claim %d point %d", k, i)] = func(g *groupFixture) { addOne(&g.claims[k].Point[i]) }
		}
	}
	for i, r := range f.proof.SumCheck.Rounds {
		for k := range r {
			m[fmt.Sprintf("sum-check round %d value %d", i, k)] = func(g *groupFixture) { addOne(&g.proof.SumCheck.Rounds[i][k]) }
		}
	}
	for i := range f.proof.Opening.Folds {
		m[fmt.Sprintf("fold commitment %d", i+1)] = func(g *groupFixture) { addGenerator(&g.proof.Opening.Folds[i]) }
	}
	for i := range f.proof.Opening.Evaluations {
		for j := range 3 {
			m[fmt.Sprintf("fold %d evaluation %d", i, j)] = func(g *groupFixture) { addOne(&g.proof.Opening.Evaluations[i][j]) }
		}
	}
	m["quotient"] = func(g *groupFixture) { addGenerator(&g.proof.Opening.Quotient) }
	return m
}

func TestGroupTampered(t *testing.T) {
	// Commitments of 3, 5 and 5 variables, 6 claims (values and
	// 2·3 + 3·5 + 1·5 point coordinates), 5 rounds of 2 values, then per
	// opening of k variables k − 1 folds, k evaluation triples and 1
	// quotient.
	for _, c := range []struct{ m, parts, k int }{
		{MaxNbVars, 1 + 1 + 1, 5},
		{4, 1 + 2 + 2, 4},
		{2, 2 + 8 + 8, 2},
		{1, 4 + 16 + 16, 1},
	} {
		f := newGroupFixtureParts(t, newTestRand(t), c.m)
		if err := f.verify(t); err != nil {
			t.Fatalf("parts of %d variables: honest proof rejected: %v", c.m, err)
		}
		variants := tamperings(f)
		if want := c.parts + 6 + 26 + 10 + (c.k - 1) + 3*c.k + 1; len(variants) != want {
			t.Fatalf("parts of %d variables: %d tamperings, want %d", c.m, len(variants), want)
		}
		for name, tamper := range variants {
			g := f.clone()
			tamper(g)
			if err := g.verify(t); !errors.Is(err, ErrRejected) {
				t.Errorf("parts of %d variables: %s: got %v, want a rejection", c.m, name, err)
			}
		}
		// The tamperings did not reach the original.
		if err := f.verify(t); err != nil {
			t.Fatalf("parts of %d variables: honest proof rejected after the tamperings: %v", c.m, err)
		}
	}
}

func TestPointsOutsideG1Refused(t *testing.T) {
	f := newGroupFixture(t, newTestRand(t))
	bad := notInSubgroup(t)
	variants := map[string]func(*groupFixture){
		"commitment": func(g *groupFixture) { g.commitments[1] = bad },
		"fold":       func(g *groupFixture) { g.proof.Opening.Folds[2] = bad },
		"quotient":   func(g *groupFixture) { g.proof.Opening.Quotient = bad },
	}
	for name, tamper := range variants {
		g := f.clone()
		tamper(g)
		check, err := VerifyGroupFieldParts(newTranscript(g.commitments, g.claims), len(g.commitments), g.claims, g.proof, g.m)
		if err != nil {
			// A changed fold or quotient changes the challenges, and the
			// field part may already reject; the group part must in any case.
			check = &GroupCheck{Commitments: make([]fr.Element, len(g.commitments)), Folds: make([]fr.Element, len(g.proof.Opening.Folds))}
		}
		err = VerifyGroup(srsForTest(t).VerifyingKey(), g.commitments, &g.proof.Opening, check)
		if !errors.Is(err, ErrRejected) {
			t.Errorf("%s outside G1: got %v, want a rejection", name, err)
		}
	}
	// The decoder refuses such a point too.
	g := f.clone()
	g.proof.Opening.Quotient = bad
	data, err := g.proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var p GroupProof
	if err := p.UnmarshalBinary(data); err == nil {
		t.Fatal("decoded a proof with a point outside G1")
	}
}
