package qkv_test

import (
	"errors"
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
	glinear "github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/gadgets/poly"
	gadget "github.com/veriformer/veriformer/gadgets/qkv"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/model"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
	native "github.com/veriformer/veriformer/protocol/qkv"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

// verifyCircuit runs Verify on a witness proof and claims and, when the
// witness is set, checks the claims it leaves against the tensors as a
// segment circuit does (from constants).
type verifyCircuit struct {
	Proof gadget.Proof
	Out   []poly.Claim

	// behind a pointer so that gnark's test engine, which compares circuit
	// copies with reflect.DeepEqual, sees equal copies.
	fixed *fixedPart `gnark:"-"`
}

type fixedPart struct {
	shape   native.Config
	witness *native.Witness
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
	w := c.fixed.witness
	if w == nil {
		return nil
	}
	s := c.fixed.shape
	idx, err := npoly.PaddedIndices([]int{s.Rows, s.Hidden})
	if err != nil {
		return err
	}
	x := make([]frontend.Variable, len(w.X))
	for i, v := range w.X {
		x[i] = v
	}
	api.AssertIsEqual(poly.EvaluateTensor(api, x, idx, claims.Input.Point), claims.Input.Value)
	for o, n := range []int{s.QCols(), s.KVCols(), s.KVCols()} {
		v, err := glinear.EvaluateWeight(api, w.Weights[o], n, s.Hidden, claims.Weights[o].Point)
		if err != nil {
			return err
		}
		api.AssertIsEqual(v, claims.Weights[o].Value)
		if s.Bias {
			if v, err = glinear.EvaluateBias(api, w.Biases[o], claims.Biases[o].Point); err != nil {
				return err
			}
			api.AssertIsEqual(v, claims.Biases[o].Value)
		}
	}
	return nil
}

func placeholder(shape native.Config, w *native.Witness) *verifyCircuit {
	out := make([]poly.Claim, 3)
	for o, n := range []int{shape.QCols(), shape.KVCols(), shape.KVCols()} {
		out[o] = poly.Claim{Point: make([]frontend.Variable, npoly.Log2Ceil(shape.Rows)+npoly.Log2Ceil(n))}
	}
	return &verifyCircuit{Proof: gadget.PlaceholderProof(shape), Out: out, fixed: &fixedPart{shape: shape, witness: w}}
}

func claimsAssignment[E field.Scalar, P field.Ptr[E]](out []npoly.Claim[E]) []poly.Claim {
	res := make([]poly.Claim, len(out))
	for i, c := range out {
		point := make([]frontend.Variable, len(c.Point))
		for k := range c.Point {
			point[k] = P(&c.Point[k]).BigInt(new(big.Int))
		}
		res[i] = poly.Claim{Point: point, Value: P(&c.Value).BigInt(new(big.Int))}
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

func randomWeights(rng *rand.Rand, n int) []int8 {
	out := make([]int8, n)
	for i := range out {
		out[i] = int8(rng.IntN(256) - 128)
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

// newInstance draws a layer (16-bit input, int8 weights, −128 included,
// accumulator-scale biases), its outputs by the model's matmul, claims on
// them at random points with a row point each, and the honest proof.
func newInstance[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg native.Config) (*instance[E], error) {
	w := native.Witness{X: randomInts(rng, cfg.Rows*cfg.Hidden, 1<<15)}
	out := make([]npoly.Claim[E], 3)
	for o, n := range []int{cfg.QCols(), cfg.KVCols(), cfg.KVCols()} {
		w.Weights = append(w.Weights, randomWeights(rng, n*cfg.Hidden))
		var b []int64
		if cfg.Bias {
			b = randomInts(rng, n, 1<<20)
			w.Biases = append(w.Biases, b)
		}
		acc := model.MatMulInt(w.X, cfg.Rows, cfg.Hidden, w.Weights[o], n, b)
		point := field.RandomVector[E, P](rng, npoly.Log2Ceil(cfg.Rows)+npoly.Log2Ceil(n))
		v, err := npoly.EvaluateTensor[E, P](acc, []int{cfg.Rows, n}, point)
		if err != nil {
			return nil, err
		}
		out[o] = npoly.Claim[E]{Point: point, Value: v}
	}
	proof, _, err := native.Prove(ntranscript.New[E, P]("qkv-test", field.FromInt64[E, P](7)), cfg, w, out)
	if err != nil {
		return nil, err
	}
	return &instance[E]{cfg: cfg, w: w, out: out, proof: proof}, nil
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

// gadgetConfigs cover one row (decoding) and several, grouped-query
// attention 4:1 and 12:3, with and without bias.
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
	x, err := npoly.EvaluateTensor[E, P](in.w.X, []int{s.Rows, s.Hidden}, claims.Input.Point)
	if err != nil {
		return err
	}
	if !P(&x).Equal(&claims.Input.Value) {
		return errors.New("input claim does not match X")
	}
	for o, n := range []int{s.QCols(), s.KVCols(), s.KVCols()} {
		v, err := linear.EvaluateWeight[E, P](in.w.Weights[o], n, s.Hidden, claims.Weights[o].Point)
		if err != nil {
			return err
		}
		if !P(&v).Equal(&claims.Weights[o].Value) {
			return fmt.Errorf("weight claim %d does not match its matrix", o)
		}
		if !s.Bias {
			continue
		}
		if v, err = linear.EvaluateBias[E, P](in.w.Biases[o], claims.Biases[o].Point); err != nil {
			return err
		}
		if !P(&v).Equal(&claims.Biases[o].Value) {
			return fmt.Errorf("bias claim %d does not match its vector", o)
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
		circuit := placeholder(cfg, &in.w)
		assign := func() *verifyCircuit {
			return &verifyCircuit{Proof: gadget.ValueOfProof(in.proof), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
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
		// A wrong output claim on Q, K or V.
		for o := range in.out {
			saved := in.out[o].Value
			P(&in.out[o].Value).Add(&in.out[o].Value, &one)
			if err := verifyNative[E, P](in); err == nil {
				t.Errorf("%+v: wrong claim on output %d: native accepts", cfg, o)
			}
			if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err == nil {
				t.Errorf("%+v: wrong claim on output %d: circuit accepts", cfg, o)
			}
			in.out[o].Value = saved
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
	shape native.Config
}{
	{"gpt2-small prompt", native.Config{Rows: 16, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
	{"gpt2-small decode", native.Config{Rows: 1, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
	{"tinyllama prompt", native.Config{Rows: 16, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
	{"tinyllama decode", native.Config{Rows: 1, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
	{"s=5 d=40 h=12:3 m=10 bias", native.Config{Rows: 5, Hidden: 40, Heads: 12, KVHeads: 3, HeadDim: 10, Bias: true}},
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
	for _, s := range []native.Config{
		{Rows: 0, Hidden: 4, Heads: 1, KVHeads: 1, HeadDim: 1},
		{Rows: 2, Hidden: 4, Heads: 3, KVHeads: 2, HeadDim: 1},
		{Rows: 2, Hidden: 4, Heads: 2, KVHeads: 0, HeadDim: 1},
		{Rows: 2, Hidden: 4, Heads: 1 << 40, KVHeads: 1, HeadDim: 1 << 40},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("shape %+v accepted", s)
		}
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &verifyCircuit{fixed: &fixedPart{shape: s}}); err == nil {
			t.Errorf("shape %+v compiled", s)
		}
	}
	good := native.Config{Rows: 2, Hidden: 4, Heads: 2, KVHeads: 1, HeadDim: 2}
	c := placeholder(good, nil)
	c.Proof.Weights = c.Proof.Weights[:2]
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
		t.Error("proof with two weight evaluations compiled")
	}
	c = placeholder(good, nil)
	c.Out = c.Out[:2]
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
		t.Error("two output claims compiled")
	}
}

// TestCheckCircuit runs gnark's circuit checks on one small QKV
// verification on both curves; with -tags prover_checks they include a
// Groth16 setup, proof and verification.
func TestCheckCircuit(t *testing.T) {
	assert := test.NewAssert(t)
	cfg := native.Config{Rows: 3, Hidden: 5, Heads: 2, KVHeads: 1, HeadDim: 3, Bias: true}
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		var valid, invalid, circuit *verifyCircuit
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
	circuit = placeholder(cfg, &in.w)
	valid = &verifyCircuit{Proof: gadget.ValueOfProof(in.proof), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
	one := field.One[E, P]()
	P(&in.proof.Weights[1]).Add(&in.proof.Weights[1], &one)
	invalid = &verifyCircuit{Proof: gadget.ValueOfProof(in.proof), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
	return valid, invalid, circuit
}
