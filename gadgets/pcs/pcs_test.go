package pcs

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/pcs"
	nativetranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

// PlaceholderGroupProofParts returns a proof for claims over n variables
// whose opening runs over min(n, m) variables (commitments in parts of m
// variables), to size the tests' circuits (the segment circuits size
// their own, gadgets/committed).
func PlaceholderGroupProofParts(n, m int) GroupProof {
	return GroupProof{SumCheck: sumcheck.PlaceholderProof(n, 2), Evaluations: make([][3]frontend.Variable, min(n, m))}
}

// vector mirrors pcs/testdata/group_vector.json and
// group_parts_vector.json: the transcript is transcript.New(Domain), then
// the commitments' digest and every claim's point; the SRS is the
// test-only one of τ = Tau with SRSSize powers. In the second, MLE j is
// committed in Parts[j] parts of PartVars variables, Commitments listing
// every part.
type vector struct {
	Domain           string            `json:"domain"`
	Tau              string            `json:"tau"`
	SRSSize          int               `json:"srsSize"`
	Commitments      []string          `json:"commitments"`
	CommitmentDigest fr.Element        `json:"commitmentDigest"`
	Claims           []native.Claim    `json:"claims"`
	Proof            string            `json:"proof"`
	FoldDigest       fr.Element        `json:"foldDigest"`
	QuotientDigest   fr.Element        `json:"quotientDigest"`
	Check            native.GroupCheck `json:"check"`
	PartVars         int               `json:"partVars"`
	Parts            []int             `json:"parts"`
}

// vectors are the golden vectors' files, whole then in parts.
var vectors = []string{"group_vector.json", "group_parts_vector.json"}

// run is one verification: the vector's statement, claims, proof and the
// expected pairing-check scalars, each of which a test may change.
type run struct {
	v           *vector
	commitments []native.Commitment
	claims      []native.Claim
	proof       *native.GroupProof
	check       native.GroupCheck
	// state is the transcript's state after the honest verification: the
	// segment exposes it so that the aggregator binds what was absorbed
	// last (the quotient's digest, which no challenge follows).
	state fr.Element
	vk    *native.VerifyingKey
	// nb is the number of committed MLEs, m the parts' variables
	// (native.MaxNbVars: whole).
	nb, m int
}

func loadRun(t *testing.T, name string) *run {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "pcs", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	v := &vector{}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
	r := &run{v: v, claims: v.Claims, check: v.Check, nb: len(v.Parts), m: v.PartVars}
	if v.PartVars == 0 {
		r.nb, r.m = len(v.Commitments), native.MaxNbVars
	}
	for _, h := range v.Commitments {
		b, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		var c native.Commitment
		if _, err := c.SetBytes(b); err != nil {
			t.Fatal(err)
		}
		r.commitments = append(r.commitments, c)
	}
	raw, err := hex.DecodeString(v.Proof)
	if err != nil {
		t.Fatal(err)
	}
	r.proof = &native.GroupProof{}
	if err := r.proof.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	tau, ok := new(big.Int).SetString(v.Tau, 10)
	if !ok {
		t.Fatal("bad τ")
	}
	srs, err := native.NewSRSOfTau(v.SRSSize, tau)
	if err != nil {
		t.Fatal(err)
	}
	r.vk = srs.VerifyingKey()
	tr := r.transcript()
	if _, err := native.VerifyGroupFieldParts(tr, r.nb, r.claims, r.proof, r.m); err != nil {
		t.Fatal(err)
	}
	r.state = tr.State()
	return r
}

// clone deep-copies the parts a test changes.
func (r *run) clone() *run {
	c := *r
	c.claims = make([]native.Claim, len(r.claims))
	for k, cl := range r.claims {
		c.claims[k] = native.Claim{Commitment: cl.Commitment, Point: append([]fr.Element(nil), cl.Point...), Value: cl.Value}
	}
	p := *r.proof
	p.SumCheck.Rounds = make([][]fr.Element, len(r.proof.SumCheck.Rounds))
	for i, round := range r.proof.SumCheck.Rounds {
		p.SumCheck.Rounds[i] = append([]fr.Element(nil), round...)
	}
	p.Opening.Evaluations = append([][3]fr.Element(nil), r.proof.Opening.Evaluations...)
	p.Opening.Folds = append([]bls12377.G1Affine(nil), r.proof.Opening.Folds...)
	c.proof = &p
	c.check.Commitments = append([]fr.Element(nil), r.check.Commitments...)
	c.check.Folds = append([]fr.Element(nil), r.check.Folds...)
	return &c
}

func (r *run) transcript() *native.Transcript {
	t := nativetranscript.New[fr.Element](r.v.Domain)
	t.Absorb(r.v.CommitmentDigest)
	for _, c := range r.claims {
		t.Absorb(c.Point...)
	}
	return t
}

