package sumcheck

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden vectors in testdata/")

// sumCheckVector is the layout of testdata/sumcheck_*.json, read by the
// native tests here and by the gadget tests.
type sumCheckVector[E field.Scalar] struct {
	Field       string        `json:"field"`
	Domain      string        `json:"domain"`
	Statement   []E           `json:"statement"`
	NbVars      int           `json:"nbVars"`
	Instances   []Instance[E] `json:"instances"`
	Rounds      [][]E         `json:"rounds"`
	Point       []E           `json:"point"`
	Evaluations []E           `json:"evaluations"`
}

// samePolyVector is the layout of testdata/samepoly_*.json.
type samePolyVector[E field.Scalar] struct {
	Field      string          `json:"field"`
	Domain     string          `json:"domain"`
	Statement  []E             `json:"statement"`
	Claims     []poly.Claim[E] `json:"claims"`
	Rounds     [][]E           `json:"rounds"`
	Evaluation E               `json:"evaluation"`
	Point      []E             `json:"point"`
}

// vectorShape describes one golden sum-check vector: tables of 2^nbVars
// random values and instances given as (coefficient, factors) lists.
type vectorShape struct {
	name      string
	nbVars    int
	nbTables  int
	instances [][]struct {
		coefficient int64
		factors     []int
	}
	// offsets of the instances and of the tables (zero when nil)
	instanceOffsets, tableOffsets []int
}

type termShape = struct {
	coefficient int64
	factors     []int
}

var vectorShapes = []vectorShape{
	{name: "degree1", nbVars: 3, nbTables: 2, instances: [][]termShape{{{1, []int{0}}, {-2, []int{1}}}}},
	{name: "product2", nbVars: 5, nbTables: 2, instances: [][]termShape{{{1, []int{0, 1}}}}},
	{name: "product3", nbVars: 4, nbTables: 3, instances: [][]termShape{{{1, []int{0, 1, 2}}, {3, []int{0, 1}}}}},
	{name: "batch", nbVars: 4, nbTables: 4, instances: [][]termShape{
		{{1, []int{0, 1}}},
		{{5, []int{0, 2, 3}}, {-1, []int{3}}},
		{{1, []int{1, 1}}, {7, []int{2, 0}}},
	}},
	{name: "offsets", nbVars: 4, nbTables: 5, instances: [][]termShape{
		{{1, []int{0, 1}}},
		{{2, []int{2, 3, 3}}},
		{{1, []int{4}}},
		{{3, []int{1}}},
	}, instanceOffsets: []int{0, 2, 4, 0}, tableOffsets: []int{0, 0, 2, 2, 4}},
}

func TestVectors(t *testing.T) {
	t.Run("bn254", testVectors[bn254fr.Element])
	t.Run("bls12-377", testVectors[bls12377fr.Element])
}

