package lookup_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	glookup "github.com/veriformer/veriformer/gadgets/lookup"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	native "github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var (
	updateLookup  = flag.Bool("update", false, "rewrite the constraint-count snapshot")
	largeCircuits = flag.Bool("large", false, "also compile the committed verifier for 2^16 and 2^20 lookups")
)

// committedCircuit verifies a committed LogUp proof; with check set it
// also compares the output claims with the native verifier's.
type committedCircuit struct {
	set    *table.Set `gnark:"-"`
	shape  []int      `gnark:"-"`
	check  bool       `gnark:"-"`
	tables bool       `gnark:"-"`
	Digest []frontend.Variable
	Proof  glookup.CommittedProof
	// The native claims: the column values, their point, the
	// multiplicities' value and point.
	Columns     []frontend.Variable
	ColumnPoint []frontend.Variable
	MValue      frontend.Variable
	MPoint      []frontend.Variable
	// With tables: the native table claims' values.
	Tables []frontend.Variable
}

func (c *committedCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "lookup-test", 42)
	if err != nil {
		return err
	}
	var opts []native.CommittedOption
	if c.tables {
		opts = append(opts, native.WithTableClaims())
	}
	claims, err := glookup.VerifyCommitted(api, tr, c.Digest, c.set, c.shape, c.Proof, opts...)
	if err != nil {
		return err
	}
	if len(claims.Tables) != len(c.Tables) {
		return fmt.Errorf("%d table claims, want %d", len(claims.Tables), len(c.Tables))
	}
	for k := range claims.Tables {
		api.AssertIsEqual(claims.Tables[k].Value, c.Tables[k])
	}
	if !c.check {
		return nil
	}
	for i := range claims.Columns {
		api.AssertIsEqual(claims.Columns[i].Value, c.Columns[i])
		for k := range claims.Columns[i].Point {
			api.AssertIsEqual(claims.Columns[i].Point[k], c.ColumnPoint[k])
		}
	}
	api.AssertIsEqual(claims.Multiplicities.Value, c.MValue)
	for k := range claims.Multiplicities.Point {
		api.AssertIsEqual(claims.Multiplicities.Point[k], c.MPoint[k])
	}
	return nil
}

func zeros(n int) []frontend.Variable {
	out := make([]frontend.Variable, n)
	for i := range out {
		out[i] = 0
	}
	return out
}

// committedRun is a proof and what both verifiers are given.
type committedRun[E field.Scalar] struct {
	set    *table.Set
	shape  []int
	digest []E
	proof  *native.CommittedProof[E]
	// tables: proven and verified with WithTableClaims, whose claims
	// the circuit compares with the native ones (want).
	tables bool
	want   []E
}

func (r *committedRun[E]) circuits(check bool) (placeholder, assignment *committedCircuit, err error) {
	var opts []native.CommittedOption
	if r.tables {
		opts = append(opts, native.WithTableClaims())
	}
	ph, err := glookup.PlaceholderCommittedProof(r.set, r.shape, opts...)
	if err != nil {
		return nil, nil, err
	}
	_, total, _ := native.ShapeVars(r.shape)
	placeholder = &committedCircuit{set: r.set, shape: r.shape, check: check, Digest: make([]frontend.Variable, len(r.digest)), Proof: ph,
		Columns: make([]frontend.Variable, r.set.NbColumns()), ColumnPoint: make([]frontend.Variable, total), MPoint: make([]frontend.Variable, r.set.NbVars)}
	assignment = &committedCircuit{set: r.set, shape: r.shape, check: check, Digest: gpoly.ValuesOf(r.digest), Proof: glookup.ValueOfCommittedProof(r.proof),
		Columns: zeros(len(placeholder.Columns)), ColumnPoint: zeros(total), MValue: 0, MPoint: zeros(r.set.NbVars)}
	placeholder.tables, assignment.tables = r.tables, r.tables
	placeholder.Tables = make([]frontend.Variable, len(r.want))
	assignment.Tables = gpoly.ValuesOf(r.want)
	return placeholder, assignment, nil
}

func verifyCommittedNative[E field.Scalar, P field.Ptr[E]](r *committedRun[E]) (*native.CommittedClaims[E], error) {
	stmt := ntranscript.New[E, P]("lookup-test", field.FromInt64[E, P](42))
	var opts []native.CommittedOption
	if r.tables {
		opts = append(opts, native.WithTableClaims())
	}
	claims, err := native.VerifyCommitted(stmt, r.digest, r.set, r.shape, r.proof, opts...)
	if err != nil {
		return nil, err
	}
	for k := range r.want {
		if k >= len(claims.Tables) || !P(&claims.Tables[k].Value).Equal(&r.want[k]) {
			return nil, fmt.Errorf("table claim %d is not the expected value", k)
		}
	}
	return claims, nil
}

