package poly

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

// structuredSeed seeds every randomized test of this file; it is printed so a
// failure can be replayed.
const structuredSeed = 20261122

func structuredRNG(t testing.TB) *rand.Rand {
	t.Logf("rng seed %d", structuredSeed)
	return rand.New(rand.NewPCG(structuredSeed, 0x5eed))
}

// denseTable turns a 0/1 (or small integer) table built with plain integers
// into field elements.
func denseTable[E field.Scalar, P field.Ptr[E]](ints []int64) []E {
	t := make([]E, len(ints))
	for i, v := range ints {
		t[i] = field.FromInt64[E, P](v)
	}
	return t
}

// checkAgainstTable compares a closed form with the dense table at random
// points (through Evaluate) and at the points of the hypercube (all of them
// for tables of up to 1024 entries).
func checkAgainstTable[E field.Scalar, P field.Ptr[E]](t *testing.T, rng *rand.Rand, name string, table []E, closed func(point []E) (E, error)) {
	t.Helper()
	n := 0
	for 1<<n < len(table) {
		n++
	}
	for trial := range 3 {
		point := field.RandomVector[E, P](rng, n)
		got, err := closed(point)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := Evaluate[E, P](table, point)
		if !P(&got).Equal(&want) {
			t.Fatalf("%s, random point %d: closed form %s, dense %s", name, trial, P(&got).String(), P(&want).String())
		}
	}
	for x := range table {
		// Large tables: every nonzero entry and a random 1/16 of the rest.
		if len(table) > 1024 && P(&table[x]).IsZero() && rng.IntN(16) != 0 {
			continue
		}
		point := make([]E, n)
		for k := range point {
			point[k] = field.FromInt64[E, P](int64(bitFromTop(x, n, k)))
		}
		got, err := closed(point)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !P(&got).Equal(&table[x]) {
			t.Fatalf("%s, hypercube index %d: closed form %s, table %s", name, x, P(&got).String(), P(&table[x]).String())
		}
	}
}

func forBothFields(t *testing.T, run func(t *testing.T, bn bool)) {
	t.Run("bn254", func(t *testing.T) { run(t, true) })
	t.Run("bls12-377", func(t *testing.T) { run(t, false) })
}

func TestEqIndex(t *testing.T) {
	forBothFields(t, func(t *testing.T, bn bool) {
		if bn {
			testEqIndex[bn254fr.Element](t)
		} else {
			testEqIndex[bls12377fr.Element](t)
		}
	})
}

func testEqIndex[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := structuredRNG(t)
	for n := range 7 {
		for idx := -1; idx <= 1<<n; idx++ {
			ints := make([]int64, 1<<n)
			if idx >= 0 && idx < 1<<n {
				ints[idx] = 1
			}
			checkAgainstTable[E, P](t, rng, fmt.Sprintf("n=%d idx=%d", n, idx), denseTable[E, P](ints), func(point []E) (E, error) {
				return EqIndex[E, P](point, idx), nil
			})
		}
	}
}

func TestPrefix(t *testing.T) {
	forBothFields(t, func(t *testing.T, bn bool) {
		if bn {
			testPrefix[bn254fr.Element](t)
		} else {
			testPrefix[bls12377fr.Element](t)
		}
	})
}

func testPrefix[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := structuredRNG(t)
	for n := range 7 {
		for s := -1; s <= 1<<n+1; s++ {
			ints := make([]int64, 1<<n)
			for x := range ints {
				if x < s {
					ints[x] = 1
				}
			}
			checkAgainstTable[E, P](t, rng, fmt.Sprintf("n=%d s=%d", n, s), denseTable[E, P](ints), func(point []E) (E, error) {
				return Prefix[E, P](point, s), nil
			})
		}
	}
}

// causalInts is the padded zeroifier over 2^l × 2^l, index i·2^l + j.
func causalInts(l, s int) []int64 {
	side := 1 << l
	ints := make([]int64, side*side)
	for i := range side {
		for j := range side {
			if i < s && j < s && i >= j {
				ints[i*side+j] = 1
			}
		}
	}
	return ints
}

