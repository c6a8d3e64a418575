package linear_test

import (
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/model"
	npoly "github.com/veriformer/veriformer/poly"
	native "github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/protocol/requant"
	ntranscript "github.com/veriformer/veriformer/transcript"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

// tensors are the layer's tensors; the test circuit evaluates their MLEs
// from constants to check the claims Verify leaves.
type tensors struct {
	x       []int64
	weights [][]int8
	biases  [][]int64
}

// verifyCircuit runs Verify on a witness proof and claims and, when
// tensors are set, checks the claims it leaves as a segment circuit does.
type verifyCircuit struct {
	Proof gadget.Proof
	Out   []poly.Claim

	// behind a pointer so that gnark's test engine, which compares circuit
	// copies with reflect.DeepEqual, sees equal copies.
	fixed *fixedPart `gnark:"-"`
}

type fixedPart struct {
	shape   native.Config
	tensors *tensors
}

func (c *verifyCircuit) Define(api frontend.API) error {
	tr, err := transcript.New(api, "linear-test", 7)
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
	idx, err := npoly.PaddedIndices([]int{s.Rows, s.In})
	if err != nil {
		return err
	}
	x := make([]frontend.Variable, len(t.x))
	for i, v := range t.x {
		x[i] = v
	}
	api.AssertIsEqual(poly.EvaluateTensor(api, x, idx, claims.Input.Point), claims.Input.Value)
	for k, p := range s.Projections {
		v, err := gadget.EvaluateWeight(api, t.weights[k], p.Out, s.In, claims.Weights[k].Point)
		if err != nil {
			return err
		}
		api.AssertIsEqual(v, claims.Weights[k].Value)
		if p.Bias {
			b, err := gadget.EvaluateBias(api, t.biases[k], claims.Biases[k].Point)
			if err != nil {
				return err
			}
			api.AssertIsEqual(b, claims.Biases[k].Value)
		}
	}
	return nil
}

func placeholder(shape native.Config, t *tensors) *verifyCircuit {
	out := make([]poly.Claim, len(shape.Projections))
	for k := range out {
		out[k] = poly.Claim{Point: make([]frontend.Variable, shape.RowVars()+shape.ColVars(k))}
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

func newInstance[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg native.Config) (*instance[E], error) {
	w := native.Witness{X: make([]int64, cfg.Rows*cfg.In), Biases: make([][]int64, len(cfg.Projections))}
	for i := range w.X {
		w.X[i] = rng.Int64N(1<<16) - 1<<15
	}
	for k, p := range cfg.Projections {
		w.Weights = append(w.Weights, randomWeights(rng, p.Out*cfg.In))
		if p.Bias {
			w.Biases[k] = make([]int64, p.Out)
			for j := range w.Biases[k] {
				w.Biases[k][j] = rng.Int64N(1<<21) - 1<<20
			}
		}
	}
	rv := cfg.RowVars()
	row := field.RandomVector[E, P](rng, rv)
	out := make([]npoly.Claim[E], len(cfg.Projections))
	for k, p := range cfg.Projections {
		if !cfg.SharedRow {
			row = field.RandomVector[E, P](rng, rv)
		}
		point := append(append([]E(nil), row...), field.RandomVector[E, P](rng, npoly.Log2Ceil(p.Out))...)
		acc := model.MatMulInt(w.X, cfg.Rows, cfg.In, w.Weights[k], p.Out, w.Biases[k])
		v, err := npoly.EvaluateTensor[E, P](acc, []int{cfg.Rows, p.Out}, point)
		if err != nil {
			return nil, err
		}
		out[k] = npoly.Claim[E]{Point: point, Value: v}
	}
	proof, _, err := native.Prove(ntranscript.New[E, P]("linear-test", field.FromInt64[E, P](7)), cfg, w, out)
	if err != nil {
		return nil, err
	}
	return &instance[E]{cfg: cfg, w: w, out: out, proof: proof}, nil
}

func (in *instance[E]) tensors() *tensors {
	return &tensors{x: in.w.X, weights: in.w.Weights, biases: in.w.Biases}
}

// verifyNative runs the native verifier and the caller's tensor checks.
func verifyNative[E field.Scalar, P field.Ptr[E]](in *instance[E], t *tensors) error {
	claims, err := native.Verify(ntranscript.New[E, P]("linear-test", field.FromInt64[E, P](7)), in.cfg, in.proof, in.out)
	if err != nil {
		return err
	}
	x, err := npoly.EvaluateTensor[E, P](t.x, []int{in.cfg.Rows, in.cfg.In}, claims.Input.Point)
	if err != nil {
		return err
	}
	if !P(&x).Equal(&claims.Input.Value) {
		return errors.New("input claim does not match X")
	}
	for k, p := range in.cfg.Projections {
		v, err := native.EvaluateWeight[E, P](t.weights[k], p.Out, in.cfg.In, claims.Weights[k].Point)
		if err != nil {
			return err
		}
		if !P(&v).Equal(&claims.Weights[k].Value) {
			return fmt.Errorf("weight claim %d does not match", k)
		}
		if p.Bias {
			b, err := native.EvaluateBias[E, P](t.biases[k], claims.Biases[k].Point)
			if err != nil {
				return err
			}
			if !P(&b).Equal(&claims.Biases[k].Value) {
				return fmt.Errorf("bias claim %d does not match", k)
			}
		}
	}
	return nil
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
	{Rows: 1, In: 20, Projections: []native.Projection{{Out: 10, Bias: true}}},
	{Rows: 3, In: 12, Projections: []native.Projection{{Out: 5, Bias: true}, {Out: 7}, {Out: 3, Bias: true}}, SharedRow: true},
	{Rows: 5, In: 9, Projections: []native.Projection{{Out: 6}, {Out: 4, Bias: true}}},
}

func testBothFaces[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	for i, cfg := range gadgetConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		in, err := newInstance[E, P](rng, cfg)
		if err != nil {
			t.Fatal(err)
		}
		circuit := placeholder(cfg, in.tensors())
		assign := func() *verifyCircuit {
			return &verifyCircuit{Proof: gadget.ValueOfProof(in.proof), Out: claimsAssignment[E, P](in.out), fixed: circuit.fixed}
		}
		if err := verifyNative[E, P](in, in.tensors()); err != nil {
			t.Fatalf("%+v: native rejects the honest proof: %v", cfg, err)
		}
		if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err != nil {
			t.Fatalf("%+v: circuit rejects the honest proof: %v", cfg, err)
		}
		one := field.One[E, P]()
		for j, x := range proofElements(in.proof) {
			saved := *x
			P(x).Add(x, &one)
			if err := verifyNative[E, P](in, in.tensors()); err == nil {
				t.Errorf("%+v: element %d tampered: native accepts", cfg, j)
			}
			if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err == nil {
				t.Errorf("%+v: element %d tampered: circuit accepts", cfg, j)
			}
			*x = saved
		}
		// A wrong output claim on the last projection.
		last := len(in.out) - 1
		saved := in.out[last].Value
		P(&in.out[last].Value).Add(&in.out[last].Value, &one)
		if err := verifyNative[E, P](in, in.tensors()); err == nil {
			t.Errorf("%+v: wrong output claim: native accepts", cfg)
		}
		if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err == nil {
			t.Errorf("%+v: wrong output claim: circuit accepts", cfg)
		}
		// The prover run on that false claim: its rounds are consistent
		// with it, and only the final check catches the lie.
		lying, _, err := native.Prove(ntranscript.New[E, P]("linear-test", field.FromInt64[E, P](7)), cfg, in.w, in.out)
		if err != nil {
			t.Fatal(err)
		}
		honest := in.proof
		in.proof = lying
		if err := verifyNative[E, P](in, in.tensors()); err == nil {
			t.Errorf("%+v: proof of a false claim: native accepts", cfg)
		}
		if err := test.IsSolved(circuit, assign(), curve.ScalarField()); err == nil {
			t.Errorf("%+v: proof of a false claim: circuit accepts", cfg)
		}
		in.proof = honest
		in.out[last].Value = saved
		// Under SharedRow, claim 1 moved to another row point: its row
		// coordinates enter nowhere else when it has no bias, so only the
		// equality of the row points catches it.
		if cfg.SharedRow && !cfg.Projections[1].Bias {
			moved := append([]npoly.Claim[E](nil), in.out...)
			moved[1].Point = append([]E(nil), in.out[1].Point...)
			P(&moved[1].Point[0]).Add(&moved[1].Point[0], &one)
			if _, err := native.Verify(ntranscript.New[E, P]("linear-test", field.FromInt64[E, P](7)), cfg, in.proof, moved); err == nil {
				t.Errorf("%+v: moved row point: native accepts", cfg)
			}
			a := &verifyCircuit{Proof: gadget.ValueOfProof(in.proof), Out: claimsAssignment[E, P](moved), fixed: circuit.fixed}
			if err := test.IsSolved(circuit, a, curve.ScalarField()); err == nil {
				t.Errorf("%+v: moved row point: circuit accepts", cfg)
			}
		}
		// The honest proof checked against a weight matrix with one value
		// changed: the weight claim no longer matches.
		wrong := in.tensors()
		wrong.weights = append([][]int8(nil), wrong.weights...)
		wrong.weights[last] = append([]int8(nil), wrong.weights[last]...)
		wrong.weights[last][rng.IntN(len(wrong.weights[last]))] ^= 2
		if err := verifyNative[E, P](in, wrong); err == nil {
			t.Errorf("%+v: wrong weight: native accepts", cfg)
		}
		wrongCircuit := placeholder(cfg, wrong)
		if err := test.IsSolved(wrongCircuit, &verifyCircuit{Proof: gadget.ValueOfProof(in.proof), Out: claimsAssignment[E, P](in.out), fixed: wrongCircuit.fixed}, curve.ScalarField()); err == nil {
			t.Errorf("%+v: wrong weight: circuit accepts", cfg)
		}
	}
}

func TestBothFaces(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testBothFaces[bn254fr.Element](t, ecc.BN254, seed) })
	t.Run("bls12-377", func(t *testing.T) { testBothFaces[bls12377fr.Element](t, ecc.BLS12_377, seed) })
}