func solveCommitted[E field.Scalar](r *committedRun[E]) error {
	placeholder, assignment, err := r.circuits(false)
	if err != nil {
		return err
	}
	return test.IsSolved(placeholder, assignment, field.Modulus[E]())
}

// rejectedByBoth fails the test unless the native verifier and the gadget
// both reject the run.
func rejectedByBoth[E field.Scalar, P field.Ptr[E]](t *testing.T, what string, r *committedRun[E]) {
	t.Helper()
	if _, err := verifyCommittedNative[E, P](r); err == nil {
		t.Errorf("%s: accepted by the native verifier", what)
	}
	if err := solveCommitted(r); err == nil {
		t.Errorf("%s: accepted by the gadget", what)
	}
}

// testSet combines a 3-bit and a 5-bit range, a two-column function table
// and a 2-bit range: 8 + 32 + 16 + 4 = 60 rows in a set of 2⁶, with
// padding.
func testSet(t testing.TB) *table.Set {
	fn, err := table.Function("square", -4, []int64{16, 9, 4, 1, 0, 1, 4, 9, 16})
	if err != nil {
		t.Fatal(err)
	}
	s, err := table.NewSet("mixed", table.Range(3), table.Range(5), fn, table.Range(2))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// setLookups draws count tuples from the tables of s at random.
func setLookups(rng *rand.Rand, s *table.Set, shape ...int) native.Lookups {
	count := 1
	for _, d := range shape {
		count *= d
	}
	cols := make([][]int64, s.NbColumns())
	for c := range cols {
		cols[c] = make([]int64, count)
	}
	for i := range count {
		t := rng.IntN(len(s.Tables))
		row := s.Offsets[t] + rng.IntN(1<<s.Tables[t].NbVars)
		for c := range cols {
			cols[c][i] = s.Value(c, row)
		}
	}
	return native.Lookups{Shape: shape, Columns: cols}
}

func proveCommitted[E field.Scalar, P field.Ptr[E]](t *testing.T, s *table.Set, lk *native.Lookups, m []uint64) *committedRun[E] {
	t.Helper()
	digest := []E{field.FromInt64[E, P](7), field.FromInt64[E, P](11)}
	stmt := ntranscript.New[E, P]("lookup-test", field.FromInt64[E, P](42))
	proof, _, err := native.ProveCommitted(stmt, digest, s, lk, m)
	if err != nil {
		t.Fatal(err)
	}
	return &committedRun[E]{set: s, shape: lk.Shape, digest: digest, proof: proof}
}

// committedElements lists every field element of the proof and the digest.
func committedElements[E field.Scalar](r *committedRun[E]) (names []string, elems []*E) {
	add := func(name string, x *E) { names, elems = append(names, name), append(elems, x) }
	tree := func(name string, fp *native.FractionProof[E]) {
		for i := range fp.Root {
			add(fmt.Sprintf("%s root %d", name, i), &fp.Root[i])
		}
		for j := range fp.Layers {
			for k := range fp.Layers[j].SumCheck.Rounds {
				for i := range fp.Layers[j].SumCheck.Rounds[k] {
					add(fmt.Sprintf("%s layer %d round %d value %d", name, j+1, k, i), &fp.Layers[j].SumCheck.Rounds[k][i])
				}
			}
			for i := range fp.Layers[j].Evals {
				add(fmt.Sprintf("%s layer %d eval %d", name, j+1, i), &fp.Layers[j].Evals[i])
			}
		}
	}
	tree("witness", &r.proof.Witness)
	tree("table", &r.proof.Table)
	add("multiplicity evaluation", &r.proof.MultiplicityEval)
	for c := range r.proof.ColumnEvals {
		add(fmt.Sprintf("column %d evaluation", c), &r.proof.ColumnEvals[c])
	}
	for k := range r.proof.TableEvals {
		add(fmt.Sprintf("table evaluation %d", k), &r.proof.TableEvals[k])
	}
	for i := range r.digest {
		add(fmt.Sprintf("digest %d", i), &r.digest[i])
	}
	return names, elems
}

func testCommitted[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	s := testSet(t)
	lk := setLookups(rng, s, 3, 5)
	m, err := native.SetMultiplicities(s, &lk)
	if err != nil {
		t.Fatal(err)
	}
	r := proveCommitted[E, P](t, s, &lk, m)

	// Honest: both accept, and the gadget outputs the native claims.
	claims, err := verifyCommittedNative[E, P](r)
	if err != nil {
		t.Fatalf("honest proof rejected: %v", err)
	}
	mv := make([]E, len(m))
	for i := range m {
		P(&mv[i]).SetUint64(m[i])
	}
	if want := poly.Evaluate[E, P](mv, claims.Multiplicities.Point); !P(&want).Equal(&claims.Multiplicities.Value) {
		t.Fatal("multiplicity claim is not the multiplicities' evaluation")
	}
	placeholder, assignment, err := r.circuits(true)
	if err != nil {
		t.Fatal(err)
	}
	assignment.Columns = gpoly.ValuesOf(r.proof.ColumnEvals)
	assignment.ColumnPoint = gpoly.ValuesOf(claims.Columns[0].Point)
	assignment.MValue = gpoly.ValuesOf([]E{claims.Multiplicities.Value})[0]
	assignment.MPoint = gpoly.ValuesOf(claims.Multiplicities.Point)
	if err := test.IsSolved(placeholder, assignment, curve.ScalarField()); err != nil {
		t.Fatalf("honest proof rejected by the gadget: %v", err)
	}
	wrong := *assignment
	wrong.MValue = 0
	if test.IsSolved(placeholder, &wrong, curve.ScalarField()) == nil {
		t.Fatal("gadget output a multiplicity claim other than the native one")
	}
	// The compiled R1CS too: the honest witness solves it, a tampered
	// multiplicity evaluation does not.
	cs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, placeholder)
	if err != nil {
		t.Fatal(err)
	}
	solved := func(a *committedCircuit) error {
		w, err := frontend.NewWitness(a, curve.ScalarField())
		if err != nil {
			t.Fatal(err)
		}
		return cs.IsSolved(w)
	}
	if err := solved(assignment); err != nil {
		t.Fatalf("honest witness does not solve the compiled circuit: %v", err)
	}
	bad := *assignment
	bumped := field.One[E, P]()
	P(&bumped).Add(&bumped, &r.proof.MultiplicityEval)
	bad.Proof.MultiplicityEval = gpoly.ValuesOf([]E{bumped})[0]
	bad.MValue = bad.Proof.MultiplicityEval
	if solved(&bad) == nil {
		t.Fatal("tampered multiplicity evaluation solves the compiled circuit")
	}

	// Every proof element and every digest element, tampered.
	names, elems := committedElements(r)
	one := field.One[E, P]()
	for i, x := range elems {
		saved := *x
		P(x).Add(x, &one)
		rejectedByBoth[E, P](t, names[i], r)
		*x = saved
	}
	if _, err := verifyCommittedNative[E, P](r); err != nil {
		t.Fatalf("restored proof rejected: %v", err)
	}
	t.Logf("%d elements tampered one at a time", len(elems))

	// Wrong multiplicities: each row counted once more (the committed
	// MLE, and so its evaluation, follow).
	for _, y := range []int{0, s.Offsets[1] + 3, 1<<s.NbVars - 1} {
		bad := append([]uint64(nil), m...)
		bad[y]++
		rejectedByBoth[E, P](t, fmt.Sprintf("multiplicity of row %d", y), proveCommitted[E, P](t, s, &lk, bad))
	}
	// A tuple under another table id, with the honest multiplicities:
	// 5 is in range5 (id 2) but not in range2 (id 4).
	lk2 := native.Lookups{Shape: lk.Shape, Columns: make([][]int64, len(lk.Columns))}
	for c := range lk.Columns {
		lk2.Columns[c] = append([]int64(nil), lk.Columns[c]...)
	}
	lk2.Columns[0][0], lk2.Columns[1][0], lk2.Columns[2][0] = 2, 5, 0
	m2, err := native.SetMultiplicities(s, &lk2)
	if err != nil {
		t.Fatal(err)
	}
	lk2.Columns[0][0] = 4
	rejectedByBoth[E, P](t, "table id of a tuple", proveCommitted[E, P](t, s, &lk2, m2))
	// The verifier given the tables in another order (other ids).
	swapped, err := table.NewSet(s.Name, s.Tables[1], s.Tables[0], s.Tables[2], s.Tables[3])
	if err != nil {
		t.Fatal(err)
	}
	rs := *r
	rs.set = swapped
	rejectedByBoth[E, P](t, "table ids of the set", &rs)
}

