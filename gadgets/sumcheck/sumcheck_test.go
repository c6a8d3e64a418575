package sumcheck

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	nativepoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/sumcheck"
	nativetranscript "github.com/veriformer/veriformer/transcript"
)

// sumCheckVector and samePolyVector mirror the layout of the golden
// vectors written by the native package's tests in sumcheck/testdata.
type sumCheckVector[E field.Scalar] struct {
	Field       string               `json:"field"`
	Domain      string               `json:"domain"`
	Statement   []E                  `json:"statement"`
	NbVars      int                  `json:"nbVars"`
	Instances   []native.Instance[E] `json:"instances"`
	Rounds      [][]E                `json:"rounds"`
	Point       []E                  `json:"point"`
	Evaluations []E                  `json:"evaluations"`
}

type samePolyVector[E field.Scalar] struct {
	Field      string                `json:"field"`
	Domain     string                `json:"domain"`
	Statement  []E                   `json:"statement"`
	Claims     []nativepoly.Claim[E] `json:"claims"`
	Rounds     [][]E                 `json:"rounds"`
	Evaluation E                     `json:"evaluation"`
	Point      []E                   `json:"point"`
}

const vectorDir = "../../sumcheck/testdata"

// batchCircuit verifies a batched sum-check and the factor values at the
// final point, and exposes the point so that a mismatch of the native and
// in-circuit challenges shows.
type batchCircuit struct {
	Statement   []frontend.Variable
	Sums        []frontend.Variable
	Proof       Proof
	Evaluations []frontend.Variable
	Point       []frontend.Variable

	domain  string   `gnark:"-"`
	terms   [][]Term `gnark:"-"`
	offsets []int    `gnark:"-"`
}

func (c *batchCircuit) Define(api frontend.API) error {
	t, err := transcript.New(api, c.domain, c.Statement...)
	if err != nil {
		return err
	}
	instances := make([]Instance, len(c.terms))
	for k := range instances {
		instances[k] = Instance{Terms: c.terms[k], Sum: c.Sums[k], Offset: c.offsets[k]}
	}
	final, err := VerifyBatch(api, t, instances, c.Proof)
	if err != nil {
		return err
	}
	for i := range c.Point {
		api.AssertIsEqual(final.Point[i], c.Point[i])
	}
	return AssertEvaluations(api, final, instances, c.Evaluations)
}

// newBatchCircuit returns the circuit for the shape of v and its
// assignment.
func newBatchCircuit[E field.Scalar, P field.Ptr[E]](domain string, instances []native.Instance[E], nbVars int) *batchCircuit {
	c := &batchCircuit{
		Statement:   make([]frontend.Variable, 2),
		Sums:        make([]frontend.Variable, len(instances)),
		Proof:       PlaceholderProof(nbVars, native.Degree(instances)),
		Evaluations: make([]frontend.Variable, nbTablesOf(instances)),
		Point:       make([]frontend.Variable, nbVars),
		domain:      domain,
		terms:       make([][]Term, len(instances)),
		offsets:     make([]int, len(instances)),
	}
	for k, inst := range instances {
		c.offsets[k] = inst.Offset
		for _, term := range inst.Terms {
			c.terms[k] = append(c.terms[k], Term{Coefficient: P(&term.Coefficient).BigInt(new(big.Int)), Factors: term.Factors})
		}
	}
	return c
}

func nbTablesOf[E field.Scalar](instances []native.Instance[E]) int {
	n := 0
	for _, inst := range instances {
		for _, term := range inst.Terms {
			for _, j := range term.Factors {
				n = max(n, j+1)
			}
		}
	}
	return n
}

func batchAssignment[E field.Scalar, P field.Ptr[E]](statement []E, instances []native.Instance[E], rounds [][]E, evaluations, point []E) *batchCircuit {
	sums := make([]E, len(instances))
	for k := range instances {
		sums[k] = instances[k].Sum
	}
	return &batchCircuit{
		Statement:   poly.ValuesOf(statement),
		Sums:        poly.ValuesOf(sums),
		Proof:       ValueOfProof(&native.Proof[E]{Rounds: rounds}),
		Evaluations: poly.ValuesOf(evaluations),
		Point:       poly.ValuesOf(point),
	}
}

// positions lists every witness value of an assignment, in a fixed order.
func (c *batchCircuit) positions() []*frontend.Variable {
	var out []*frontend.Variable
	for _, s := range [][]frontend.Variable{c.Statement, c.Sums, c.Evaluations, c.Point} {
		for i := range s {
			out = append(out, &s[i])
		}
	}
	for _, round := range c.Proof.Rounds {
		for i := range round {
			out = append(out, &round[i])
		}
	}
	return out
}