// verifyNative runs the native verifier, field part then group part
// with the run's expected scalars (which must be the field part's).
func (r *run) verifyNative() error {
	got, err := native.VerifyGroupFieldParts(r.transcript(), r.nb, r.claims, r.proof, r.m)
	if err != nil {
		return err
	}
	if !slices.Equal(got.Commitments, r.check.Commitments) || !slices.Equal(got.Folds, r.check.Folds) ||
		got.Quotient != r.check.Quotient || got.Generator != r.check.Generator {
		return errors.New("the pairing-check scalars differ from the expected ones")
	}
	if err := native.VerifyGroup(r.vk, r.commitments, &r.proof.Opening, got); err != nil {
		return err
	}
	return nil
}

// fieldCircuit verifies the vector's grouped opening and asserts the
// pairing-check scalars, its public outputs.
type fieldCircuit struct {
	CommitmentDigest frontend.Variable
	Points           [][]frontend.Variable
	Values           []frontend.Variable
	Proof            GroupProof
	Commitments      []frontend.Variable  `gnark:",public"`
	Folds            []frontend.Variable  `gnark:",public"`
	Quotient         [2]frontend.Variable `gnark:",public"`
	Generator        [3]frontend.Variable `gnark:",public"`
	State            frontend.Variable    `gnark:",public"`

	domain  string `gnark:"-"`
	targets []int  `gnark:"-"`
	nb, m   int    `gnark:"-"`
}

func (c *fieldCircuit) Define(api frontend.API) error {
	t, err := transcript.New(api, c.domain)
	if err != nil {
		return err
	}
	t.Absorb(c.CommitmentDigest)
	claims := make([]Claim, len(c.Points))
	for k := range c.Points {
		t.Absorb(c.Points[k]...)
		claims[k] = Claim{Commitment: c.targets[k], Point: c.Points[k], Value: c.Values[k]}
	}
	check, err := VerifyGroupFieldParts(api, t, c.nb, claims, c.Proof, c.m)
	if err != nil {
		return err
	}
	for j := range c.Commitments {
		api.AssertIsEqual(check.Commitments[j], c.Commitments[j])
	}
	for i := range c.Folds {
		api.AssertIsEqual(check.Folds[i], c.Folds[i])
	}
	for k := range c.Quotient {
		api.AssertIsEqual(check.Quotient[k], c.Quotient[k])
	}
	for k := range c.Generator {
		api.AssertIsEqual(check.Generator[k], c.Generator[k])
	}
	api.AssertIsEqual(t.State(), c.State)
	return nil
}

func values(xs []fr.Element) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i := range xs {
		out[i] = field.BigInt(&xs[i])
	}
	return out
}

// circuits returns the placeholder and the assignment of a run.
func (r *run) circuits() (*fieldCircuit, *fieldCircuit) {
	n, k := len(r.proof.SumCheck.Rounds), len(r.proof.Opening.Evaluations)
	placeholder := &fieldCircuit{
		Proof:       PlaceholderGroupProofParts(n, r.m),
		Commitments: make([]frontend.Variable, len(r.commitments)),
		Folds:       make([]frontend.Variable, k-1),
		domain:      r.v.Domain,
		nb:          r.nb,
		m:           r.m,
	}
	assignment := &fieldCircuit{
		CommitmentDigest: field.BigInt(&r.v.CommitmentDigest),
		Proof:            ValueOfGroupProof(r.proof),
		Commitments:      values(r.check.Commitments),
		Folds:            values(r.check.Folds),
		Quotient:         [2]frontend.Variable(values(r.check.Quotient[:])),
		Generator:        [3]frontend.Variable(values(r.check.Generator[:])),
		State:            field.BigInt(&r.state),
		domain:           r.v.Domain,
		nb:               r.nb,
		m:                r.m,
	}
	for _, c := range r.claims {
		placeholder.Points = append(placeholder.Points, make([]frontend.Variable, len(c.Point)))
		placeholder.Values = append(placeholder.Values, nil)
		placeholder.targets = append(placeholder.targets, c.Commitment)
		assignment.Points = append(assignment.Points, values(c.Point))
		assignment.Values = append(assignment.Values, field.BigInt(&c.Value))
		assignment.targets = append(assignment.targets, c.Commitment)
	}
	return placeholder, assignment
}

func (r *run) solve() error {
	placeholder, assignment := r.circuits()
	return test.IsSolved(placeholder, assignment, ecc.BLS12_377.ScalarField())
}

// TestHonest: the vector's proof is accepted by both verifiers, and the
// gadget's scalars are the native ones (asserted in circuit).
func TestHonest(t *testing.T) {
	for _, name := range vectors {
		t.Run(name, func(t *testing.T) {
			r := loadRun(t, name)
			if err := r.verifyNative(); err != nil {
				t.Fatalf("native: %v", err)
			}
			if err := r.solve(); err != nil {
				t.Fatalf("gadget: %v", err)
			}
			assert := test.NewAssert(t)
			placeholder, assignment := r.circuits()
			assert.CheckCircuit(placeholder, test.WithValidAssignment(assignment), test.WithCurves(ecc.BLS12_377), test.NoFuzzing(), test.NoSerializationChecks())
		})
	}
}