func TestCausal(t *testing.T) {
	forBothFields(t, func(t *testing.T, bn bool) {
		if bn {
			testCausal[bn254fr.Element](t)
		} else {
			testCausal[bls12377fr.Element](t)
		}
	})
}

func testCausal[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := structuredRNG(t)
	for l := range 4 {
		for s := -1; s <= 1<<l+1; s++ {
			z := denseTable[E, P](causalInts(l, s))
			checkAgainstTable[E, P](t, rng, fmt.Sprintf("zeroifier l=%d s=%d", l, s), z, func(point []E) (E, error) {
				return CausalZeroifier[E, P](point, s)
			})
		}
	}
}

// paddingInts is the padding matrix (index c·ĥm̂ + J) built entry by entry
// from the definition of seed 002.
func paddingInts(h, m int) []int64 {
	rows := 1 << Log2Ceil(h*m)
	hh, mm := 1<<Log2Ceil(h), 1<<Log2Ceil(m)
	cols := hh * mm
	ints := make([]int64, rows*cols)
	for c := range rows {
		for col := range cols {
			i, j := col/mm, col%mm
			if i < h && j < m && c == i*m+j {
				ints[c*cols+col] = 1
			}
		}
	}
	return ints
}

func TestPadding(t *testing.T) {
	forBothFields(t, func(t *testing.T, bn bool) {
		if bn {
			testPadding[bn254fr.Element](t)
		} else {
			testPadding[bls12377fr.Element](t)
		}
	})
}

func testPadding[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := structuredRNG(t)
	for h := 1; h <= 7; h++ {
		for m := 1; m <= 9; m++ {
			name := fmt.Sprintf("h=%d m=%d", h, m)
			checkAgainstTable[E, P](t, rng, "padding "+name, denseTable[E, P](paddingInts(h, m)), func(point []E) (E, error) {
				return Padding[E, P](point, h, m)
			})
		}
	}
	// Each evaluation strategy on its own, for every m (the dispatch of
	// Padding picks one by cost and strips the factor 2ᵃ of m first).
	for h := 1; h <= 7; h++ {
		for m := 1; m <= 9; m++ {
			rowVars, headVars, _, err := PaddingVars(h, m)
			if err != nil {
				t.Fatal(err)
			}
			split := func(point []E) (rc, ri, rj []E) {
				return point[:rowVars], point[rowVars : rowVars+headVars], point[rowVars+headVars:]
			}
			table := denseTable[E, P](paddingInts(h, m))
			name := fmt.Sprintf("h=%d m=%d", h, m)
			checkAgainstTable[E, P](t, rng, "padding by heads "+name, table, func(point []E) (E, error) {
				rc, ri, rj := split(point)
				return paddingByHeads[E, P](rc, ri, rj, h, m), nil
			})
			checkAgainstTable[E, P](t, rng, "padding by division "+name, table, func(point []E) (E, error) {
				rc, ri, rj := split(point)
				return paddingByDivision[E, P](rc, ri, rj, h, m), nil
			})
		}
	}
	// Sizes of real models, at random points only (the tables are large).
	for _, hm := range [][2]int{{12, 24}, {5, 96}, {3, 100}} {
		h, m := hm[0], hm[1]
		table := denseTable[E, P](paddingInts(h, m))
		rowVars, headVars, widthVars, err := PaddingVars(h, m)
		if err != nil {
			t.Fatal(err)
		}
		point := field.RandomVector[E, P](rng, rowVars+headVars+widthVars)
		got, err := Padding[E, P](point, h, m)
		if err != nil {
			t.Fatal(err)
		}
		if want := Evaluate[E, P](table, point); !P(&got).Equal(&want) {
			t.Fatalf("padding h=%d m=%d: closed form %s, dense %s", h, m, P(&got).String(), P(&want).String())
		}
	}
}

