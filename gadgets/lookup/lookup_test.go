package lookup_test

import (
	"flag"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	glookup "github.com/veriformer/veriformer/gadgets/lookup"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	native "github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var (
	updateLookup  = flag.Bool("update", false, "rewrite the constraint-count snapshot")
	largeCircuits = flag.Bool("large", false, "also compile the committed verifier for 2^16 and 2^20 lookups")
)

type lookupCircuit struct {
	tbl    *table.Table `gnark:"-"`
	shape  []int        `gnark:"-"`
	Proof  glookup.Proof
	Claims []frontend.Variable `gnark:",public"`
	Point  []frontend.Variable `gnark:",public"`
}

func (c *lookupCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "lookup-test", 42)
	if err != nil {
		return err
	}
	claims, err := glookup.Verify(api, tr, c.tbl, c.shape, c.Proof)
	if err != nil {
		return err
	}
	for i := range claims {
		api.AssertIsEqual(claims[i].Value, c.Claims[i])
		for k := range claims[i].Point {
			api.AssertIsEqual(claims[i].Point[k], c.Point[k])
		}
	}
	return nil
}

func square(x int64) int64 { return x * x }

func lookupCases(rng *rand.Rand) []struct {
	tbl table.Table
	lk  native.Lookups
} {
	fn, _ := table.Function("square", -4, []int64{16, 9, 4, 1, 0, 1, 4, 9, 16})
	xs := []int64{-4, 3, 0, 2, 4}
	ys := make([]int64, len(xs))
	for i := range xs {
		ys[i] = square(xs[i])
	}
	col := make([]int64, 6)
	for i := range col {
		col[i] = rng.Int64N(8)
	}
	return []struct {
		tbl table.Table
		lk  native.Lookups
	}{
		{table.Range(3), native.Lookups{Shape: []int{2, 3}, Columns: [][]int64{col}}},
		{table.Range(3), native.Lookups{Shape: []int{1}, Columns: [][]int64{{5}}}},
		{fn, native.Lookups{Shape: []int{5}, Columns: [][]int64{xs, ys}}},
	}
}

func circuitFor[E field.Scalar, P field.Ptr[E]](t *testing.T, tbl *table.Table, lk *native.Lookups) (placeholder, valid *lookupCircuit, proof *native.Proof[E]) {
	stmt := ntranscript.New[E, P]("lookup-test", field.FromInt64[E, P](42))
	proof, claims, err := native.Prove(stmt, tbl, lk)
	if err != nil {
		t.Fatal(err)
	}
	ph, err := glookup.PlaceholderProof(tbl, lk.Shape)
	if err != nil {
		t.Fatal(err)
	}
	placeholder = &lookupCircuit{tbl: tbl, shape: lk.Shape, Proof: ph,
		Claims: make([]frontend.Variable, len(claims)), Point: make([]frontend.Variable, len(claims[0].Point))}
	valid = &lookupCircuit{tbl: tbl, shape: lk.Shape, Proof: glookup.ValueOfProof(proof)}
	for i := range claims {
		valid.Claims = append(valid.Claims[:i], P(&claims[i].Value).String())
	}
	for k := range claims[0].Point {
		valid.Point = append(valid.Point, P(&claims[0].Point[k]).String())
	}
	return placeholder, valid, proof
}

// TestVerify: the circuit accepts native proofs, outputs the native claims,
// and rejects each proof element and each multiplicity tampered alone.
func TestVerify(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		for i, tc := range lookupCases(rng) {
			t.Run(fmt.Sprintf("%s/%d", curve, i), func(t *testing.T) {
				var placeholder, valid *lookupCircuit
				var tamper func(f func())
				if curve == ecc.BN254 {
					var proof *native.Proof[bn254fr.Element]
					placeholder, valid, proof = circuitFor[bn254fr.Element](t, &tc.tbl, &tc.lk)
					tamper = tamperer(proof, func() { valid.Proof = glookup.ValueOfProof(proof) })
				} else {
					var proof *native.Proof[bls12377fr.Element]
					placeholder, valid, proof = circuitFor[bls12377fr.Element](t, &tc.tbl, &tc.lk)
					tamper = tamperer(proof, func() { valid.Proof = glookup.ValueOfProof(proof) })
				}
				honest := *valid
				opts := []test.TestingOption{test.WithValidAssignment(&honest), test.WithCurves(curve), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks()}
				count := 0
				tamper(func() {
					bad := *valid
					opts = append(opts, test.WithInvalidAssignment(&bad))
					count++
				})
				wrongClaim := honest
				wrongClaim.Claims = append([]frontend.Variable{"1"}, honest.Claims[1:]...)
				opts = append(opts, test.WithInvalidAssignment(&wrongClaim))
				t.Logf("%d tampered assignments", count)
				test.NewAssert(t).CheckCircuit(placeholder, opts...)
			})
		}
	}
}

