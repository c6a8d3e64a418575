package poly

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/snapshot"
	native "github.com/veriformer/veriformer/poly"
)

// update is the one -update flag of this package's tests: every snapshot test
// of the package reads it.
var update = flag.Bool("update", false, "rewrite the snapshots in testdata")

const constraintsStructuredFile = "testdata/constraints_structured.csv"

// structuredCircuit checks one structured MLE at a witness point against a
// claimed value.
type structuredCircuit struct {
	Point    []frontend.Variable
	Expected frontend.Variable `gnark:",public"`

	// tc is a pointer so that gnark's test engine, which compares circuit
	// copies with reflect.DeepEqual, sees equal copies.
	tc *structuredCase `gnark:"-"`
}

func (circuit *structuredCircuit) Define(api frontend.API) error {
	got, err := circuit.tc.eval(api, circuit.Point)
	if err != nil {
		return err
	}
	api.AssertIsEqual(got, circuit.Expected)
	return nil
}

// structuredCase is one gadget with fixed integer parameters and its native
// twin, evaluated at a point of nbVars coordinates.
type structuredCase struct {
	gadget, params string
	nbVars         int
	eval           func(api frontend.API, point []frontend.Variable) (frontend.Variable, error)
	bn             func(point []bn254fr.Element) (bn254fr.Element, error)
	bls            func(point []bls12377fr.Element) (bls12377fr.Element, error)
}

func eqIndexCase(n, idx int) structuredCase {
	return structuredCase{
		gadget: "EqIndex", params: fmt.Sprintf("n=%d idx=%d", n, idx), nbVars: n,
		eval: func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return EqIndex(api, point, idx), nil
		},
		bn: func(point []bn254fr.Element) (bn254fr.Element, error) {
			return native.EqIndex(point, idx), nil
		},
		bls: func(point []bls12377fr.Element) (bls12377fr.Element, error) {
			return native.EqIndex(point, idx), nil
		},
	}
}

func prefixCase(n, s int) structuredCase {
	return structuredCase{
		gadget: "Prefix", params: fmt.Sprintf("n=%d s=%d", n, s), nbVars: n,
		eval: func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return Prefix(api, point, s), nil
		},
		bn: func(point []bn254fr.Element) (bn254fr.Element, error) {
			return native.Prefix(point, s), nil
		},
		bls: func(point []bls12377fr.Element) (bls12377fr.Element, error) {
			return native.Prefix(point, s), nil
		},
	}
}

func zeroifierCase(l, s int) structuredCase {
	return structuredCase{
		gadget: "CausalZeroifier", params: fmt.Sprintf("l=%d s=%d", l, s), nbVars: 2 * l,
		eval: func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return CausalZeroifier(api, point, s)
		},
		bn: func(point []bn254fr.Element) (bn254fr.Element, error) {
			return native.CausalZeroifier(point, s)
		},
		bls: func(point []bls12377fr.Element) (bls12377fr.Element, error) {
			return native.CausalZeroifier(point, s)
		},
	}
}

func paddingCase(h, m int) structuredCase {
	rowVars, headVars, widthVars, err := native.PaddingVars(h, m)
	if err != nil {
		panic(err) // test table bug
	}
	return structuredCase{
		gadget: "Padding", params: fmt.Sprintf("h=%d m=%d", h, m), nbVars: rowVars + headVars + widthVars,
		eval: func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return Padding(api, point, h, m)
		},
		bn: func(point []bn254fr.Element) (bn254fr.Element, error) {
			return native.Padding(point, h, m)
		},
		bls: func(point []bls12377fr.Element) (bls12377fr.Element, error) {
			return native.Padding(point, h, m)
		},
	}
}

// paddingStrategyCase checks one evaluation strategy of the padding matrix on
// its own (without the power-of-two split), against the native Padding.
func paddingStrategyCase(h, m int, division bool) structuredCase {
	tc := paddingCase(h, m)
	rowVars, headVars, _, err := native.PaddingVars(h, m)
	if err != nil {
		panic(err) // test table bug
	}
	tc.gadget = "paddingByHeads"
	strategy := paddingByHeads
	if division {
		tc.gadget = "paddingByDivision"
		strategy = paddingByDivision
	}
	tc.eval = func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
		return strategy(api, point[:rowVars], point[rowVars:rowVars+headVars], point[rowVars+headVars:], h, m), nil
	}
	return tc
}

