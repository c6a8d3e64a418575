package sumcheck

import (
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
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	nativepoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/sumcheck"
	nativetranscript "github.com/veriformer/veriformer/transcript"
)

// zeroTerm is a relation term with an integer coefficient, converted to
// either world.
type zeroTerm struct {
	coefficient int64
	factors     []int
}

// zeroCase is an element-wise relation and a generator of tables that
// satisfy it.
type zeroCase struct {
	name     string
	relation []zeroTerm
	tables   func(rng *rand.Rand, size int) [][]int64
}

func zeroCases() []zeroCase {
	const s = 12
	return []zeroCase{
		{
			// Requantization: y·2ˢ + rem = acc, tables (y, rem, acc).
			name:     "requantization",
			relation: []zeroTerm{{1 << s, []int{0}}, {1, []int{1}}, {-1, []int{2}}},
			tables: func(rng *rand.Rand, size int) [][]int64 {
				y, rem, acc := make([]int64, size), make([]int64, size), make([]int64, size)
				for i := range y {
					y[i], rem[i] = rng.Int64N(1<<16)-1<<15, rng.Int64N(1<<s)
					acc[i] = y[i]<<s + rem[i]
				}
				return [][]int64{y, rem, acc}
			},
		},
		{
			// Residual add: z = x + y, tables (x, y, z).
			name:     "residual",
			relation: []zeroTerm{{1, []int{2}}, {-1, []int{0}}, {-1, []int{1}}},
			tables: func(rng *rand.Rand, size int) [][]int64 {
				x, y, z := make([]int64, size), make([]int64, size), make([]int64, size)
				for i := range x {
					x[i], y[i] = rng.Int64N(1<<20)-1<<19, rng.Int64N(1<<20)-1<<19
					z[i] = x[i] + y[i]
				}
				return [][]int64{x, y, z}
			},
		},
		{
			// Masked gated product: out = mask·gate·up (degree 3),
			// tables (mask, gate, up, out).
			name:     "gated",
			relation: []zeroTerm{{1, []int{3}}, {-1, []int{0, 1, 2}}},
			tables: func(rng *rand.Rand, size int) [][]int64 {
				m, g, u, o := make([]int64, size), make([]int64, size), make([]int64, size), make([]int64, size)
				for i := range m {
					m[i], g[i], u[i] = rng.Int64N(2), rng.Int64N(1<<10)-1<<9, rng.Int64N(1<<10)-1<<9
					o[i] = m[i] * g[i] * u[i]
				}
				return [][]int64{m, g, u, o}
			},
		},
	}
}

func nativeRelation[E field.Scalar, P field.Ptr[E]](rel []zeroTerm) []native.Term[E] {
	out := make([]native.Term[E], len(rel))
	for k, t := range rel {
		out[k] = native.Term[E]{Coefficient: field.FromInt64[E, P](t.coefficient), Factors: t.factors}
	}
	return out
}

func gadgetRelation(rel []zeroTerm) []Term {
	out := make([]Term, len(rel))
	for k, t := range rel {
		out[k] = Term{Coefficient: t.coefficient, Factors: t.factors}
	}
	return out
}

func maxFactors(rel []zeroTerm) int {
	d := 0
	for _, t := range rel {
		d = max(d, len(t.factors))
	}
	return d
}

// zeroCircuit verifies a zero-check; with check set it also compares the
// output claims with the native ones.
type zeroCircuit struct {
	relation []zeroTerm `gnark:"-"`
	check    bool       `gnark:"-"`
	Proof    ZeroCheckProof
	Values   []frontend.Variable
	Point    []frontend.Variable
}

func (c *zeroCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "zero-test", 42)
	if err != nil {
		return err
	}
	claims, err := VerifyZero(api, tr, gadgetRelation(c.relation), c.Proof)
	if err != nil {
		return err
	}
	if c.check {
		for i := range claims {
			api.AssertIsEqual(claims[i].Value, c.Values[i])
			for k := range claims[i].Point {
				api.AssertIsEqual(claims[i].Point[k], c.Point[k])
			}
		}
	}
	return nil
}

// zeroRun is a zero-check proof and what both verifiers are given.
type zeroRun[E field.Scalar] struct {
	relation []zeroTerm
	nbVars   int
	nbTables int
	proof    *native.ZeroCheckProof[E]
}

func (r *zeroRun[E]) circuits(check bool, values, point []frontend.Variable) (placeholder, assignment *zeroCircuit) {
	placeholder = &zeroCircuit{relation: r.relation, check: check, Proof: PlaceholderZeroCheckProof(r.nbVars, r.nbTables, maxFactors(r.relation)),
		Values: make([]frontend.Variable, r.nbTables), Point: make([]frontend.Variable, r.nbVars)}
	if values == nil {
		values, point = zeroVars(r.nbTables), zeroVars(r.nbVars)
	}
	assignment = &zeroCircuit{relation: r.relation, check: check, Proof: ValueOfZeroCheckProof(r.proof), Values: values, Point: point}
	return placeholder, assignment
}

func zeroVars(n int) []frontend.Variable {
	out := make([]frontend.Variable, n)
	for i := range out {
		out[i] = 0
	}
	return out
}

func zeroStatement[E field.Scalar, P field.Ptr[E]]() *nativetranscript.Transcript[E, P] {
	return nativetranscript.New[E, P]("zero-test", field.FromInt64[E, P](42))
}

