package poly

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	native "github.com/veriformer/veriformer/poly"
)

type eqCircuit struct {
	A, B     []frontend.Variable
	Table    []frontend.Variable
	Eq, Eval frontend.Variable `gnark:",public"`
}

func (c *eqCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(Eq(api, c.A, c.B), c.Eq)
	api.AssertIsEqual(EvaluateDense(api, c.Table, c.A), c.Eval)
	return nil
}

func eqAssignments[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, n int) (placeholder, valid *eqCircuit, invalid []*eqCircuit) {
	a := field.RandomVector[E, P](rng, n)
	b := field.RandomVector[E, P](rng, n)
	table := field.RandomVector[E, P](rng, 1<<n)
	eq := native.Eq[E, P](a, b)
	eval := native.Evaluate[E, P](table, a)
	toVars := func(xs []E) []frontend.Variable {
		out := make([]frontend.Variable, len(xs))
		for i := range xs {
			out[i] = P(&xs[i]).String()
		}
		return out
	}
	mk := func() *eqCircuit {
		return &eqCircuit{A: toVars(a), B: toVars(b), Table: toVars(table), Eq: P(&eq).String(), Eval: P(&eval).String()}
	}
	placeholder = &eqCircuit{A: make([]frontend.Variable, n), B: make([]frontend.Variable, n), Table: make([]frontend.Variable, 1<<n)}
	valid = mk()
	bad := mk()
	bad.Eq = 1
	invalid = append(invalid, bad)
	bad = mk()
	bad.Eval = 0
	invalid = append(invalid, bad)
	bad = mk()
	bad.B[n-1] = 2
	invalid = append(invalid, bad)
	return placeholder, valid, invalid
}

func TestEqAndEvaluateDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	assert := test.NewAssert(t)
	for _, n := range []int{1, 3, 5} {
		for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
			var placeholder, valid *eqCircuit
			var invalid []*eqCircuit
			if curve == ecc.BN254 {
				placeholder, valid, invalid = eqAssignments[bn254fr.Element](rng, n)
			} else {
				placeholder, valid, invalid = eqAssignments[bls12377fr.Element](rng, n)
			}
			opts := []test.TestingOption{test.WithValidAssignment(valid), test.WithCurves(curve), test.NoFuzzing(), test.NoSerializationChecks()}
			for _, bad := range invalid {
				opts = append(opts, test.WithInvalidAssignment(bad))
			}
			assert.CheckCircuit(placeholder, opts...)
		}
	}
}

type tensorCircuit struct {
	idx    []int `gnark:"-"`
	Values []frontend.Variable
	Point  []frontend.Variable
	Eval   frontend.Variable `gnark:",public"`
}

func (c *tensorCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(EvaluateTensor(api, c.Values, c.idx, c.Point), c.Eval)
	return nil
}

func TestEvaluateTensor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	shape := []int{3, 5}
	idx, _ := native.PaddedIndices(shape)
	vals := make([]int64, 15)
	for i := range vals {
		vals[i] = rng.Int64N(200) - 100
	}
	point := field.RandomVector[bn254fr.Element](rng, 5)
	eval, err := native.EvaluateTensor[bn254fr.Element](vals, shape, point)
	if err != nil {
		t.Fatal(err)
	}
	assign := func(e bn254fr.Element) *tensorCircuit {
		c := &tensorCircuit{idx: idx, Eval: e.String()}
		for _, v := range vals {
			c.Values = append(c.Values, v)
		}
		for i := range point {
			c.Point = append(c.Point, point[i].String())
		}
		return c
	}
	var wrong bn254fr.Element
	wrong.SetOne()
	wrong.Add(&wrong, &eval)
	test.NewAssert(t).CheckCircuit(&tensorCircuit{idx: idx, Values: make([]frontend.Variable, 15), Point: make([]frontend.Variable, 5)},
		test.WithValidAssignment(assign(eval)), test.WithInvalidAssignment(assign(wrong)),
		test.WithCurves(ecc.BN254), test.NoFuzzing(), test.NoSerializationChecks())
}