func bump(x *fr.Element) {
	var one fr.Element
	one.SetOne()
	x.Add(x, &one)
}

func move(p *bls12377.G1Affine) {
	_, _, g, _ := bls12377.Generators()
	p.Add(p, &g)
}

// TestRejectedByBoth changes every round value, evaluation, claimed
// value and point coordinate, every fold and quotient point (the gadget
// sees their digests) and every output scalar: the native verifier and
// the gadget both reject each. The second quotient's digest is absorbed
// last and changes no scalar: the gadget rejects it through the final
// transcript state, which the segment exposes.
func TestRejectedByBoth(t *testing.T) {
	for _, name := range vectors {
		t.Run(name, func(t *testing.T) { testRejectedByBoth(t, loadRun(t, name)) })
	}
}

func testRejectedByBoth(t *testing.T, base *run) {
	type tamper struct {
		name string
		do   func(r *run)
	}
	var tampers []tamper
	for i, round := range base.proof.SumCheck.Rounds {
		for j := range round {
			tampers = append(tampers, tamper{fmt.Sprintf("SumCheck.Rounds[%d][%d]", i, j), func(r *run) { bump(&r.proof.SumCheck.Rounds[i][j]) }})
		}
	}
	for i := range base.proof.Opening.Evaluations {
		for j := range 3 {
			tampers = append(tampers, tamper{fmt.Sprintf("Evaluations[%d][%d]", i, j), func(r *run) { bump(&r.proof.Opening.Evaluations[i][j]) }})
		}
	}
	for i := range base.proof.Opening.Folds {
		tampers = append(tampers, tamper{fmt.Sprintf("Folds[%d]", i), func(r *run) { move(&r.proof.Opening.Folds[i]) }})
	}
	tampers = append(tampers, tamper{"Quotient", func(r *run) { move(&r.proof.Opening.Quotient) }})
	for k, c := range base.claims {
		tampers = append(tampers, tamper{fmt.Sprintf("Claims[%d].Value", k), func(r *run) { bump(&r.claims[k].Value) }})
		for i := range c.Point {
			tampers = append(tampers, tamper{fmt.Sprintf("Claims[%d].Point[%d]", k, i), func(r *run) { bump(&r.claims[k].Point[i]) }})
		}
	}
	for j := range base.check.Commitments {
		tampers = append(tampers, tamper{fmt.Sprintf("Check.Commitments[%d]", j), func(r *run) { bump(&r.check.Commitments[j]) }})
	}
	for i := range base.check.Folds {
		tampers = append(tampers, tamper{fmt.Sprintf("Check.Folds[%d]", i), func(r *run) { bump(&r.check.Folds[i]) }})
	}
	for k := range base.check.Quotient {
		tampers = append(tampers, tamper{fmt.Sprintf("Check.Quotient[%d]", k), func(r *run) { bump(&r.check.Quotient[k]) }})
	}
	for k := range base.check.Generator {
		tampers = append(tampers, tamper{fmt.Sprintf("Check.Generator[%d]", k), func(r *run) { bump(&r.check.Generator[k]) }})
	}
	for _, c := range tampers {
		r := base.clone()
		c.do(r)
		if err := r.verifyNative(); err == nil {
			t.Errorf("%s: accepted by the native verifier", c.name)
		}
		if err := r.solve(); err == nil {
			t.Errorf("%s: accepted by the gadget", c.name)
		}
	}
	t.Logf("%d tampered variants rejected by both", len(tampers))
}

// TestConstraints snapshots the gadget's constraint count on the vectors'
// shape (three commitments of 2, 4 and 4 variables, five claims; whole,
// then in parts of 3 variables) in testdata/constraints.csv (rewrite with
// -update).
func TestConstraints(t *testing.T) {
	got := "gadget,params,nb_constraints\n"
	for _, name := range vectors {
		r := loadRun(t, name)
		placeholder, _ := r.circuits()
		cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
		if err != nil {
			t.Fatal(err)
		}
		params := fmt.Sprintf("vector/n=%d/claims=%d", len(r.proof.Opening.Evaluations), len(r.claims))
		if r.v.PartVars != 0 {
			params = fmt.Sprintf("vector/n=%d/parts=%d/claims=%d", len(r.proof.SumCheck.Rounds), len(r.commitments), len(r.claims))
		}
		got += fmt.Sprintf("field-part,%s,%d\n", params, cs.GetNbConstraints())
	}
	path := filepath.Join("testdata", "constraints.csv")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(want)) != strings.TrimSpace(got) {
		t.Errorf("constraint counts changed:\n%s\nwant\n%s(go test ./gadgets/pcs -run TestConstraints -update)", got, want)
	}
	t.Logf("%s", got)
}