// samePolyCircuit verifies a same-poly accumulation and checks the point
// of the new claim.
type samePolyCircuit struct {
	Statement []frontend.Variable
	Claims    []poly.Claim
	Proof     SamePolyProof
	Point     []frontend.Variable

	domain string `gnark:"-"`
}

func (c *samePolyCircuit) Define(api frontend.API) error {
	t, err := transcript.New(api, c.domain, c.Statement...)
	if err != nil {
		return err
	}
	claim, err := VerifySamePoly(api, t, c.Claims, c.Proof)
	if err != nil {
		return err
	}
	for i := range c.Point {
		api.AssertIsEqual(claim.Point[i], c.Point[i])
	}
	api.AssertIsEqual(claim.Value, c.Proof.Evaluation)
	return nil
}

func newSamePolyCircuit(domain string, nbClaims, nbVars int) *samePolyCircuit {
	c := &samePolyCircuit{
		Statement: make([]frontend.Variable, 2),
		Claims:    make([]poly.Claim, nbClaims),
		Proof:     PlaceholderSamePolyProof(nbVars),
		Point:     make([]frontend.Variable, nbVars),
		domain:    domain,
	}
	for i := range c.Claims {
		c.Claims[i].Point = make([]frontend.Variable, nbVars)
	}
	return c
}

func samePolyAssignment[E field.Scalar, P field.Ptr[E]](v *samePolyVector[E]) *samePolyCircuit {
	c := &samePolyCircuit{
		Statement: poly.ValuesOf(v.Statement),
		Claims:    make([]poly.Claim, len(v.Claims)),
		Proof:     ValueOfSamePolyProof(&native.SamePolyProof[E]{SumCheck: native.Proof[E]{Rounds: v.Rounds}, Evaluation: v.Evaluation}),
		Point:     poly.ValuesOf(v.Point),
	}
	for i, claim := range v.Claims {
		c.Claims[i] = poly.Claim{Point: poly.ValuesOf(claim.Point), Value: P(&claim.Value).BigInt(new(big.Int))}
	}
	return c
}

func (c *samePolyCircuit) positions() []*frontend.Variable {
	var out []*frontend.Variable
	for _, s := range [][]frontend.Variable{c.Statement, c.Point} {
		for i := range s {
			out = append(out, &s[i])
		}
	}
	for i := range c.Claims {
		out = append(out, &c.Claims[i].Value)
		for k := range c.Claims[i].Point {
			out = append(out, &c.Claims[i].Point[k])
		}
	}
	for _, round := range c.Proof.SumCheck.Rounds {
		for i := range round {
			out = append(out, &round[i])
		}
	}
	return append(out, &c.Proof.Evaluation)
}

// increment replaces a witness value v by v + 1.
func increment(v *frontend.Variable) {
	*v = new(big.Int).Add((*v).(*big.Int), big.NewInt(1))
}

func TestVectors(t *testing.T) {
	t.Run("bn254", testVectors[bn254fr.Element])
	t.Run("bls12-377", testVectors[bls12377fr.Element])
}

func testVectors[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	modulus := field.Modulus[E]()
	paths, err := filepath.Glob(filepath.Join(vectorDir, fmt.Sprintf("sumcheck_%s_*.json", field.Name[E]())))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no sum-check vector for %s: %v", field.Name[E](), err)
	}
	for _, path := range paths {
		var v sumCheckVector[E]
		readJSON(t, path, &v)
		circuit := newBatchCircuit[E, P](v.Domain, v.Instances, v.NbVars)
		valid := batchAssignment[E, P](v.Statement, v.Instances, v.Rounds, v.Evaluations, v.Point)
		if err := test.IsSolved(circuit, valid, modulus); err != nil {
			t.Fatalf("%s: honest proof rejected: %v", path, err)
		}
		n := len(valid.positions())
		for i := range n {
			tampered := batchAssignment[E, P](v.Statement, v.Instances, v.Rounds, v.Evaluations, v.Point)
			increment(tampered.positions()[i])
			if err := test.IsSolved(circuit, tampered, modulus); err == nil {
				t.Fatalf("%s: tampered witness value %d of %d accepted", path, i, n)
			}
		}
	}

	path := filepath.Join(vectorDir, fmt.Sprintf("samepoly_%s.json", field.Name[E]()))
	var v samePolyVector[E]
	readJSON(t, path, &v)
	circuit := newSamePolyCircuit(v.Domain, len(v.Claims), len(v.Point))
	if err := test.IsSolved(circuit, samePolyAssignment[E, P](&v), modulus); err != nil {
		t.Fatalf("%s: honest proof rejected: %v", path, err)
	}
	n := len(samePolyAssignment[E, P](&v).positions())
	for i := range n {
		tampered := samePolyAssignment[E, P](&v)
		increment(tampered.positions()[i])
		if err := test.IsSolved(circuit, tampered, modulus); err == nil {
			t.Fatalf("%s: tampered witness value %d of %d accepted", path, i, n)
		}
	}
}

