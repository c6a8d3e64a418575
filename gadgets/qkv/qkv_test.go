package qkv_test

import (
	"flag"
	"fmt"
	"math/big"
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
	"github.com/veriformer/veriformer/gadgets/poly"
	gadget "github.com/veriformer/veriformer/gadgets/qkv"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	npoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/protocol/qkv"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

// tensors are the integer tensors whose MLEs the test circuit evaluates
// from constants to check the claims Verify leaves (nil: no check, for
// counting the gadget alone).
type tensors struct {
	x, wq, wk, wv, bq, bk, bv []int64
}

// verifyCircuit runs Verify on a witness proof and claims.
type verifyCircuit struct {
	Proof gadget.Proof
	Out   []poly.Claim

	// shape and tensors are behind a pointer so that gnark's test engine,
	// which compares circuit copies with reflect.DeepEqual, sees equal
	// copies.
	fixed *fixedPart
}

type fixedPart struct {
	shape   gadget.Shape
	tensors *tensors
}

func (c *verifyCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "qkv-test", 7)
	if err != nil {
		return err
	}
	claims, err := gadget.Verify(api, tr, c.fixed.shape, c.Proof, c.Out)
	if err != nil {
		return err
	}
	t := c.fixed.tensors
	if t == nil {
		return nil
	}
	s := c.fixed.shape
	q, kv := s.Heads*s.HeadDim, s.KVHeads*s.HeadDim
	checks := []struct {
		claim      poly.Claim
		values     []int64
		rows, cols int
	}{
		{claims.Input, t.x, s.Rows, s.Hidden},
		{claims.WeightQ, t.wq, q, s.Hidden},
		{claims.WeightK, t.wk, kv, s.Hidden},
		{claims.WeightV, t.wv, kv, s.Hidden},
	}
	if s.Bias {
		checks = append(checks, []struct {
			claim      poly.Claim
			values     []int64
			rows, cols int
		}{{claims.BiasQ, t.bq, 1, q}, {claims.BiasK, t.bk, 1, kv}, {claims.BiasV, t.bv, 1, kv}}...)
	}
	for _, ch := range checks {
		api.AssertIsEqual(poly.EvaluateDense(api, constantTable(ch.values, ch.rows, ch.cols), ch.claim.Point), ch.claim.Value)
	}
	return nil
}

// constantTable lays a matrix out as padded circuit constants.
func constantTable(values []int64, rows, cols int) []frontend.Variable {
	pc := 1 << log2Ceil(cols)
	out := make([]frontend.Variable, (1<<log2Ceil(rows))*pc)
	for i := range out {
		out[i] = 0
	}
	for i := range rows {
		for j := range cols {
			out[i*pc+j] = big.NewInt(values[i*cols+j])
		}
	}
	return out
}

func log2Ceil(n int) int { return npoly.Log2Ceil(n) }

func placeholder(shape gadget.Shape, t *tensors) *verifyCircuit {
	q, kv := log2Ceil(shape.Heads*shape.HeadDim), log2Ceil(shape.KVHeads*shape.HeadDim)
	out := make([]poly.Claim, 3)
	for o, cols := range []int{q, kv, kv} {
		out[o] = poly.Claim{Point: make([]frontend.Variable, log2Ceil(shape.Rows)+cols)}
	}
	return &verifyCircuit{Proof: gadget.PlaceholderProof(shape), Out: out, fixed: &fixedPart{shape: shape, tensors: t}}
}

func bigOf[E field.Scalar, P field.Ptr[E]](x E) *big.Int { return P(&x).BigInt(new(big.Int)) }

func claimsAssignment[E field.Scalar, P field.Ptr[E]](out []npoly.Claim[E]) []poly.Claim {
	res := make([]poly.Claim, len(out))
	for i, c := range out {
		point := make([]frontend.Variable, len(c.Point))
		for k := range c.Point {
			point[k] = bigOf[E, P](c.Point[k])
		}
		res[i] = poly.Claim{Point: point, Value: bigOf[E, P](c.Value)}
	}
	return res
}

func randomInts(rng *rand.Rand, n int, bound int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(2*bound+1) - bound
	}
	return out
}

// instance is one honest proof with its witness and output claims.
type instance[E field.Scalar] struct {
	cfg   native.Config
	w     native.Witness
	out   []npoly.Claim[E]
	proof *native.Proof[E]
}