// weightCircuit checks EvaluateWeight (or EvaluateBias when out = 0)
// against a claimed value.
type weightCircuit struct {
	Point []frontend.Variable
	Value frontend.Variable
	fixed *weightPart `gnark:"-"`
}

type weightPart struct {
	w       []int8
	b       []int64
	out, in int
}

func (c *weightCircuit) Define(api frontend.API) error {
	var v frontend.Variable
	var err error
	if c.fixed.b != nil {
		v, err = gadget.EvaluateBias(api, c.fixed.b, c.Point)
	} else {
		v, err = gadget.EvaluateWeight(api, c.fixed.w, c.fixed.out, c.fixed.in, c.Point)
	}
	if err != nil {
		return err
	}
	api.AssertIsEqual(v, c.Value)
	return nil
}

// sharedCircuit evaluates several matrices at (rowPoints[k] ‖ Col) with
// one column table.
type sharedCircuit struct {
	Rows   [][]frontend.Variable
	Col    []frontend.Variable
	Values []frontend.Variable
	fixed  *sharedPart `gnark:"-"`
}

type sharedPart struct {
	ws   [][]int8
	outs []int
	in   int
}

func (c *sharedCircuit) Define(api frontend.API) error {
	cols, err := gadget.NewColumns(api, c.fixed.in, c.Col)
	if err != nil {
		return err
	}
	for k, w := range c.fixed.ws {
		v, err := cols.EvaluateWeight(api, w, c.fixed.outs[k], c.Rows[k])
		if err != nil {
			return err
		}
		api.AssertIsEqual(v, c.Values[k])
	}
	return nil
}