func testVectors[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	for i, shape := range vectorShapes {
		path := filepath.Join("testdata", fmt.Sprintf("sumcheck_%s_%s.json", field.Name[E](), shape.name))
		v := makeSumCheckVector[E, P](shape, uint64(i))
		if *update {
			writeJSON(t, path, &v)
		}
		var stored sumCheckVector[E]
		readJSON(t, path, &stored)
		if !reflect.DeepEqual(v, stored) {
			t.Fatalf("%s: the prover no longer reproduces the vector (rerun with -update if intended)", path)
		}
		if err := checkSumCheckVector[E, P](stored); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, tampered := range tamperSumCheck[E, P](stored) {
			if err := rejects(transcript.New[E, P](tampered.vector.Domain, tampered.vector.Statement...),
				tampered.vector.Instances, tampered.vector.NbVars, Proof[E]{Rounds: tampered.vector.Rounds}, tampered.vector.Evaluations); err != nil {
				t.Fatalf("%s: tampered %s: %v", path, tampered.what, err)
			}
		}
	}
	path := filepath.Join("testdata", fmt.Sprintf("samepoly_%s.json", field.Name[E]()))
	v := makeSamePolyVector[E, P](uint64(len(vectorShapes)))
	if *update {
		writeJSON(t, path, &v)
	}
	var stored samePolyVector[E]
	readJSON(t, path, &stored)
	if !reflect.DeepEqual(v, stored) {
		t.Fatalf("%s: the prover no longer reproduces the vector (rerun with -update if intended)", path)
	}
	if _, err := VerifySamePoly(transcript.New[E, P](stored.Domain, stored.Statement...), stored.Claims,
		SamePolyProof[E]{SumCheck: Proof[E]{Rounds: stored.Rounds}, Evaluation: stored.Evaluation}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, tampered := range tamperSamePoly[E, P](stored) {
		w := tampered.vector
		_, err := VerifySamePoly(transcript.New[E, P](w.Domain, w.Statement...), w.Claims,
			SamePolyProof[E]{SumCheck: Proof[E]{Rounds: w.Rounds}, Evaluation: w.Evaluation})
		if err == nil {
			t.Fatalf("%s: tampered %s accepted", path, tampered.what)
		}
	}
}

func makeSumCheckVector[E field.Scalar, P field.Ptr[E]](shape vectorShape, seed uint64) sumCheckVector[E] {
	rng := rand.New(rand.NewPCG(seed, 1))
	tables := make([][]E, shape.nbTables)
	for j := range tables {
		offset := 0
		if shape.tableOffsets != nil {
			offset = shape.tableOffsets[j]
		}
		tables[j] = field.RandomVector[E, P](rng, 1<<(shape.nbVars-offset))
	}
	instances := make([]Instance[E], len(shape.instances))
	for k, terms := range shape.instances {
		if shape.instanceOffsets != nil {
			instances[k].Offset = shape.instanceOffsets[k]
		}
		for _, term := range terms {
			instances[k].Terms = append(instances[k].Terms, Term[E]{Coefficient: field.FromInt64[E, P](term.coefficient), Factors: term.factors})
		}
		instances[k].Sum = bruteSum[E, P](tables, instances[k].Terms)
	}
	v := sumCheckVector[E]{
		Field:     field.Name[E](),
		Domain:    testDomain + "/" + shape.name,
		Statement: field.RandomVector[E, P](rng, 2),
		NbVars:    shape.nbVars,
		Instances: instances,
	}
	proof, opening, err := ProveBatch(transcript.New[E, P](v.Domain, v.Statement...), tables, instances)
	if err != nil {
		panic(err)
	}
	v.Rounds, v.Point, v.Evaluations = proof.Rounds, opening.Point, opening.Evaluations
	return v
}

func makeSamePolyVector[E field.Scalar, P field.Ptr[E]](seed uint64) samePolyVector[E] {
	const nbVars, nbClaims = 4, 3
	rng := rand.New(rand.NewPCG(seed, 1))
	table := field.RandomVector[E, P](rng, 1<<nbVars)
	v := samePolyVector[E]{
		Field:     field.Name[E](),
		Domain:    testDomain + "/samepoly",
		Statement: field.RandomVector[E, P](rng, 2),
		Claims:    make([]poly.Claim[E], nbClaims),
	}
	for i := range v.Claims {
		v.Claims[i].Point = field.RandomVector[E, P](rng, nbVars)
		v.Claims[i].Value = poly.Evaluate[E, P](table, v.Claims[i].Point)
	}
	proof, claim, err := ProveSamePoly(transcript.New[E, P](v.Domain, v.Statement...), table, v.Claims)
	if err != nil {
		panic(err)
	}
	v.Rounds, v.Evaluation, v.Point = proof.SumCheck.Rounds, proof.Evaluation, claim.Point
	return v
}

// checkSumCheckVector runs the native verifier on a vector and checks the
// point it derives.
func checkSumCheckVector[E field.Scalar, P field.Ptr[E]](v sumCheckVector[E]) error {
	final, err := VerifyBatch(transcript.New[E, P](v.Domain, v.Statement...), v.Instances, v.NbVars, Proof[E]{Rounds: v.Rounds})
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(final.Point, v.Point) {
		return fmt.Errorf("verifier point differs from the prover's")
	}
	return CheckEvaluations[E, P](&final, v.Instances, v.Evaluations)
}

type tamperedSumCheck[E field.Scalar] struct {
	what   string
	vector sumCheckVector[E]
}

// tamperSumCheck returns one copy of v per tampered position: every round
// value, every instance sum, every claimed evaluation, every statement
// element, each increased by one.
func tamperSumCheck[E field.Scalar, P field.Ptr[E]](v sumCheckVector[E]) []tamperedSumCheck[E] {
	one := field.One[E, P]()
	var out []tamperedSumCheck[E]
	clone := func() sumCheckVector[E] {
		var w sumCheckVector[E]
		b, err := json.Marshal(&v)
		if err != nil {
			panic(err)
		}
		if err := json.Unmarshal(b, &w); err != nil {
			panic(err)
		}
		return w
	}
	for i := range v.Rounds {
		for j := range v.Rounds[i] {
			w := clone()
			P(&w.Rounds[i][j]).Add(&w.Rounds[i][j], &one)
			out = append(out, tamperedSumCheck[E]{fmt.Sprintf("round %d value %d", i, j), w})
		}
	}
	for k := range v.Instances {
		w := clone()
		P(&w.Instances[k].Sum).Add(&w.Instances[k].Sum, &one)
		out = append(out, tamperedSumCheck[E]{fmt.Sprintf("sum %d", k), w})
	}
	for j := range v.Evaluations {
		w := clone()
		P(&w.Evaluations[j]).Add(&w.Evaluations[j], &one)
		out = append(out, tamperedSumCheck[E]{fmt.Sprintf("evaluation %d", j), w})
	}
	for j := range v.Statement {
		w := clone()
		P(&w.Statement[j]).Add(&w.Statement[j], &one)
		out = append(out, tamperedSumCheck[E]{fmt.Sprintf("statement %d", j), w})
	}
	return out
}

type tamperedSamePoly[E field.Scalar] struct {
	what   string
	vector samePolyVector[E]
}

// tamperSamePoly returns one copy of v per tampered position: every round
// value, every claimed value and point coordinate, the evaluation, every
// statement element.
func tamperSamePoly[E field.Scalar, P field.Ptr[E]](v samePolyVector[E]) []tamperedSamePoly[E] {
	one := field.One[E, P]()
	var out []tamperedSamePoly[E]
	clone := func() samePolyVector[E] {
		var w samePolyVector[E]
		b, err := json.Marshal(&v)
		if err != nil {
			panic(err)
		}
		if err := json.Unmarshal(b, &w); err != nil {
			panic(err)
		}
		return w
	}
	for i := range v.Rounds {
		for j := range v.Rounds[i] {
			w := clone()
			P(&w.Rounds[i][j]).Add(&w.Rounds[i][j], &one)
			out = append(out, tamperedSamePoly[E]{fmt.Sprintf("round %d value %d", i, j), w})
		}
	}
	for i := range v.Claims {
		w := clone()
		P(&w.Claims[i].Value).Add(&w.Claims[i].Value, &one)
		out = append(out, tamperedSamePoly[E]{fmt.Sprintf("value %d", i), w})
		for k := range v.Claims[i].Point {
			w := clone()
			P(&w.Claims[i].Point[k]).Add(&w.Claims[i].Point[k], &one)
			out = append(out, tamperedSamePoly[E]{fmt.Sprintf("point %d coordinate %d", i, k), w})
		}
	}
	w := clone()
	P(&w.Evaluation).Add(&w.Evaluation, &one)
	out = append(out, tamperedSamePoly[E]{"evaluation", w})
	for j := range v.Statement {
		w := clone()
		P(&w.Statement[j]).Add(&w.Statement[j], &one)
		out = append(out, tamperedSamePoly[E]{fmt.Sprintf("statement %d", j), w})
	}
	return out
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate with go test -run TestVectors -update)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