// TestCommitted: a LogUp proof over a table set with committed
// multiplicities is accepted by the native verifier and the gadget, with
// the same claims, and every tampering is rejected by both.
func TestCommitted(t *testing.T) {
	t.Run("bls12-377", func(t *testing.T) { testCommitted[bls12377fr.Element](t, ecc.BLS12_377, rand.Uint64()) })
	t.Run("bn254", func(t *testing.T) { testCommitted[bn254fr.Element](t, ecc.BN254, rand.Uint64()) })
}

// testCommittedTableClaims: with WithTableClaims on both sides, the
// native verifier and the gadget accept, return the same table claims
// (each the function table's output column at its coordinates of the
// table point), and both reject every element of the proof, the table
// values included, changed.
func testCommittedTableClaims[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 9))
	s := testSet(t)
	lk := setLookups(rng, s, 3, 5)
	m, err := native.SetMultiplicities(s, &lk)
	if err != nil {
		t.Fatal(err)
	}
	digest := []E{field.FromInt64[E, P](7), field.FromInt64[E, P](11)}
	stmt := ntranscript.New[E, P]("lookup-test", field.FromInt64[E, P](42))
	proof, pc, err := native.ProveCommitted(stmt, digest, s, &lk, m, native.WithTableClaims())
	if err != nil {
		t.Fatal(err)
	}
	if len(pc.Tables) != 1 {
		t.Fatalf("%d table claims, want 1 (the function table's outputs)", len(pc.Tables))
	}
	col := s.Tables[2].Columns[1].Values
	values := make([]E, len(col))
	for y, v := range col {
		P(&values[y]).SetInt64(v)
	}
	if want := poly.Evaluate[E, P](values, pc.Tables[0].Point); !P(&want).Equal(&pc.Tables[0].Value) {
		t.Fatal("the table claim is not the output column's evaluation")
	}
	r := &committedRun[E]{set: s, shape: lk.Shape, digest: digest, proof: proof, tables: true, want: []E{pc.Tables[0].Value}}
	if _, err := verifyCommittedNative[E, P](r); err != nil {
		t.Fatalf("native: %v", err)
	}
	if err := solveCommitted(r); err != nil {
		t.Fatalf("gadget: %v", err)
	}
	names, elems := committedElements(r)
	one := field.One[E, P]()
	for i, x := range elems {
		saved := *x
		P(x).Add(x, &one)
		rejectedByBoth[E, P](t, names[i], r)
		*x = saved
	}
	// The expected claim changed: the gadget's claim is the proof's.
	P(&r.want[0]).Add(&r.want[0], &one)
	rejectedByBoth[E, P](t, "expected table claim", r)
	t.Logf("%d elements tampered one at a time", len(elems))
}