func newSharedCircuit(ws [][]int8, outs []int, in int) *sharedCircuit {
	c := &sharedCircuit{Col: make([]frontend.Variable, npoly.Log2Ceil(in)), Values: make([]frontend.Variable, len(ws)), fixed: &sharedPart{ws: ws, outs: outs, in: in}}
	for _, out := range outs {
		c.Rows = append(c.Rows, make([]frontend.Variable, npoly.Log2Ceil(out)))
	}
	return c
}

func TestColumns(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	outs, in := []int{5, 12, 3}, 7
	ws := make([][]int8, len(outs))
	col := field.RandomVector[bn254fr.Element](rng, npoly.Log2Ceil(in))
	assignment := &sharedCircuit{Col: make([]frontend.Variable, len(col))}
	for i := range col {
		assignment.Col[i] = bigOf[bn254fr.Element](col[i])
	}
	for k, out := range outs {
		ws[k] = randomWeights(rng, out*in)
		row := field.RandomVector[bn254fr.Element](rng, npoly.Log2Ceil(out))
		v, err := native.EvaluateWeight[bn254fr.Element](ws[k], out, in, append(append([]bn254fr.Element(nil), row...), col...))
		if err != nil {
			t.Fatal(err)
		}
		r := make([]frontend.Variable, len(row))
		for i := range row {
			r[i] = bigOf[bn254fr.Element](row[i])
		}
		assignment.Rows = append(assignment.Rows, r)
		assignment.Values = append(assignment.Values, bigOf[bn254fr.Element](v))
	}
	circuit := newSharedCircuit(ws, outs, in)
	assignment.fixed = circuit.fixed
	if err := test.IsSolved(circuit, assignment, ecc.BN254.ScalarField()); err != nil {
		t.Fatalf("shared column table: %v", err)
	}
	assignment.Values[1] = new(big.Int).Add(assignment.Values[1].(*big.Int), big.NewInt(1))
	if err := test.IsSolved(circuit, assignment, ecc.BN254.ScalarField()); err == nil {
		t.Fatal("shared column table accepts a wrong value")
	}
	for _, bad := range []*sharedCircuit{
		{Col: make([]frontend.Variable, 2), fixed: &sharedPart{in: 7}},
		{Col: make([]frontend.Variable, 3), Rows: [][]frontend.Variable{make([]frontend.Variable, 2)}, Values: make([]frontend.Variable, 1), fixed: &sharedPart{ws: [][]int8{make([]int8, 20)}, outs: []int{3}, in: 7}},
		{Col: make([]frontend.Variable, 3), Rows: [][]frontend.Variable{make([]frontend.Variable, 1)}, Values: make([]frontend.Variable, 1), fixed: &sharedPart{ws: [][]int8{make([]int8, 21)}, outs: []int{3}, in: 7}},
	} {
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, bad); err == nil {
			t.Errorf("%+v compiled", bad.fixed)
		}
	}
}