// structuredCircuitCases are checked on both curves with valid and invalid
// assignments: sizes around the edge cases (empty point, s = 0, s = 2ⁿ,
// non-powers of two).
func structuredCircuitCases() []structuredCase {
	var cases []structuredCase
	for _, n := range []int{0, 1, 3, 5} {
		for _, idx := range []int{-1, 0, 5 % (1 << n), 1<<n - 1, 1 << n} {
			cases = append(cases, eqIndexCase(n, idx))
		}
	}
	for _, n := range []int{0, 1, 4, 6} {
		for _, s := range []int{0, 1, 5, 37, 1<<n - 1, 1 << n} {
			cases = append(cases, prefixCase(n, s))
		}
	}
	for _, l := range []int{0, 1, 3} {
		for _, s := range []int{0, 1, 3, 5, 8} {
			cases = append(cases, zeroifierCase(l, s))
		}
	}
	for _, hm := range [][2]int{{1, 1}, {3, 5}, {4, 8}, {5, 3}, {6, 6}, {2, 7}, {12, 64}, {3, 12}} {
		cases = append(cases, paddingCase(hm[0], hm[1]))
	}
	for _, hm := range [][2]int{{1, 1}, {1, 4}, {3, 5}, {4, 3}, {5, 6}, {2, 7}, {7, 9}, {3, 75}} {
		cases = append(cases, paddingStrategyCase(hm[0], hm[1], false), paddingStrategyCase(hm[0], hm[1], true))
	}
	return cases
}

func structuredAssignments[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, tc structuredCase, evalNative func(point []E) (E, error)) (placeholder, valid, invalid *structuredCircuit, err error) {
	point := field.RandomVector[E, P](rng, tc.nbVars)
	want, err := evalNative(point)
	if err != nil {
		return nil, nil, nil, err
	}
	wrong := field.One[E, P]()
	P(&wrong).Add(&wrong, &want)
	mk := func(expected E) *structuredCircuit {
		circuit := &structuredCircuit{Point: make([]frontend.Variable, tc.nbVars), Expected: P(&expected).String(), tc: &tc}
		for k := range point {
			circuit.Point[k] = P(&point[k]).String()
		}
		return circuit
	}
	placeholder = tc.placeholder()
	return placeholder, mk(want), mk(wrong), nil
}

func (tc *structuredCase) placeholder() *structuredCircuit {
	return &structuredCircuit{Point: make([]frontend.Variable, tc.nbVars), tc: tc}
}

func TestStructuredGadgets(t *testing.T) {
	const seed = 20261122
	t.Logf("rng seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	assert := test.NewAssert(t)
	for _, tc := range structuredCircuitCases() {
		for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
			var placeholder, valid, invalid *structuredCircuit
			var err error
			if curve == ecc.BN254 {
				placeholder, valid, invalid, err = structuredAssignments[bn254fr.Element](rng, tc, tc.bn)
			} else {
				placeholder, valid, invalid, err = structuredAssignments[bls12377fr.Element](rng, tc, tc.bls)
			}
			if err != nil {
				t.Fatalf("%s %s: native: %v", tc.gadget, tc.params, err)
			}
			assert.Run(func(assert *test.Assert) {
				assert.CheckCircuit(placeholder,
					test.WithValidAssignment(valid), test.WithInvalidAssignment(invalid),
					test.WithCurves(curve), test.NoFuzzing(), test.NoSerializationChecks())
			}, tc.gadget, tc.params)
		}
	}
}

// errorCircuit compiles a structured gadget called with a malformed shape.
type errorCircuit struct {
	Point []frontend.Variable
	call  func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) `gnark:"-"`
}

func (circuit *errorCircuit) Define(api frontend.API) error {
	v, err := circuit.call(api, circuit.Point)
	if err != nil {
		return err
	}
	api.AssertIsEqual(v, 0)
	return nil
}

func TestStructuredGadgetErrors(t *testing.T) {
	calls := map[string]func(api frontend.API, point []frontend.Variable) (frontend.Variable, error){
		"zeroifier odd": func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return CausalZeroifier(api, point, 2)
		},
		"padding length": func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return Padding(api, point, 3, 5)
		},
		"padding heads": func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return Padding(api, point, 0, 5)
		},
		"padding width": func(api frontend.API, point []frontend.Variable) (frontend.Variable, error) {
			return Padding(api, point, 3, 1<<16)
		},
	}
	for name, call := range calls {
		circuit := &errorCircuit{Point: make([]frontend.Variable, 5), call: call}
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, circuit); err == nil {
			t.Errorf("%s: compiled a malformed shape", name)
		}
	}
}