// tamperer returns a function that, for every field element and every
// multiplicity of the proof, changes it, refreshes the assignment, calls
// f, and restores it.
func tamperer[E field.Scalar, P field.Ptr[E]](proof *native.Proof[E], refresh func()) func(f func()) {
	return func(f func()) {
		elems := []*E{}
		tree := func(fp *native.FractionProof[E]) {
			for i := range fp.Root {
				elems = append(elems, &fp.Root[i])
			}
			for j := range fp.Layers {
				for r := range fp.Layers[j].SumCheck.Rounds {
					for k := range fp.Layers[j].SumCheck.Rounds[r] {
						elems = append(elems, &fp.Layers[j].SumCheck.Rounds[r][k])
					}
				}
				for i := range fp.Layers[j].Evals {
					elems = append(elems, &fp.Layers[j].Evals[i])
				}
			}
		}
		tree(&proof.Witness)
		tree(&proof.Table)
		for i := range proof.ColumnEvals {
			elems = append(elems, &proof.ColumnEvals[i])
		}
		one := field.One[E, P]()
		for _, x := range elems {
			saved := *x
			P(x).Add(x, &one)
			refresh()
			f()
			*x = saved
		}
		for i := range proof.Multiplicities {
			proof.Multiplicities[i]++
			refresh()
			f()
			proof.Multiplicities[i]--
		}
		refresh()
	}
}

// A multiplicity of 2³² or more would make the packing ambiguous: the
// range check rejects it even when the packed element is unchanged
// (m₀ + 2³², m₁ − 1).
func TestMultiplicityRange(t *testing.T) {
	tbl := table.Range(3)
	lk := native.Lookups{Shape: []int{4}, Columns: [][]int64{{1, 1, 0, 5}}}
	placeholder, valid, _ := circuitFor[bn254fr.Element](t, &tbl, &lk)
	bad := *valid
	bad.Proof.Multiplicities = append([]frontend.Variable(nil), valid.Proof.Multiplicities...)
	m0, _ := new(big.Int).SetString(fmt.Sprint(valid.Proof.Multiplicities[0]), 10)
	m1, _ := new(big.Int).SetString(fmt.Sprint(valid.Proof.Multiplicities[1]), 10)
	bad.Proof.Multiplicities[0] = new(big.Int).Add(m0, new(big.Int).Lsh(big.NewInt(1), 32))
	bad.Proof.Multiplicities[1] = new(big.Int).Sub(m1, big.NewInt(1))
	test.NewAssert(t).CheckCircuit(placeholder, test.WithValidAssignment(valid), test.WithInvalidAssignment(&bad),
		test.WithCurves(ecc.BN254), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
}

// TestConstraintCounts compiles the verifier for a few witness and table
// sizes and compares with the snapshot in testdata.
func TestConstraintCounts(t *testing.T) {
	type row struct {
		name        string
		shape       []int
		tbl         table.Table
		constraints int
	}
	fn8 := make([]int64, 256)
	fn, _ := table.Function("dense8", -128, fn8)
	rows := []row{
		{name: "range8/n=4", shape: []int{16}, tbl: table.Range(8)},
		{name: "range8/n=8", shape: []int{256}, tbl: table.Range(8)},
		{name: "range8/n=12", shape: []int{4096}, tbl: table.Range(8)},
		{name: "range12/n=12", shape: []int{4096}, tbl: table.Range(12)},
		{name: "function8/n=8", shape: []int{256}, tbl: fn},
	}
	for i := range rows {
		ph, err := glookup.PlaceholderProof(&rows[i].tbl, rows[i].shape)
		if err != nil {
			t.Fatal(err)
		}
		c := &lookupCircuit{tbl: &rows[i].tbl, shape: rows[i].shape, Proof: ph, Claims: make([]frontend.Variable, len(rows[i].tbl.Columns)), Point: make([]frontend.Variable, bits.Len(uint(rows[i].shape[0]-1)))}
		cs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
		if err != nil {
			t.Fatal(err)
		}
		rows[i].constraints = cs.GetNbConstraints()
		t.Logf("%s: %d R1CS constraints", rows[i].name, rows[i].constraints)
	}
	records := [][]string{{"gadget", "params", "nb_constraints"}}
	for _, r := range rows {
		records = append(records, []string{"lookup", r.name, strconv.Itoa(r.constraints)})
	}
	snapshot.CheckCSV(t, "testdata/constraints.csv", records, *updateLookup)
}