func TestStructuredErrors(t *testing.T) {
	type E = bn254fr.Element
	point := make([]E, 5)
	if _, err := CausalZeroifier(point, 3); err == nil {
		t.Error("zeroifier accepted an odd number of variables")
	}
	for _, hm := range [][2]int{{0, 4}, {4, 0}, {-1, 3}, {1 << 16, 1}} {
		if _, _, _, err := PaddingVars(hm[0], hm[1]); err == nil {
			t.Errorf("padding shape h=%d m=%d accepted", hm[0], hm[1])
		}
		if _, err := Padding(point, hm[0], hm[1]); err == nil {
			t.Errorf("padding h=%d m=%d accepted", hm[0], hm[1])
		}
	}
	// h = 3, m = 5: 4 + 2 + 3 = 9 coordinates.
	if _, err := Padding(point, 3, 5); err == nil {
		t.Error("padding accepted a point of the wrong length")
	}
}

func benchmarkPadding[E field.Scalar, P field.Ptr[E]](b *testing.B, h, m int) {
	rng := rand.New(rand.NewPCG(structuredSeed, 1))
	rowVars, headVars, widthVars, err := PaddingVars(h, m)
	if err != nil {
		b.Fatal(err)
	}
	point := field.RandomVector[E, P](rng, rowVars+headVars+widthVars)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Padding[E, P](point, h, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPadding(b *testing.B) {
	for _, hm := range [][2]int{{12, 64}, {32, 128}, {12, 48}, {25, 80}, {3, 75}, {40, 75}} {
		b.Run(fmt.Sprintf("bn254/h=%d/m=%d", hm[0], hm[1]), func(b *testing.B) {
			benchmarkPadding[bn254fr.Element](b, hm[0], hm[1])
		})
	}
}

func BenchmarkCausalZeroifier(b *testing.B) {
	rng := rand.New(rand.NewPCG(structuredSeed, 2))
	point := field.RandomVector[bn254fr.Element](rng, 20)
	for b.Loop() {
		if _, err := CausalZeroifier(point, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

// The causal zeroifier of a 4×4 matrix holding s = 3 tokens, read back at the
// Boolean points (bits(i) ‖ bits(j)): row variables first, most significant
// bit first.
func ExampleCausalZeroifier() {
	type E = bn254fr.Element
	const l, s = 2, 3
	for i := range 1 << l {
		row := make([]string, 1<<l)
		for j := range 1 << l {
			point := make([]E, 2*l)
			for k := range l {
				point[k].SetUint64(uint64(i>>(l-1-k)) & 1)
				point[l+k].SetUint64(uint64(j>>(l-1-k)) & 1)
			}
			z, err := CausalZeroifier(point, s)
			if err != nil {
				fmt.Println(err)
				return
			}
			row[j] = z.String()
		}
		fmt.Println(strings.Join(row, " "))
	}
	// Output:
	// 1 0 0 0
	// 1 1 0 0
	// 1 1 1 0
	// 0 0 0 0
}

// The golden vectors are rewritten by go test -update. Another test file of
// this package may define the same flag as a package variable, which is
// initialized before any init function runs: define it only if nobody has.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden vectors in testdata")
	}
}

// updateStructuredVectors reports whether -update was given.
func updateStructuredVectors() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// structuredVectorsFile holds evaluations of the structured MLEs at fixed
// points, shared with the in-circuit tests of gadgets/poly.
const structuredVectorsFile = "testdata/structured_vectors.json"

// structuredVector is one golden evaluation: Function (an exported name of
// this file) with integer Params at Point (decimal field elements) and the
// expected Value.
type structuredVector struct {
	Curve    string   `json:"curve"`
	Function string   `json:"function"`
	Params   []int    `json:"params"`
	Point    []string `json:"point"`
	Value    string   `json:"value"`
}

// structuredVectorSpecs are the functions and parameters of the golden
// vectors (params in the order of the function's integer arguments).
var structuredVectorSpecs = []struct {
	function string
	params   []int
}{
	{"EqIndex", []int{5, 19}}, // n, idx
	{"EqIndex", []int{10, 700}},
	{"Prefix", []int{6, 37}}, // n, s
	{"Prefix", []int{10, 1000}},
	{"CausalZeroifier", []int{3, 5}}, // ℓ, s
	{"CausalZeroifier", []int{5, 20}},
	{"Padding", []int{12, 64}}, // h, m
	{"Padding", []int{3, 5}},
	{"Padding", []int{12, 48}},
	{"Padding", []int{3, 75}},
}

// structuredVectorVars returns the number of variables of a golden vector.
func structuredVectorVars(function string, params []int) (int, error) {
	switch function {
	case "EqIndex", "Prefix":
		return params[0], nil
	case "CausalZeroifier":
		return 2 * params[0], nil
	case "Padding":
		rowVars, headVars, widthVars, err := PaddingVars(params[0], params[1])
		return rowVars + headVars + widthVars, err
	}
	return 0, fmt.Errorf("unknown function %q", function)
}

// evalStructured evaluates a golden vector's function with the closed form.
func evalStructured[E field.Scalar, P field.Ptr[E]](function string, params []int, point []E) (E, error) {
	switch function {
	case "EqIndex":
		return EqIndex[E, P](point, params[1]), nil
	case "Prefix":
		return Prefix[E, P](point, params[1]), nil
	case "CausalZeroifier":
		return CausalZeroifier[E, P](point, params[1])
	case "Padding":
		return Padding[E, P](point, params[0], params[1])
	}
	var zero E
	return zero, fmt.Errorf("unknown function %q", function)
}

// denseStructured builds the table of a golden vector's function with plain
// integers.
func denseStructured[E field.Scalar, P field.Ptr[E]](function string, params []int) ([]E, error) {
	var ints []int64
	switch function {
	case "EqIndex":
		ints = make([]int64, 1<<params[0])
		ints[params[1]] = 1
	case "Prefix":
		ints = make([]int64, 1<<params[0])
		for x := range min(params[1], len(ints)) {
			ints[x] = 1
		}
	case "CausalZeroifier":
		ints = causalInts(params[0], params[1])
	case "Padding":
		ints = paddingInts(params[0], params[1])
	default:
		return nil, fmt.Errorf("unknown function %q", function)
	}
	return denseTable[E, P](ints), nil
}

func structuredVectors[E field.Scalar, P field.Ptr[E]](t *testing.T, rng *rand.Rand) []structuredVector {
	var vectors []structuredVector
	for _, spec := range structuredVectorSpecs {
		n, err := structuredVectorVars(spec.function, spec.params)
		if err != nil {
			t.Fatal(err)
		}
		point := field.RandomVector[E, P](rng, n)
		value, err := evalStructured[E, P](spec.function, spec.params, point)
		if err != nil {
			t.Fatalf("%s %v: %v", spec.function, spec.params, err)
		}
		table, err := denseStructured[E, P](spec.function, spec.params)
		if err != nil {
			t.Fatal(err)
		}
		if want := Evaluate[E, P](table, point); !P(&value).Equal(&want) {
			t.Fatalf("%s %v: closed form %s, dense %s", spec.function, spec.params, P(&value).String(), P(&want).String())
		}
		v := structuredVector{Curve: field.Name[E](), Function: spec.function, Params: spec.params, Value: P(&value).String()}
		for k := range point {
			v.Point = append(v.Point, P(&point[k]).String())
		}
		vectors = append(vectors, v)
	}
	return vectors
}

func TestStructuredVectors(t *testing.T) {
	rng := structuredRNG(t)
	vectors := structuredVectors[bn254fr.Element](t, rng)
	vectors = append(vectors, structuredVectors[bls12377fr.Element](t, rng)...)
	got, err := json.MarshalIndent(vectors, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if updateStructuredVectors() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(structuredVectorsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(structuredVectorsFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestStructuredVectors -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("structured MLEs differ from %s (run with -update if the change is intended)", structuredVectorsFile)
	}
}
