package pcs

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/g1"
	native "github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	nativetranscript "github.com/veriformer/veriformer/transcript"
)

// groupCircuit completes the pairing checks of its openings (VerifyGroup)
// and asserts each opening's points digest.
type groupCircuit struct {
	Openings []GroupOpening
	Digests  []frontend.Variable `gnark:",public"`

	key Key `gnark:"-"`
}

func (c *groupCircuit) Define(api frontend.API) error {
	for i := range c.Openings {
		ps, _ := c.Openings[i].points()
		all := make([]sw_bls12377.G1Affine, len(ps))
		for k, p := range ps {
			all[k] = *p
		}
		d, err := PointsDigest(api, all)
		if err != nil {
			return err
		}
		api.AssertIsEqual(d, c.Digests[i])
	}
	return VerifyGroup(api, c.key, c.Openings)
}

// groupRuns is what the group tests change: the openings' points and
// scalars, one run each.
type groupRuns []*run

func (rs groupRuns) circuits() (*groupCircuit, *groupCircuit) {
	key := KeyOf(rs[0].vk)
	placeholder := &groupCircuit{key: key}
	assignment := &groupCircuit{key: key}
	for _, r := range rs {
		points := append(append(append([]bls12377.G1Affine(nil), r.commitments...), r.proof.Opening.Folds...), r.proof.Opening.Quotient)
		d := native.Digest(points)
		placeholder.Openings = append(placeholder.Openings, PlaceholderGroupOpening(len(r.commitments), len(r.proof.Opening.Evaluations)))
		placeholder.Digests = append(placeholder.Digests, nil)
		assignment.Openings = append(assignment.Openings, ValueOfGroupOpening(r.commitments, &r.proof.Opening, &r.check))
		assignment.Digests = append(assignment.Digests, field.BigInt(&d))
	}
	return placeholder, assignment
}

func (rs groupRuns) solve() error {
	placeholder, assignment := rs.circuits()
	return test.IsSolved(placeholder, assignment, ecc.BW6_761.ScalarField())
}

// verifyNative runs native.VerifyGroup on each opening with its scalars.
func (rs groupRuns) verifyNative() error {
	for i, r := range rs {
		if err := native.VerifyGroup(r.vk, r.commitments, &r.proof.Opening, &r.check); err != nil {
			return fmt.Errorf("opening %d: %w", i, err)
		}
	}
	return nil
}

// TestGroupHonest: the vector's opening, alone and twice (two weights),
// and the one in parts, alone and after it, is accepted by native.VerifyGroup and by the gadget, whose digests are
// native.Digest's.
func TestGroupHonest(t *testing.T) {
	base, parts := loadRun(t, vectors[0]), loadRun(t, vectors[1])
	for _, rs := range []groupRuns{{base}, {base, base.clone()}, {parts}, {base, parts}} {
		if err := rs.verifyNative(); err != nil {
			t.Fatalf("native: %v", err)
		}
		if err := rs.solve(); err != nil {
			t.Fatalf("%d openings: gadget: %v", len(rs), err)
		}
	}
	assert := test.NewAssert(t)
	placeholder, assignment := groupRuns{base}.circuits()
	assert.CheckCircuit(placeholder, test.WithValidAssignment(assignment), test.WithCurves(ecc.BW6_761), test.NoFuzzing(), test.NoSerializationChecks(), test.NoProverChecks())
}