func TestEvaluateWeight(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, s := range [][2]int{{1, 1}, {1, 6}, {6, 1}, {3, 5}, {9, 4}, {16, 16}} {
		out, in := s[0], s[1]
		w := randomWeights(rng, out*in)
		w[0] = -128
		b := make([]int64, out)
		for j := range b {
			b[j] = rng.Int64N(1<<30) - 1<<29
		}
		a, bv := npoly.Log2Ceil(out), npoly.Log2Ceil(in)
		point := field.RandomVector[bn254fr.Element](rng, a+bv)
		want, err := native.EvaluateWeight[bn254fr.Element](w, out, in, point)
		if err != nil {
			t.Fatal(err)
		}
		wantB, err := native.EvaluateBias[bn254fr.Element](b, point[:a])
		if err != nil {
			t.Fatal(err)
		}
		assignment := func(point []bn254fr.Element, v bn254fr.Element) *weightCircuit {
			p := make([]frontend.Variable, len(point))
			for i := range point {
				p[i] = bigOf[bn254fr.Element](point[i])
			}
			return &weightCircuit{Point: p, Value: bigOf[bn254fr.Element](v)}
		}
		for _, c := range []struct {
			fixed *weightPart
			point []bn254fr.Element
			value bn254fr.Element
		}{
			{&weightPart{w: w, out: out, in: in}, point, want},
			{&weightPart{b: b}, point[:a], wantB},
		} {
			circuit := &weightCircuit{Point: make([]frontend.Variable, len(c.point)), fixed: c.fixed}
			good := assignment(c.point, c.value)
			good.fixed = c.fixed
			if err := test.IsSolved(circuit, good, ecc.BN254.ScalarField()); err != nil {
				t.Fatalf("%d×%d: circuit rejects the native value: %v", out, in, err)
			}
			var one bn254fr.Element
			one.SetOne()
			wrong := c.value
			wrong.Add(&wrong, &one)
			bad := assignment(c.point, wrong)
			bad.fixed = c.fixed
			if err := test.IsSolved(circuit, bad, ecc.BN254.ScalarField()); err == nil {
				t.Fatalf("%d×%d: circuit accepts a wrong value", out, in)
			}
		}
	}
	for _, bad := range []*weightPart{{w: make([]int8, 5), out: 2, in: 3}, {w: make([]int8, 6), out: 2, in: 3}, {b: make([]int64, 3)}} {
		c := &weightCircuit{Point: make([]frontend.Variable, 1), fixed: bad}
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
			t.Errorf("%+v compiled", bad)
		}
	}
}