// TestCheckCircuit runs gnark's full check (compile, solve) on one vector
// per field, with an honest and a tampered assignment.
func TestCheckCircuit(t *testing.T) {
	t.Run("bn254", func(t *testing.T) { checkCircuit[bn254fr.Element](t, ecc.BN254) })
	t.Run("bls12-377", func(t *testing.T) { checkCircuit[bls12377fr.Element](t, ecc.BLS12_377) })
}

func checkCircuit[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID) {
	assert := test.NewAssert(t)
	var v sumCheckVector[E]
	readJSON(t, filepath.Join(vectorDir, fmt.Sprintf("sumcheck_%s_batch.json", field.Name[E]())), &v)
	circuit := newBatchCircuit[E, P](v.Domain, v.Instances, v.NbVars)
	valid := batchAssignment[E, P](v.Statement, v.Instances, v.Rounds, v.Evaluations, v.Point)
	invalid := batchAssignment[E, P](v.Statement, v.Instances, v.Rounds, v.Evaluations, v.Point)
	increment(&invalid.Proof.Rounds[1][0])
	assert.CheckCircuit(circuit, test.WithValidAssignment(valid), test.WithInvalidAssignment(invalid),
		test.WithCurves(curve), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
}

// TestRandom proves random batches natively (random sizes, degrees 1 to
// 4, several terms and instances sharing tables, random offsets) and
// checks that the circuit accepts them and rejects a wrong sum.
func TestRandom(t *testing.T) {
	t.Run("bn254", testRandom[bn254fr.Element])
	t.Run("bls12-377", testRandom[bls12377fr.Element])
}

func testRandom[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	const domain = "veriformer/gadgets/sumcheck/test"
	for iter := range 8 {
		nbVars := 1 + rng.IntN(5)
		degree := 1 + iter%4
		// Instances with the same offset share tables.
		var tables [][]E
		groups := map[int][]int{}
		instances := make([]native.Instance[E], 1+rng.IntN(3))
		for k := range instances {
			offset := 0
			if k > 0 {
				offset = rng.IntN(nbVars + 1)
			}
			if groups[offset] == nil {
				for range 1 + rng.IntN(3) {
					groups[offset] = append(groups[offset], len(tables))
					tables = append(tables, field.RandomVector[E, P](rng, 1<<(nbVars-offset)))
				}
			}
			group := groups[offset]
			for i := range 1 + rng.IntN(3) {
				d := degree
				if k > 0 || i > 0 {
					d = 1 + rng.IntN(degree)
				}
				factors := make([]int, d)
				for f := range factors {
					factors[f] = group[rng.IntN(len(group))]
				}
				instances[k].Terms = append(instances[k].Terms, native.Term[E]{Coefficient: field.Random[E, P](rng), Factors: factors})
			}
			instances[k].Offset = offset
			instances[k].Sum = sumOver[E, P](tables, instances[k].Terms)
		}
		statement := field.RandomVector[E, P](rng, 2)
		proof, opening, err := native.ProveBatch(nativetranscript.New[E, P](domain, statement...), tables, instances)
		if err != nil {
			t.Fatal(err)
		}
		// Tables no term uses are not constrained; the circuit takes the
		// values of tables 0 … max factor.
		evaluations := opening.Evaluations[:nbTablesOf(instances)]
		circuit := newBatchCircuit[E, P](domain, instances, nbVars)
		valid := batchAssignment[E, P](statement, instances, proof.Rounds, evaluations, opening.Point)
		if err := test.IsSolved(circuit, valid, field.Modulus[E]()); err != nil {
			t.Fatalf("iteration %d (n=%d, d=%d): honest proof rejected: %v", iter, nbVars, degree, err)
		}
		for k := range instances {
			wrong := batchAssignment[E, P](statement, instances, proof.Rounds, evaluations, opening.Point)
			increment(&wrong.Sums[k])
			if err := test.IsSolved(circuit, wrong, field.Modulus[E]()); err == nil {
				t.Fatalf("iteration %d: wrong sum %d (offset %d) accepted", iter, k, instances[k].Offset)
			}
		}
	}
}

// sumOver returns Σ_x Σ_k c_k ∏ⱼ f_j(x) by direct evaluation on the cube
// of the terms' tables (which all have the size of the first factor).
func sumOver[E field.Scalar, P field.Ptr[E]](tables [][]E, terms []native.Term[E]) E {
	var sum E
	size := len(tables[terms[0].Factors[0]])
	values := make([]E, len(tables))
	for x := range size {
		for j := range tables {
			if len(tables[j]) == size {
				values[j] = tables[j][x]
			}
		}
		v, err := native.EvaluateTerms[E, P](terms, values)
		if err != nil {
			panic(err)
		}
		P(&sum).Add(&sum, &v)
	}
	return sum
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