// outsideG1 returns a point of the curve outside G1.
func outsideG1(t testing.TB) bls12377.G1Affine {
	p, err := g1.OutsideSubgroup()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGroupRejectedByBoth changes every point (to another point of G1,
// and the first commitment to a point outside G1) and every scalar of one
// opening, alone and as the second of two: native.VerifyGroup and the
// gadget both reject each.
func TestGroupRejectedByBoth(t *testing.T) {
	base := loadRun(t, vectors[0])
	bad := outsideG1(t)
	type tamper struct {
		name string
		do   func(r *run)
	}
	tampers := []tamper{{"Commitments[0] outside G1", func(r *run) { r.commitments[0] = bad }}}
	for j := range base.commitments {
		tampers = append(tampers, tamper{fmt.Sprintf("Commitments[%d]", j), func(r *run) { move(&r.commitments[j]) }})
	}
	for i := range base.proof.Opening.Folds {
		tampers = append(tampers, tamper{fmt.Sprintf("Folds[%d]", i), func(r *run) { move(&r.proof.Opening.Folds[i]) }})
	}
	tampers = append(tampers, tamper{"Quotient", func(r *run) { move(&r.proof.Opening.Quotient) }})
	for j := range base.check.Commitments {
		tampers = append(tampers, tamper{fmt.Sprintf("Scalars.Commitments[%d]", j), func(r *run) { bump(&r.check.Commitments[j]) }})
	}
	for i := range base.check.Folds {
		tampers = append(tampers, tamper{fmt.Sprintf("Scalars.Folds[%d]", i), func(r *run) { bump(&r.check.Folds[i]) }})
	}
	for k := range base.check.Quotient {
		tampers = append(tampers, tamper{fmt.Sprintf("Scalars.Quotient[%d]", k), func(r *run) { bump(&r.check.Quotient[k]) }})
	}
	for k := range base.check.Generator {
		tampers = append(tampers, tamper{fmt.Sprintf("Scalars.Generator[%d]", k), func(r *run) { bump(&r.check.Generator[k]) }})
	}
	for _, c := range tampers {
		for _, second := range []bool{false, true} {
			r := base.clone()
			r.commitments = append([]native.Commitment(nil), base.commitments...)
			c.do(r)
			rs := groupRuns{r}
			if second {
				rs = groupRuns{base, r}
			}
			if err := rs.verifyNative(); err == nil {
				t.Errorf("%s (of %d): accepted by the native verifier", c.name, len(rs))
			}
			if err := rs.solve(); err == nil {
				t.Errorf("%s (of %d): accepted by the gadget", c.name, len(rs))
			}
		}
	}
	t.Logf("%d tampered variants, alone and second of two, rejected by both", len(tampers))
}

// TestGroupIdentity: an honest opening in which one commitment is the
// identity (an all-zero table, as a limb row no block uses) is accepted
// by native.VerifyGroup and by the gadget; the identity moved to the
// generator is rejected by both.
func TestGroupIdentity(t *testing.T) {
	base := loadRun(t, vectors[0])
	tau, _ := new(big.Int).SetString(base.v.Tau, 10)
	srs, err := native.NewSRSOfTau(base.v.SRSSize, tau)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	tables := [][]fr.Element{field.RandomVector[fr.Element](rng, 8), make([]fr.Element, 8)}
	var commitments []native.Commitment
	for _, tb := range tables {
		c, err := native.Commit(srs, tb)
		if err != nil {
			t.Fatal(err)
		}
		commitments = append(commitments, c)
	}
	if !commitments[1].IsInfinity() {
		t.Fatal("the zero table's commitment is not the identity")
	}
	var claims []native.Claim
	for j := range tables {
		p := field.RandomVector[fr.Element](rng, 3)
		claims = append(claims, native.Claim{Commitment: j, Point: p, Value: poly.Evaluate[fr.Element](tables[j], p)})
	}
	tr := func() *native.Transcript {
		t := nativetranscript.New[fr.Element]("veriformer/gadgets/pcs/identity")
		t.Absorb(native.Digest(commitments))
		for _, c := range claims {
			t.Absorb(c.Point...)
		}
		return t
	}
	proof, err := native.OpenGroupParts(tr(), srs, tables, claims, native.MaxNbVars)
	if err != nil {
		t.Fatal(err)
	}
	check, err := native.VerifyGroupFieldParts(tr(), len(commitments), claims, proof, native.MaxNbVars)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{v: base.v, commitments: commitments, claims: claims, proof: proof, check: *check, vk: srs.VerifyingKey()}
	if err := (groupRuns{r}).verifyNative(); err != nil {
		t.Fatalf("native: %v", err)
	}
	if err := (groupRuns{r}).solve(); err != nil {
		t.Fatalf("gadget: %v", err)
	}
	moved := *r
	moved.commitments = append([]native.Commitment(nil), commitments...)
	move(&moved.commitments[1])
	if err := (groupRuns{&moved}).verifyNative(); err == nil {
		t.Error("the identity moved: accepted by the native verifier")
	}
	if err := (groupRuns{&moved}).solve(); err == nil {
		t.Error("the identity moved: accepted by the gadget")
	}
}

// TestGroupConstraints snapshots the group part's constraint count for
// one and for two openings of the vector's shape (three commitments,
// three folds, one quotient) in testdata/group_constraints.csv (rewrite
// with -update).
func TestGroupConstraints(t *testing.T) {
	base := loadRun(t, vectors[0])
	got := "gadget,params,nb_constraints\n"
	for _, rs := range []groupRuns{{base}, {base, base}} {
		placeholder, _ := rs.circuits()
		cs, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, placeholder)
		if err != nil {
			t.Fatal(err)
		}
		got += fmt.Sprintf("verify-group,openings=%d/commitments=3/n=4,%d\n", len(rs), cs.GetNbConstraints())
		// No emulated arithmetic, so no range check and no Pedersen
		// commitment: the aggregators' wrapper verifies none.
		if n := len(cs.GetCommitments().CommitmentIndexes()); n != 0 {
			t.Errorf("%d openings: the circuit has %d Pedersen commitments, want 0", len(rs), n)
		}
	}
	// The shape of a committed GPT-2-small block segment at 16 rows: 12
	// commitments of the proof (tensors, multiplicities, 8 limb rows,
	// boundary, incoming) and 3 function tables', an opening over 20
	// variables.
	gpt2 := &groupCircuit{key: KeyOf(base.vk), Openings: []GroupOpening{PlaceholderGroupOpening(15, 20)}, Digests: make([]frontend.Variable, 1)}
	cs, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, gpt2)
	if err != nil {
		t.Fatal(err)
	}
	got += fmt.Sprintf("verify-group,openings=1/commitments=15/n=20,%d\n", cs.GetNbConstraints())
	path := filepath.Join("testdata", "group_constraints.csv")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("constraint counts changed:\n%s\nwant\n%s", got, want)
	}
	t.Logf("\n%s", got)
}