// weightCount returns the formula of EvaluateWeight's cost plus the
// final equality: (2^a − 2) + (2^b − 2) multiplications for the eq tables
// (none below 2 entries), one per row (or column, the smaller side), one
// more per inner sum of at least 300 terms (gnark's default compress
// threshold) and one for the sum of at least 300 products.
func weightCount(out, in int) int {
	eq := func(n int) int { return max(0, (1<<npoly.Log2Ceil(n))-2) }
	outer, inner := min(out, in), max(out, in)
	inner = 1 << npoly.Log2Ceil(inner)
	n := eq(out) + eq(in) + outer + 1
	if inner >= 300 {
		n += outer
	}
	if outer >= 300 {
		n++
	}
	return n
}

// verifyShapes are the snapshot's layers: GPT-2 small (d = 768, MLP
// 3072, fused QKV 2304) for a 16-token prompt and a decoding pass, the
// default model (d = 64, MLP 256, vocabulary 256), and distinct row points.
var verifyShapes = []struct {
	name  string
	shape native.Config
}{
	{"gpt2-small attn.o prompt", native.Config{Rows: 16, In: 768, Projections: []native.Projection{{Out: 768, Bias: true}}}},
	{"gpt2-small mlp.up prompt", native.Config{Rows: 16, In: 768, Projections: []native.Projection{{Out: 3072, Bias: true}}}},
	{"gpt2-small mlp.down prompt", native.Config{Rows: 16, In: 3072, Projections: []native.Projection{{Out: 768, Bias: true}}}},
	{"gpt2-small q,k,v shared row", native.Config{Rows: 16, In: 768, Projections: []native.Projection{{Out: 768, Bias: true}, {Out: 768, Bias: true}, {Out: 768, Bias: true}}, SharedRow: true}},
	{"gpt2-small q,k,v distinct rows", native.Config{Rows: 16, In: 768, Projections: []native.Projection{{Out: 768, Bias: true}, {Out: 768, Bias: true}, {Out: 768, Bias: true}}}},
	{"gpt2-small mlp.up decode", native.Config{Rows: 1, In: 768, Projections: []native.Projection{{Out: 3072, Bias: true}}}},
	{"default attn.o prompt", native.Config{Rows: 8, In: 64, Projections: []native.Projection{{Out: 64, Bias: true}}}},
	{"default lm-head decode", native.Config{Rows: 1, In: 64, Projections: []native.Projection{{Out: 256}}}},
}

// weightShapes are [out, in] weight matrices: GPT-2 small (attn.o,
// mlp.up, mlp.down, fused QKV) and the default model (attention, mlp.up,
// mlp.down, LM head).
var weightShapes = []struct {
	name    string
	out, in int
}{
	{"gpt2-small attn.o", 768, 768},
	{"gpt2-small mlp.up", 3072, 768},
	{"gpt2-small mlp.down", 768, 3072},
	{"gpt2-small attn.qkv", 2304, 768},
	{"default attn", 64, 64},
	{"default mlp.up", 256, 64},
	{"default mlp.down", 64, 256},
	{"default lm-head", 256, 64},
}