// constraintCountCases are the sizes of the snapshot: small ones to read the
// per-bit costs off, real model sizes for the padding matrices.
func constraintCountCases() []structuredCase {
	var cases []structuredCase
	for _, n := range []int{1, 4, 8, 16} {
		cases = append(cases, eqIndexCase(n, 1<<n-1), eqIndexCase(n, 0))
	}
	for _, n := range []int{4, 8, 16} {
		cases = append(cases, prefixCase(n, 1<<n-1), prefixCase(n, 5))
	}
	for _, l := range []int{3, 6, 10} {
		cases = append(cases, zeroifierCase(l, 1<<l-1), zeroifierCase(l, 1<<l), zeroifierCase(l, 5))
	}
	for _, hm := range [][2]int{{1, 1}, {3, 5}, {12, 64}, {32, 128}, {25, 64}, {12, 48}, {25, 80}, {12, 96}, {3, 75}, {40, 75}} {
		cases = append(cases, paddingCase(hm[0], hm[1]))
	}
	return cases
}

func TestStructuredConstraintCounts(t *testing.T) {
	rows := [][]string{{"gadget", "params", "nb_constraints"}}
	for _, tc := range constraintCountCases() {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, tc.placeholder())
		if err != nil {
			t.Fatalf("%s %s: compile: %v", tc.gadget, tc.params, err)
		}
		rows = append(rows, []string{tc.gadget, tc.params, strconv.Itoa(ccs.GetNbConstraints())})
	}
	rows = append(rows, shiftedCounts(t)...)
	snapshot.CheckCSV(t, constraintsStructuredFile, rows, *update)
}

// structuredVectorsFile holds the golden evaluations written by the native
// package's tests.
const structuredVectorsFile = "../../poly/testdata/structured_vectors.json"

type structuredVector struct {
	Curve    string   `json:"curve"`
	Function string   `json:"function"`
	Params   []int    `json:"params"`
	Point    []string `json:"point"`
	Value    string   `json:"value"`
}

// vectorCase maps a golden vector to the case that evaluates its function.
func vectorCase(v structuredVector) (structuredCase, error) {
	want := map[string]int{"EqIndex": 2, "Prefix": 2, "CausalZeroifier": 2, "Padding": 2}
	n, ok := want[v.Function]
	if !ok || len(v.Params) != n {
		return structuredCase{}, fmt.Errorf("vector %s with params %v", v.Function, v.Params)
	}
	p := v.Params
	switch v.Function {
	case "EqIndex":
		return eqIndexCase(p[0], p[1]), nil
	case "Prefix":
		return prefixCase(p[0], p[1]), nil
	case "CausalZeroifier":
		return zeroifierCase(p[0], p[1]), nil
	default:
		return paddingCase(p[0], p[1]), nil
	}
}

// TestStructuredVectors evaluates the golden vectors of the native package in
// circuit: the recorded value is accepted, the value + 1 is not.
func TestStructuredVectors(t *testing.T) {
	data, err := os.ReadFile(structuredVectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var vectors []structuredVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatalf("%s: %v", structuredVectorsFile, err)
	}
	if len(vectors) == 0 {
		t.Fatalf("%s: no vectors", structuredVectorsFile)
	}
	curves := map[string]ecc.ID{"bn254": ecc.BN254, "bls12-377": ecc.BLS12_377}
	for _, v := range vectors {
		curve, ok := curves[v.Curve]
		if !ok {
			t.Fatalf("vector on unknown curve %q", v.Curve)
		}
		tc, err := vectorCase(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Point) != tc.nbVars {
			t.Fatalf("%s %v: %d coordinates, want %d", v.Function, v.Params, len(v.Point), tc.nbVars)
		}
		assignment := func(value string) *structuredCircuit {
			circuit := &structuredCircuit{Point: make([]frontend.Variable, len(v.Point)), Expected: value, tc: &tc}
			for k, x := range v.Point {
				circuit.Point[k] = x
			}
			return circuit
		}
		modulus := curve.ScalarField()
		value, ok := new(big.Int).SetString(v.Value, 10)
		if !ok {
			t.Fatalf("%s %v: value %q", v.Function, v.Params, v.Value)
		}
		wrong := new(big.Int).Add(value, big.NewInt(1))
		wrong.Mod(wrong, modulus)
		if err := test.IsSolved(tc.placeholder(), assignment(v.Value), modulus); err != nil {
			t.Errorf("%s %s %v: golden value rejected: %v", v.Curve, v.Function, v.Params, err)
		}
		if err := test.IsSolved(tc.placeholder(), assignment(wrong.String()), modulus); err == nil {
			t.Errorf("%s %s %v: golden value + 1 accepted", v.Curve, v.Function, v.Params)
		}
	}
}