func TestCommittedTableClaims(t *testing.T) {
	t.Run("bls12-377", testCommittedTableClaims[bls12377fr.Element])
	t.Run("bn254", testCommittedTableClaims[bn254fr.Element])
}

// combinedSet is a segment-like table set of 2¹⁶ rows: 15- and 14-bit
// ranges, an 8-bit range, a 10-bit two-column (dense) function table and a
// 4-bit range.
func combinedSet(t testing.TB) *table.Set {
	out := make([]int64, 1<<10)
	for i := range out {
		out[i] = int64(i*i) >> 8
	}
	fn, err := table.Function("exp-limb", 0, out)
	if err != nil {
		t.Fatal(err)
	}
	s, err := table.NewSet("segment", table.Range(15), table.Range(14), table.Range(8), fn, table.Range(4))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCommittedConstraintCounts compiles the committed verifier on
// BLS12-377 for lookups into a 2⁶-row and a 2¹⁶-row set, and compares
// with the snapshot in testdata. The 2¹⁶- and 2²⁰-lookup rows compile
// circuits of a few hundred thousand constraints: run with -large.
func TestCommittedConstraintCounts(t *testing.T) {
	type row struct {
		name   string
		set    *table.Set
		shape  []int
		tables bool
	}
	rows := []row{
		{"mixed64/n=4", testSet(t), []int{16}, false},
		{"mixed64/n=8", testSet(t), []int{256}, false},
		{"segment65536/n=8", combinedSet(t), []int{256}, false},
		{"segment65536/n=8/table-claims", combinedSet(t), []int{256}, true},
	}
	if *largeCircuits {
		rows = append(rows, row{"segment65536/n=16", combinedSet(t), []int{1 << 16}, false}, row{"segment65536/n=20", combinedSet(t), []int{1 << 20}, false})
	}
	records := [][]string{{"gadget", "params", "nb_constraints"}}
	for _, r := range rows {
		var opts []native.CommittedOption
		if r.tables {
			opts = append(opts, native.WithTableClaims())
		}
		ph, err := glookup.PlaceholderCommittedProof(r.set, r.shape, opts...)
		if err != nil {
			t.Fatal(err)
		}
		c := &committedCircuit{set: r.set, shape: r.shape, tables: r.tables, Digest: make([]frontend.Variable, 2), Proof: ph, Tables: make([]frontend.Variable, len(ph.TableEvals))}
		cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, c)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d R1CS constraints (BLS12-377)", r.name, cs.GetNbConstraints())
		records = append(records, []string{"lookup-committed", r.name, strconv.Itoa(cs.GetNbConstraints())})
	}
	if *largeCircuits {
		return
	}
	snapshot.CheckCSV(t, "testdata/committed_constraints.csv", records, *updateLookup)
}