func TestConstraintCounts(t *testing.T) {
	rows := [][]string{{"circuit", "shape", "rows", "in", "outs", "bias", "shared_row", "nb_constraints"}}
	for _, c := range verifyShapes {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder(c.shape, nil))
		if err != nil {
			t.Fatalf("%s: compile: %v", c.name, err)
		}
		s := c.shape
		outs, bias := "", ""
		for k, p := range s.Projections {
			if k > 0 {
				outs, bias = outs+" ", bias+" "
			}
			outs += strconv.Itoa(p.Out)
			bias += strconv.FormatBool(p.Bias)
		}
		rows = append(rows, []string{"verify", c.name, strconv.Itoa(s.Rows), strconv.Itoa(s.In), outs, bias, strconv.FormatBool(s.SharedRow), strconv.Itoa(ccs.GetNbConstraints())})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range weightShapes {
		w := randomWeights(rng, c.out*c.in)
		for i := range w {
			if w[i] == 0 {
				w[i] = 1
			}
		}
		circuit := &weightCircuit{Point: make([]frontend.Variable, npoly.Log2Ceil(c.out)+npoly.Log2Ceil(c.in)), fixed: &weightPart{w: w, out: c.out, in: c.in}}
		start := time.Now()
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, circuit)
		if err != nil {
			t.Fatalf("%s: compile: %v", c.name, err)
		}
		t.Logf("%s (%d×%d): %d constraints, compiled in %v", c.name, c.out, c.in, ccs.GetNbConstraints(), time.Since(start).Round(time.Millisecond))
		if got, want := ccs.GetNbConstraints(), weightCount(c.out, c.in); got != want {
			t.Errorf("%s: %d constraints, the formula gives %d", c.name, got, want)
		}
		rows = append(rows, []string{"evaluate-weight", c.name, strconv.Itoa(c.out), strconv.Itoa(c.in), "", "", "", strconv.Itoa(ccs.GetNbConstraints())})
	}
	// GPT-2's Q, K and V weights (3 × 768 × 768) at one column point: the
	// column table is built once, 2·(2^10 − 2) constraints less than three
	// separate evaluations.
	qkv := [][]int8{randomWeights(rng, 768*768), randomWeights(rng, 768*768), randomWeights(rng, 768*768)}
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, newSharedCircuit(qkv, []int{768, 768, 768}, 768))
	if err != nil {
		t.Fatalf("shared columns: %v", err)
	}
	if got, want := ccs.GetNbConstraints(), 3*weightCount(768, 768)-2*(1<<10-2); got != want {
		t.Errorf("shared columns: %d constraints, the formula gives %d", got, want)
	}
	rows = append(rows, []string{"evaluate-weight shared columns", "gpt2-small attn.q,k,v", "768 768 768", "768", "", "", "", strconv.Itoa(ccs.GetNbConstraints())})
	snapshot.CheckCSV(t, constraintsFile, rows, *update)
}