func newInstance[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg native.Config) (*instance[E], error) {
	d, q, kv := cfg.Hidden, cfg.QCols(), cfg.KVCols()
	w := native.Witness{X: randomInts(rng, cfg.Rows*d, 1<<15), WQ: randomInts(rng, q*d, 127), WK: randomInts(rng, kv*d, 127), WV: randomInts(rng, kv*d, 127)}
	if cfg.Bias {
		w.BQ, w.BK, w.BV = randomInts(rng, q, 1<<20), randomInts(rng, kv, 1<<20), randomInts(rng, kv, 1<<20)
	}
	qo, ko, vo, err := native.Compute(cfg, w)
	if err != nil {
		return nil, err
	}
	cols := cfg.ColVars()
	widths := [3]int{q, kv, kv}
	out := make([]npoly.Claim[E], 3)
	for o, t := range [3][]int64{qo, ko, vo} {
		point := field.RandomVector[E, P](rng, cfg.RowVars()+cols[o])
		out[o] = npoly.Claim[E]{Point: point, Value: native.EvaluateMatrix[E, P](t, cfg.Rows, widths[o], point)}
	}
	proof, _, err := native.Prove(ntranscript.New[E, P]("qkv-test", field.FromInt64[E, P](7)), cfg, w, out)
	if err != nil {
		return nil, err
	}
	return &instance[E]{cfg: cfg, w: w, out: out, proof: proof}, nil
}

func (in *instance[E]) tensors() *tensors {
	return &tensors{x: in.w.X, wq: in.w.WQ, wk: in.w.WK, wv: in.w.WV, bq: in.w.BQ, bk: in.w.BK, bv: in.w.BV}
}

// proofElements lists every field element of a native proof.
func proofElements[E field.Scalar](p *native.Proof[E]) []*E {
	var out []*E
	add := func(xs []E) {
		for i := range xs {
			out = append(out, &xs[i])
		}
	}
	add(p.Biases)
	for _, r := range p.SumCheck.Rounds {
		add(r)
	}
	add(p.Inputs)
	add(p.Weights)
	if p.Merge != nil {
		for _, r := range p.Merge.SumCheck.Rounds {
			add(r)
		}
		out = append(out, &p.Merge.Evaluation)
	}
	return out
}

var gadgetConfigs = []native.Config{
	{Rows: 1, Hidden: 20, Heads: 1, KVHeads: 1, HeadDim: 10, Bias: true},
	{Rows: 3, Hidden: 24, Heads: 3, KVHeads: 3, HeadDim: 10, Bias: false},
	{Rows: 5, Hidden: 12, Heads: 12, KVHeads: 3, HeadDim: 10, Bias: true},
	{Rows: 16, Hidden: 16, Heads: 4, KVHeads: 1, HeadDim: 64, Bias: false},
	{Rows: 1, Hidden: 8, Heads: 4, KVHeads: 1, HeadDim: 10, Bias: false},
}

// verifyNative runs the native verifier and the caller's tensor checks.
func verifyNative[E field.Scalar, P field.Ptr[E]](in *instance[E]) error {
	claims, err := native.Verify(ntranscript.New[E, P]("qkv-test", field.FromInt64[E, P](7)), in.cfg, in.proof, in.out)
	if err != nil {
		return err
	}
	s := in.cfg
	checks := []struct {
		claim      npoly.Claim[E]
		values     []int64
		rows, cols int
	}{
		{claims.Input, in.w.X, s.Rows, s.Hidden},
		{claims.WeightQ, in.w.WQ, s.QCols(), s.Hidden},
		{claims.WeightK, in.w.WK, s.KVCols(), s.Hidden},
		{claims.WeightV, in.w.WV, s.KVCols(), s.Hidden},
	}
	if s.Bias {
		checks = append(checks, []struct {
			claim      npoly.Claim[E]
			values     []int64
			rows, cols int
		}{{claims.BiasQ, in.w.BQ, 1, s.QCols()}, {claims.BiasK, in.w.BK, 1, s.KVCols()}, {claims.BiasV, in.w.BV, 1, s.KVCols()}}...)
	}
	for i, ch := range checks {
		want := native.EvaluateMatrix[E, P](ch.values, ch.rows, ch.cols, ch.claim.Point)
		if !P(&want).Equal(&ch.claim.Value) {
			return fmt.Errorf("claim %d does not match its tensor", i)
		}
	}
	return nil
}

func testBothFaces[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	for _, cfg := range gadgetConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(cfg.Rows)))
		in, err := newInstance[E, P](rng, cfg)
		if err != nil {
			t.Fatal(err)
		}
		circuit := placeholder(cfg.Shape(), in.tensors())
		assign := func() *verifyCircuit {
			return &verifyCircuit{Proof: in.proof.Assignment(), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
		}
		if err := verifyNative[E, P](in); err != nil {
			t.Fatalf("%+v: native rejects the honest proof: %v", cfg, err)
		}
		if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err != nil {
			t.Fatalf("%+v: circuit rejects the honest proof: %v", cfg, err)
		}
		one := field.One[E, P]()
		for i, x := range proofElements(in.proof) {
			saved := *x
			P(x).Add(x, &one)
			if err := verifyNative[E, P](in); err == nil {
				t.Errorf("%+v: element %d tampered: native accepts", cfg, i)
			}
			if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err == nil {
				t.Errorf("%+v: element %d tampered: circuit accepts", cfg, i)
			}
			*x = saved
		}
		// A wrong output claim on V.
		P(&in.out[2].Value).Add(&in.out[2].Value, &one)
		if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err == nil {
			t.Errorf("%+v: wrong claim on V: circuit accepts", cfg)
		}
	}
}

