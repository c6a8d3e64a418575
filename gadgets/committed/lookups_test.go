package committed

import (
	"flag"
	"fmt"
	"io"
	"log"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/inference"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

// lookupsCircuit replays a segment's transcript up to the end of
// VerifyLookups and asserts the native state and the zero-check's claim
// on the stacked MLE.
type lookupsCircuit struct {
	Statement []frontend.Variable `gnark:",public"`
	Digest    frontend.Variable   `gnark:",public"`
	MDigest   frontend.Variable   `gnark:",public"`
	State     frontend.Variable   `gnark:",public"`
	S         frontend.Variable   `gnark:",public"`
	Proof     LookupProof

	seg inference.Segment `gnark:"-"`
	l   *native.Layout    `gnark:"-"`
	set *table.Set        `gnark:"-"`
	ids *native.TableIDs  `gnark:"-"`
}

func (c *lookupsCircuit) Define(api frontend.API) error {
	t, err := c.lookups(api)
	if err != nil {
		return err
	}
	api.AssertIsEqual(t.State(), c.State)
	return nil
}

// lookups seeds the segment's transcript (statement, segment, the
// commitments' digest), runs VerifyLookups, asserts its claim on s and
// returns the transcript.
func (c *lookupsCircuit) lookups(api frontend.API) (*transcript.Transcript, error) {
	t, err := transcript.New(api, native.Domain, c.Statement...)
	if err != nil {
		return nil, err
	}
	t.Absorb(c.seg.From, c.seg.To)
	t.Absorb(c.Digest)
	claims, err := VerifyLookups(api, t, c.l, c.set, c.ids, c.MDigest, c.Proof)
	if err != nil {
		return nil, err
	}
	api.AssertIsEqual(claims.Decomposition[0].Value, c.S)
	return t, nil
}

// lookupsRun is a proof of the built-in model's first segment over a
// 4-row pass and what both verifiers are given.
type lookupsRun struct {
	st    statement.Statement
	seg   inference.Segment
	proof *native.Proof
	l     *native.Layout
	set   *table.Set
	ids   *native.TableIDs
	// The honest verification's transcript state and claim on s.
	state, s fr.Element
	// mDigest is the multiplicities' digest the circuit is given.
	mDigest fr.Element
	// The segment's requantizations and shared rows (the verifier's, from
	// the shapes), and the honest state after the requantization step.
	rqs          []*model.Requant
	shared       map[*model.Requant]*model.Requant
	requantState fr.Element
}

var (
	runOnce   sync.Once
	sharedRun *lookupsRun
	runErr    error
	// The run with 16-bit limbs (committed.WithLimbBits), which the
	// built-in model would not choose.
	run16Once sync.Once
	run16     *lookupsRun
	run16Err  error
)

// lookupsRun16 returns the shared run with 16-bit limbs
// (committed.WithLimbBits in its prover and its layout).
func lookupsRun16(t *testing.T) *lookupsRun {
	t.Helper()
	run16Once.Do(func() { run16, run16Err = newLookupsRun(native.WithLimbBits(16)) })
	if run16Err != nil {
		t.Fatal(run16Err)
	}
	if run16.l.LimbBits != 16 {
		t.Fatalf("the forced run has %d-bit limbs", run16.l.LimbBits)
	}
	return run16
}

// sharedLookupsRun returns the one run the tests share (a proof takes
// seconds, the SRS longer).
func sharedLookupsRun(t *testing.T) *lookupsRun {
	t.Helper()
	runOnce.Do(func() { sharedRun, runErr = newLookupsRun() })
	if runErr != nil {
		t.Fatal(runErr)
	}
	return sharedRun
}

func newLookupsRun(opts ...native.Option) (*lookupsRun, error) {
	m := model.Default()
	prompt := []int{11, 48}
	gen, err := m.Generate(prompt, 3)
	if err != nil {
		return nil, err
	}
	pass := native.Pass{Prompt: prompt, Output: gen.Tokens, Rows: 4}
	tr, err := m.Forward(m.NewCache(), pass.Tokens())
	if err != nil {
		return nil, err
	}
	st, err := statement.Of[fr.Element](m.ID(), prompt, gen.Tokens)
	if err != nil {
		return nil, err
	}
	srs, err := pcs.NewDevelopmentSRS(1<<18, log.New(io.Discard, "", 0))
	if err != nil {
		return nil, err
	}
	r := &lookupsRun{st: st, seg: inference.Segment{From: 0, To: 1}}
	if r.proof, _, err = native.Prove(srs, m, st, pass, tr, r.seg, opts...); err != nil {
		return nil, err
	}
	view, err := inference.ShapePass(m, len(pass.Tokens()))
	if err != nil {
		return nil, err
	}
	if r.l, err = native.NewLayout(view, r.seg, pass, opts...); err != nil {
		return nil, err
	}
	if r.set, r.ids, err = native.TableSet(r.l); err != nil {
		return nil, err
	}
	native.Requants(view, r.seg, func(q *model.Requant) { r.rqs = append(r.rqs, q) })
	r.shared = native.SharedRows(view, r.seg)
	r.mDigest = pcs.Digest(r.proof.Multiplicities)
	claims, state, err := r.verifyNative()
	if err != nil {
		return nil, err
	}
	r.state, r.s = state, claims.Decomposition[0].Value
	if r.requantState, err = r.verifyRequantsNative(); err != nil {
		return nil, err
	}
	return r, nil
}

// verifyRequantsNative runs native VerifyLookups then VerifyRequants and
// returns the transcript state.
func (r *lookupsRun) verifyRequantsNative() (fr.Element, error) {
	t := native.NewTranscript(r.st, r.seg)
	t.Absorb(pcs.Digest(r.proof.Commitments()))
	if _, err := native.VerifyLookups(t, r.l, r.set, r.ids, r.proof); err != nil {
		return fr.Element{}, err
	}
	if _, _, err := native.VerifyRequants(t, r.l, r.rqs, r.shared, r.proof); err != nil {
		return fr.Element{}, err
	}
	return t.State(), nil
}

// verifyNative runs native.VerifyLookups on the run's transcript.
func (r *lookupsRun) verifyNative() (*native.LookupClaims, fr.Element, error) {
	t := native.NewTranscript(r.st, r.seg)
	t.Absorb(pcs.Digest(r.proof.Commitments()))
	claims, err := native.VerifyLookups(t, r.l, r.set, r.ids, r.proof)
	if err != nil {
		return nil, fr.Element{}, err
	}
	if d := pcs.Digest(r.proof.Multiplicities); !d.Equal(&r.mDigest) {
		return nil, fr.Element{}, fmt.Errorf("the multiplicities' digest is not the commitment's")
	}
	return claims, t.State(), nil
}

// acceptedNatively reports whether native VerifyLookups accepts the run
// and ends as the honest run did: with its transcript state and claim on
// s, the values the circuit exposes. A changed value that no check of
// these steps reads (a limb row's claim whose weight vanishes) changes
// the state, and the opening downstream rejects it.
func (r *lookupsRun) acceptedNatively() bool {
	claims, state, err := r.verifyNative()
	return err == nil && state.Equal(&r.state) && claims.Decomposition[0].Value.Equal(&r.s)
}

func (r *lookupsRun) circuits() (*lookupsCircuit, *lookupsCircuit, error) {
	ph, err := PlaceholderLookupProof(r.l, r.set)
	if err != nil {
		return nil, nil, err
	}
	placeholder := &lookupsCircuit{Statement: make([]frontend.Variable, 3), Proof: ph, seg: r.seg, l: r.l, set: r.set, ids: r.ids}
	digest := pcs.Digest(r.proof.Commitments())
	var stmt []frontend.Variable
	for _, e := range statement.Elements[fr.Element](r.st) {
		stmt = append(stmt, field.BigInt(&e))
	}
	assignment := &lookupsCircuit{
		Statement: stmt,
		Digest:    field.BigInt(&digest),
		MDigest:   field.BigInt(&r.mDigest),
		State:     field.BigInt(&r.state),
		S:         field.BigInt(&r.s),
		Proof:     ValueOfLookupProof(r.proof),
		seg:       r.seg, l: r.l, set: r.set, ids: r.ids,
	}
	return placeholder, assignment, nil
}

// compile compiles the run's circuit to R1CS.
func (r *lookupsRun) compile(t *testing.T) constraint.ConstraintSystem {
	t.Helper()
	placeholder, _, err := r.circuits()
	if err != nil {
		t.Fatal(err)
	}
	return compileCircuit(t, placeholder)
}

// compileCircuit compiles a circuit to R1CS over BLS12-377's scalar field.
func compileCircuit(t *testing.T, placeholder frontend.Circuit) constraint.ConstraintSystem {
	t.Helper()
	cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, placeholder)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// solveCompiled reports whether an assignment solves a compiled circuit.
func solveCompiled(cs constraint.ConstraintSystem, assignment frontend.Circuit) error {
	w, err := frontend.NewWitness(assignment, ecc.BLS12_377.ScalarField())
	if err != nil {
		return err
	}
	return cs.IsSolved(w)
}

func (r *lookupsRun) solve() error {
	placeholder, assignment, err := r.circuits()
	if err != nil {
		return err
	}
	return test.IsSolved(placeholder, assignment, ecc.BLS12_377.ScalarField())
}

// TestLookupsHonest: the honest proof leaves the gadget with the native
// transcript state and claim on s.
func TestLookupsHonest(t *testing.T) {
	r := sharedLookupsRun(t)
	if err := r.solve(); err != nil {
		t.Fatalf("gadget: %v", err)
	}
}

func bump(x *fr.Element) func() {
	saved := *x
	var one fr.Element
	one.SetOne()
	x.Add(x, &one)
	return func() { *x = saved }
}

// TestLookupsRejectedByBoth changes a value of every kind — the first
// and last slot values and function values, the table values, the LogUp
// instance's column and multiplicity values, both trees' roots, a round
// value and an evaluation of the witness tree's first and last layers,
// the first and last round of the decomposition zero-check and its first
// and last evaluations — and the multiplicities' digest: native
// VerifyLookups and the compiled gadget both reject each, or end in
// another transcript state than the honest proof's (the state the
// segment circuit exposes, which the later steps and the opening
// consume). The native package's tests change every value of the proof
// against the whole verifier.
func TestLookupsRejectedByBoth(t *testing.T) {
	r := sharedLookupsRun(t)
	if r.l.LimbBits != 15 {
		t.Errorf("the built-in model's segment has %d-bit limbs, want 15 (its table set would double)", r.l.LimbBits)
	}
	lookupsRejectedByBoth(t, r)
}

// TestLookupsLimbBits16 is [TestLookupsRejectedByBoth] on the proof with
// 16-bit limbs (Range(16), as GPT-2 small's segments choose).
func TestLookupsLimbBits16(t *testing.T) {
	lookupsRejectedByBoth(t, lookupsRun16(t))
}

func lookupsRejectedByBoth(t *testing.T, r *lookupsRun) {
	p := r.proof
	var names []string
	var elems []*fr.Element
	add := func(name string, x *fr.Element) { names, elems = append(names, name), append(elems, x) }
	ends := func(n int) []int {
		if n <= 1 {
			return []int{0}
		}
		return []int{0, n - 1}
	}
	for _, k := range ends(len(p.LimbEvals)) {
		add(fmt.Sprintf("LimbEvals[%d]", k), &p.LimbEvals[k])
	}
	for _, f := range ends(len(p.Functions)) {
		add(fmt.Sprintf("Functions[%d].In", f), &p.Functions[f].In)
		add(fmt.Sprintf("Functions[%d].Out", f), &p.Functions[f].Out)
	}
	for k := range p.Lookup.TableEvals {
		add(fmt.Sprintf("Lookup.TableEvals[%d]", k), &p.Lookup.TableEvals[k])
	}
	for c := range p.Lookup.ColumnEvals {
		add(fmt.Sprintf("Lookup.ColumnEvals[%d]", c), &p.Lookup.ColumnEvals[c])
	}
	add("Lookup.MultiplicityEval", &p.Lookup.MultiplicityEval)
	for i := range 4 {
		add(fmt.Sprintf("Lookup.Witness.Root[%d]", i), &p.Lookup.Witness.Root[i])
		add(fmt.Sprintf("Lookup.Table.Root[%d]", i), &p.Lookup.Table.Root[i])
	}
	for _, j := range ends(len(p.Lookup.Witness.Layers)) {
		add(fmt.Sprintf("Lookup.Witness.Layers[%d] round 0 value 0", j), &p.Lookup.Witness.Layers[j].SumCheck.Rounds[0][0])
		add(fmt.Sprintf("Lookup.Witness.Layers[%d].Evals[3]", j), &p.Lookup.Witness.Layers[j].Evals[3])
	}
	for _, i := range ends(len(p.Decomposition.SumCheck.Rounds)) {
		add(fmt.Sprintf("Decomposition round %d value 0", i), &p.Decomposition.SumCheck.Rounds[i][0])
	}
	for _, k := range ends(len(p.Decomposition.Evaluations)) {
		add(fmt.Sprintf("Decomposition.Evaluations[%d]", k), &p.Decomposition.Evaluations[k])
	}
	add("multiplicities' digest", &r.mDigest)

	cs := r.compile(t)
	solved := func() error {
		_, assignment, err := r.circuits()
		if err != nil {
			return err
		}
		return solveCompiled(cs, assignment)
	}
	if err := solved(); err != nil {
		t.Fatalf("the honest proof does not solve the compiled gadget: %v", err)
	}
	for i, x := range elems {
		undo := bump(x)
		if r.acceptedNatively() {
			t.Errorf("%s: accepted by the native verifier", names[i])
		}
		if err := solved(); err == nil {
			t.Errorf("%s: accepted by the gadget", names[i])
		}
		undo()
	}
	t.Logf("%d values changed, each rejected by both", len(elems))
}

// TestLookupsConstraints snapshots the gadget's constraint count for the
// built-in model's first segment over 4 rows in testdata/constraints.csv
// (rewrite with -update).
func TestLookupsConstraints(t *testing.T) {
	r := sharedLookupsRun(t)
	cs := r.compile(t)
	rph, _, err := r.requantCircuits()
	if err != nil {
		t.Fatal(err)
	}
	rcs := compileCircuit(t, rph)
	params := fmt.Sprintf("builtin/segment0/rows=4/N=%d/K=%d/set=%d", r.l.NbVars, r.l.LookupVars, r.set.NbVars)
	records := [][]string{{"gadget", "params", "nb_constraints"},
		{"verify-lookups", params, fmt.Sprint(cs.GetNbConstraints())},
		{"verify-lookups+requants", fmt.Sprintf("%s/requants=%d", params, len(r.rqs)), fmt.Sprint(rcs.GetNbConstraints())}}
	t.Logf("%v", records[1])
	snapshot.CheckCSV(t, "testdata/constraints.csv", records, *update)
}