func proveZero[E field.Scalar, P field.Ptr[E]](t *testing.T, tc zeroCase, tables [][]int64) *zeroRun[E] {
	t.Helper()
	ft := make([][]E, len(tables))
	for i := range tables {
		ft[i] = make([]E, len(tables[i]))
		for j, v := range tables[i] {
			P(&ft[i][j]).SetInt64(v)
		}
	}
	proof, claims, err := native.ProveZero(zeroStatement[E, P](), ft, nativeRelation[E, P](tc.relation))
	if err != nil {
		t.Fatal(err)
	}
	// The claims are the tables' evaluations at the end point.
	for i := range claims {
		want := nativepoly.Evaluate[E, P](ft[i], claims[i].Point)
		if !P(&want).Equal(&claims[i].Value) {
			t.Fatalf("claim %d is not the table's evaluation", i)
		}
	}
	n := 0
	for 1<<n < len(tables[0]) {
		n++
	}
	return &zeroRun[E]{relation: tc.relation, nbVars: n, nbTables: len(tables), proof: proof}
}

func verifyZeroNative[E field.Scalar, P field.Ptr[E]](r *zeroRun[E]) error {
	_, err := native.VerifyZero(zeroStatement[E, P](), r.nbVars, r.nbTables, nativeRelation[E, P](r.relation), r.proof)
	return err
}

// zeroRejectedByBoth fails the test unless the native verifier and the
// gadget both reject the run.
func zeroRejectedByBoth[E field.Scalar, P field.Ptr[E]](t *testing.T, what string, r *zeroRun[E]) {
	t.Helper()
	if verifyZeroNative[E, P](r) == nil {
		t.Errorf("%s: accepted by the native verifier", what)
	}
	placeholder, assignment := r.circuits(false, nil, nil)
	if test.IsSolved(placeholder, assignment, field.Modulus[E]()) == nil {
		t.Errorf("%s: accepted by the gadget", what)
	}
}

func testZeroCheck[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, tc := range zeroCases() {
		t.Run(tc.name, func(t *testing.T) {
			tables := tc.tables(rng, 1<<5)
			r := proveZero[E, P](t, tc, tables)
			if err := verifyZeroNative[E, P](r); err != nil {
				t.Fatalf("honest proof rejected: %v", err)
			}
			claims, err := native.VerifyZero(zeroStatement[E, P](), r.nbVars, r.nbTables, nativeRelation[E, P](tc.relation), r.proof)
			if err != nil {
				t.Fatal(err)
			}
			placeholder, assignment := r.circuits(true, poly.ValuesOf(r.proof.Evaluations), poly.ValuesOf(claims[0].Point))
			if err := test.IsSolved(placeholder, assignment, field.Modulus[E]()); err != nil {
				t.Fatalf("honest proof rejected by the gadget: %v", err)
			}
			// Every round value and every evaluation, tampered.
			one := field.One[E, P]()
			count := 0
			tamper := func(what string, x *E) {
				saved := *x
				P(x).Add(x, &one)
				zeroRejectedByBoth[E, P](t, what, r)
				*x = saved
				count++
			}
			for i := range r.proof.SumCheck.Rounds {
				for k := range r.proof.SumCheck.Rounds[i] {
					tamper(fmt.Sprintf("round %d value %d", i, k), &r.proof.SumCheck.Rounds[i][k])
				}
			}
			for i := range r.proof.Evaluations {
				tamper(fmt.Sprintf("evaluation %d", i), &r.proof.Evaluations[i])
			}
			if err := verifyZeroNative[E, P](r); err != nil {
				t.Fatalf("restored proof rejected: %v", err)
			}
			// The relation broken at one point of the cube: the honest
			// prover's proof is rejected.
			for _, at := range []int{0, 17, len(tables[0]) - 1} {
				last := len(tables) - 1
				tables[last][at]++
				zeroRejectedByBoth[E, P](t, fmt.Sprintf("relation broken at %d", at), proveZero[E, P](t, tc, tables))
				tables[last][at]--
			}
			t.Logf("%d elements tampered", count)
		})
	}
}

// TestZeroCheck: zero-checks of the requantization identity, a residual
// add and a masked gated product are accepted by the native verifier and
// the gadget with the same claims; every round value and evaluation
// tampered, and tables that break the relation at one point, are rejected
// by both.
func TestZeroCheck(t *testing.T) {
	t.Run("bls12-377", func(t *testing.T) { testZeroCheck[bls12377fr.Element](t, rand.Uint64()) })
	t.Run("bn254", func(t *testing.T) { testZeroCheck[bn254fr.Element](t, rand.Uint64()) })
}

// TestZeroCheckConstraints compiles the zero-check verifier on BLS12-377
// and compares with testdata/zerocheck_constraints.csv.
func TestZeroCheckConstraints(t *testing.T) {
	records := [][]string{{"circuit", "constraints"}}
	for _, tc := range zeroCases() {
		for _, n := range []int{10, 20} {
			c := &zeroCircuit{relation: tc.relation, Proof: PlaceholderZeroCheckProof(n, relationTables(tc.relation), maxFactors(tc.relation))}
			cs, err := frontend.Compile(ecc.BLS12_377.ScalarField(), r1cs.NewBuilder, c)
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, []string{fmt.Sprintf("zerocheck/%s/nbVars=%d", tc.name, n), strconv.Itoa(cs.GetNbConstraints())})
		}
	}
	snapshot.CheckCSV(t, "testdata/zerocheck_constraints.csv", records, *update)
}

func relationTables(rel []zeroTerm) int {
	n := 0
	for _, t := range rel {
		for _, j := range t.factors {
			n = max(n, j+1)
		}
	}
	return n
}