func TestBothFaces(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testBothFaces[bn254fr.Element](t, ecc.BN254, seed) })
	t.Run("bls12-377", func(t *testing.T) { testBothFaces[bls12377fr.Element](t, ecc.BLS12_377, seed) })
}

// countShapes are the snapshot's shapes: GPT-2 small and a grouped-query
// Llama layer (TinyLlama: d = 2048, 32 query and 4 key/value heads of 64),
// each for a 16-token prompt and a one-token decoding pass.
var countShapes = []struct {
	name  string
	shape gadget.Shape
}{
	{"gpt2-small prompt", gadget.Shape{Rows: 16, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
	{"gpt2-small decode", gadget.Shape{Rows: 1, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
	{"tinyllama prompt", gadget.Shape{Rows: 16, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
	{"tinyllama decode", gadget.Shape{Rows: 1, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
	{"s=5 d=40 h=12:3 m=10 bias", gadget.Shape{Rows: 5, Hidden: 40, Heads: 12, KVHeads: 3, HeadDim: 10, Bias: true}},
}

func TestConstraintCounts(t *testing.T) {
	rows := [][]string{{"shape", "rows", "hidden", "heads", "kv_heads", "head_dim", "bias", "nb_constraints"}}
	for _, c := range countShapes {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder(c.shape, nil))
		if err != nil {
			t.Fatalf("%s: compile: %v", c.name, err)
		}
		s := c.shape
		rows = append(rows, []string{c.name, strconv.Itoa(s.Rows), strconv.Itoa(s.Hidden), strconv.Itoa(s.Heads), strconv.Itoa(s.KVHeads), strconv.Itoa(s.HeadDim), strconv.FormatBool(s.Bias), strconv.Itoa(ccs.GetNbConstraints())})
	}
	snapshot.CheckCSV(t, constraintsFile, rows, *update)
}

func TestShapeErrors(t *testing.T) {
	for _, s := range []gadget.Shape{{Rows: 0, Hidden: 4, Heads: 1, KVHeads: 1, HeadDim: 1}, {Rows: 2, Hidden: 4, Heads: 3, KVHeads: 2, HeadDim: 1}} {
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &verifyCircuit{Proof: gadget.Proof{}, Out: nil, fixed: &fixedPart{shape: s}}); err == nil {
			t.Errorf("shape %+v compiled", s)
		}
	}
	good := gadget.Shape{Rows: 2, Hidden: 4, Heads: 2, KVHeads: 1, HeadDim: 2}
	c := placeholder(good, nil)
	c.Proof.Weights = c.Proof.Weights[:2]
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
		t.Error("proof with two weight evaluations compiled")
	}
}

// TestCheckCircuit runs gnark's circuit checks on one small QKV
// verification on both curves; with -tags prover_checks they include a
// Groth16 setup, proof and verification (about 12 s).
func TestCheckCircuit(t *testing.T) {
	assert := test.NewAssert(t)
	cfg := native.Config{Rows: 3, Hidden: 5, Heads: 2, KVHeads: 1, HeadDim: 3, Bias: true}
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		var valid, invalid *verifyCircuit
		var circuit *verifyCircuit
		switch curve {
		case ecc.BN254:
			valid, invalid, circuit = groth16Assignments[bn254fr.Element](t, cfg)
		default:
			valid, invalid, circuit = groth16Assignments[bls12377fr.Element](t, cfg)
		}
		assert.CheckCircuit(circuit, test.WithValidAssignment(valid), test.WithInvalidAssignment(invalid),
			test.WithCurves(curve), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
	}
}

func groth16Assignments[E field.Scalar, P field.Ptr[E]](t *testing.T, cfg native.Config) (valid, invalid, circuit *verifyCircuit) {
	in, err := newInstance[E, P](rand.New(rand.NewPCG(11, 12)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	circuit = placeholder(cfg.Shape(), in.tensors())
	valid = &verifyCircuit{Proof: in.proof.Assignment(), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
	one := field.One[E, P]()
	P(&in.proof.Weights[1]).Add(&in.proof.Weights[1], &one)
	invalid = &verifyCircuit{Proof: in.proof.Assignment(), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
	return valid, invalid, circuit
}