func TestShapeErrors(t *testing.T) {
	good := native.Config{Rows: 2, In: 4, Projections: []native.Projection{{Out: 3, Bias: true}, {Out: 2}}}
	for _, s := range []native.Config{
		{Rows: 0, In: 4, Projections: good.Projections},
		{Rows: 2, In: 0, Projections: good.Projections},
		{Rows: 2, In: 4},
		{Rows: 2, In: 4, Projections: []native.Projection{{Out: 0}}},
	} {
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &verifyCircuit{fixed: &fixedPart{shape: s}}); err == nil {
			t.Errorf("shape %+v compiled", s)
		}
	}
	edits := map[string]func(*verifyCircuit){
		"missing claim":  func(c *verifyCircuit) { c.Out = c.Out[1:] },
		"short point":    func(c *verifyCircuit) { c.Out[0].Point = c.Out[0].Point[1:] },
		"missing bias":   func(c *verifyCircuit) { c.Proof.Biases = nil },
		"extra input":    func(c *verifyCircuit) { c.Proof.Inputs = append(c.Proof.Inputs, 0) },
		"missing merge":  func(c *verifyCircuit) { c.Proof.Merge = nil },
		"missing weight": func(c *verifyCircuit) { c.Proof.Weights = c.Proof.Weights[1:] },
		"missing round":  func(c *verifyCircuit) { c.Proof.SumCheck.Rounds = c.Proof.SumCheck.Rounds[1:] },
	}
	for name, edit := range edits {
		c := placeholder(good, nil)
		edit(c)
		if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c); err == nil {
			t.Errorf("circuit with %s compiled", name)
		}
	}
	if _, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder(good, nil)); err != nil {
		t.Fatalf("good shape: %v", err)
	}
}

// testModelTrace proves a real pass's MLP up projection and its output
// projection of the default model natively, from claims protocol/requant
// derives from the opened outputs, and checks the proof and every claim it
// leaves in a circuit with the weights as constants.
func testModelTrace[E field.Scalar, P field.Ptr[E]](t *testing.T, curve ecc.ID, seed uint64) {
	m := model.Default()
	g, err := m.Generate([]int{7, 1, 200, 13}, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	l := &g.Traces[0].Layers[1]
	for _, mm := range []*model.MatMul{&l.Up, &l.O} {
		rows, in, outDim := mm.Input.Shape[0], mm.Input.Shape[1], mm.Weight.Shape[0]
		cfg := native.Config{Rows: rows, In: in, Projections: []native.Projection{{Out: outDim, Bias: mm.Bias != nil}}}
		spec := &requant.Spec{Shape: mm.Acc.Shape, Multiplier: mm.Multiplier, Shift: mm.Shift, OutLo: mm.Out.Min, OutHi: mm.Out.Max}
		point := field.RandomVector[E, P](rng, npoly.Log2Ceil(rows)+npoly.Log2Ceil(outDim))
		v, err := requant.EvaluateAcc[E, P](spec, mm.Out.Data, mm.Rem.Data, point)
		if err != nil {
			t.Fatal(err)
		}
		in0 := &instance[E]{cfg: cfg, w: native.Witness{X: mm.Input.Data, Weights: [][]int8{mm.Weight.Data}, Biases: [][]int64{mm.Bias}},
			out: []npoly.Claim[E]{{Point: point, Value: v}}}
		if in0.proof, _, err = native.Prove(ntranscript.New[E, P]("linear-test", field.FromInt64[E, P](7)), cfg, in0.w, in0.out); err != nil {
			t.Fatal(err)
		}
		if err := verifyNative[E, P](in0, in0.tensors()); err != nil {
			t.Fatalf("%s: native: %v", mm.Name, err)
		}
		circuit := placeholder(cfg, in0.tensors())
		assignment := &verifyCircuit{Proof: gadget.ValueOfProof(in0.proof), Out: claimsAssignment[E, P](in0.out), fixed: circuit.fixed}
		if err := test.IsSolved(circuit, assignment, curve.ScalarField()); err != nil {
			t.Fatalf("%s: circuit: %v", mm.Name, err)
		}
		one := field.One[E, P]()
		P(&in0.proof.Weights[0]).Add(&in0.proof.Weights[0], &one)
		assignment = &verifyCircuit{Proof: gadget.ValueOfProof(in0.proof), Out: claimsAssignment[E, P](in0.out), fixed: circuit.fixed}
		if err := test.IsSolved(circuit, assignment, curve.ScalarField()); err == nil {
			t.Fatalf("%s: circuit accepts a wrong weight value", mm.Name)
		}
	}
}

func TestModelTrace(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testModelTrace[bn254fr.Element](t, ecc.BN254, seed) })
	t.Run("bls12-377", func(t *testing.T) { testModelTrace[bls12377fr.Element](t, ecc.BLS12_377, seed) })
}
