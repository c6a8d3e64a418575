package linear

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// testConfigs cover one and several projections, shared and distinct row
// points, one row (decoding), non-powers of two everywhere, with and
// without biases.
var testConfigs = []Config{
	{Rows: 1, In: 20, Projections: []Projection{{Out: 10, Bias: true}}},
	{Rows: 3, In: 24, Projections: []Projection{{Out: 7}}},
	{Rows: 5, In: 40, Projections: []Projection{{Out: 12, Bias: true}, {Out: 12, Bias: true}, {Out: 30, Bias: true}}, SharedRow: true},
	{Rows: 5, In: 17, Projections: []Projection{{Out: 12, Bias: true}, {Out: 3}, {Out: 30, Bias: true}}},
	{Rows: 1, In: 33, Projections: []Projection{{Out: 9}, {Out: 64, Bias: true}}},
	{Rows: 16, In: 64, Projections: []Projection{{Out: 1, Bias: true}, {Out: 65}}, SharedRow: true},
	{Rows: 6, In: 1, Projections: []Projection{{Out: 5, Bias: true}, {Out: 2}}},
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

// randomWitness draws a 16-bit input, int8 weights (the full range,
// −128 included) and accumulator-scale biases.
func randomWitness(rng *rand.Rand, cfg Config) Witness {
	w := Witness{X: randomInts(rng, cfg.Rows*cfg.In, 1<<15), Biases: make([][]int64, len(cfg.Projections))}
	for _, p := range cfg.Projections {
		w.Weights = append(w.Weights, randomWeights(rng, p.Out*cfg.In))
	}
	for k, p := range cfg.Projections {
		if p.Bias {
			w.Biases[k] = randomInts(rng, p.Out, 1<<20)
		}
	}
	return w
}

// plainAcc returns Acc_k = X·W_kᵀ + b_k by the model's integer matmul.
func plainAcc(cfg Config, w Witness, k int) []int64 {
	return model.MatMulInt(w.X, cfg.Rows, cfg.In, w.Weights[k], cfg.Projections[k].Out, w.Biases[k])
}

// honestClaims evaluates the plain outputs at random points (one row point
// for all when cfg.SharedRow).
func honestClaims[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg Config, w Witness) []poly.Claim[E] {
	rv := cfg.RowVars()
	row := field.RandomVector[E, P](rng, rv)
	out := make([]poly.Claim[E], len(cfg.Projections))
	for k, p := range cfg.Projections {
		if !cfg.SharedRow {
			row = field.RandomVector[E, P](rng, rv)
		}
		point := poly.Concat(row, field.RandomVector[E, P](rng, poly.Log2Ceil(p.Out)))
		v, err := poly.EvaluateTensor[E, P](plainAcc(cfg, w, k), []int{cfg.Rows, p.Out}, point)
		if err != nil {
			panic(err)
		}
		out[k] = poly.Claim[E]{Point: point, Value: v}
	}
	return out
}

// checkLeftClaims checks the claims a verifier returns against the
// tensors, as the caller of the layer does.
func checkLeftClaims[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, c Claims[E]) error {
	x, err := poly.EvaluateTensor[E, P](w.X, []int{cfg.Rows, cfg.In}, c.Input.Point)
	if err != nil {
		return err
	}
	if !P(&x).Equal(&c.Input.Value) {
		return errors.New("input claim does not match X")
	}
	for k, p := range cfg.Projections {
		v, err := EvaluateWeight[E, P](w.Weights[k], p.Out, cfg.In, c.Weights[k].Point)
		if err != nil {
			return err
		}
		if !P(&v).Equal(&c.Weights[k].Value) {
			return fmt.Errorf("weight claim %d does not match W_%d", k, k)
		}
		if !p.Bias {
			if c.Biases[k].Point != nil {
				return fmt.Errorf("bias claim %d for a projection without bias", k)
			}
			continue
		}
		b, err := EvaluateBias[E, P](w.Biases[k], c.Biases[k].Point)
		if err != nil {
			return err
		}
		if !P(&b).Equal(&c.Biases[k].Value) {
			return fmt.Errorf("bias claim %d does not match b_%d", k, k)
		}
	}
	return nil
}

// proofElements lists every field element of a proof, for tampering.
func proofElements[E field.Scalar](p *Proof[E]) []*E {
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

func newTranscript[E field.Scalar, P field.Ptr[E]]() *transcript.Transcript[E, P] {
	return transcript.New[E, P]("linear-test", field.FromInt64[E, P](7))
}

// verifyAndCheck runs the verifier and the caller's checks of the claims.
func verifyAndCheck[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, proof *Proof[E], out []poly.Claim[E]) error {
	claims, err := Verify(newTranscript[E, P](), cfg, proof, out)
	if err != nil {
		return err
	}
	return checkLeftClaims[E, P](cfg, w, claims)
}

func testProveVerify[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	for i, cfg := range testConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		w := randomWitness(rng, cfg)
		out := honestClaims[E, P](rng, cfg, w)
		proof, proverClaims, err := Prove(newTranscript[E, P](), cfg, w, out)
		if err != nil {
			t.Fatalf("%+v: prove: %v", cfg, err)
		}
		if err := checkLeftClaims[E, P](cfg, w, proverClaims); err != nil {
			t.Fatalf("%+v: prover claims: %v", cfg, err)
		}
		if err := verifyAndCheck[E, P](cfg, w, proof, out); err != nil {
			t.Fatalf("%+v: honest proof rejected: %v", cfg, err)
		}
		if got, want := len(proof.Inputs), cfg.NbInputs(); got != want {
			t.Fatalf("%+v: %d input values, want %d", cfg, got, want)
		}
		one := field.One[E, P]()
		for k := range out {
			bad := append([]poly.Claim[E](nil), out...)
			P(&bad[k].Value).Add(&bad[k].Value, &one)
			if err := verifyAndCheck[E, P](cfg, w, proof, bad); err == nil {
				t.Fatalf("%+v: wrong claim on Acc_%d accepted", cfg, k)
			}
			// The prover run on the false claim: only the final check
			// can catch it.
			lying, _, err := Prove(newTranscript[E, P](), cfg, w, bad)
			if err != nil {
				t.Fatal(err)
			}
			if err := verifyAndCheck[E, P](cfg, w, lying, bad); err == nil {
				t.Fatalf("%+v: proof of a false claim on Acc_%d accepted", cfg, k)
			}
		}
		// A weight matrix other than the one proven: the caller's check
		// fails.
		wrong := w
		wrong.Weights = append([][]int8(nil), w.Weights...)
		last := len(wrong.Weights) - 1
		wrong.Weights[last] = append([]int8(nil), w.Weights[last]...)
		wrong.Weights[last][rng.IntN(len(wrong.Weights[last]))] ^= 1
		if err := verifyAndCheck[E, P](cfg, wrong, proof, out); err == nil {
			t.Fatalf("%+v: proof accepted against a changed weight", cfg)
		}
	}
}

func TestProveVerify(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testProveVerify[bn254fr.Element](t, seed) })
	t.Run("bls12-377", func(t *testing.T) { testProveVerify[bls12377fr.Element](t, seed) })
}

func testTamper[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	for i, cfg := range testConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		w := randomWitness(rng, cfg)
		out := honestClaims[E, P](rng, cfg, w)
		proof, _, err := Prove(newTranscript[E, P](), cfg, w, out)
		if err != nil {
			t.Fatal(err)
		}
		one := field.One[E, P]()
		for j, x := range proofElements(proof) {
			saved := *x
			P(x).Add(x, &one)
			if err := verifyAndCheck[E, P](cfg, w, proof, out); err == nil {
				t.Errorf("%+v: element %d tampered, proof accepted", cfg, j)
			}
			*x = saved
		}
		if err := verifyAndCheck[E, P](cfg, w, proof, out); err != nil {
			t.Fatalf("restored proof rejected: %v", err)
		}
	}
}

func TestTamper(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testTamper[bn254fr.Element](t, seed) })
	t.Run("bls12-377", func(t *testing.T) { testTamper[bls12377fr.Element](t, seed) })
}

func TestEvaluateWeight(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, s := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {3, 5}, {64, 64}, {100, 33}, {33, 100}, {256, 64}} {
		out, in := s[0], s[1]
		w := randomWeights(rng, out*in)
		w[0] = -128
		wide := make([]int64, len(w))
		for i, v := range w {
			wide[i] = int64(v)
		}
		point := field.RandomVector[bn254fr.Element](rng, poly.Log2Ceil(out)+poly.Log2Ceil(in))
		got, err := EvaluateWeight[bn254fr.Element](w, out, in, point)
		if err != nil {
			t.Fatal(err)
		}
		want, err := poly.EvaluateTensor[bn254fr.Element](wide, []int{out, in}, point)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(&want) {
			t.Fatalf("%d×%d: EvaluateWeight differs from the dense evaluation", out, in)
		}
		b := wide[:out]
		gotB, err := EvaluateBias[bn254fr.Element](b, point[:poly.Log2Ceil(out)])
		if err != nil {
			t.Fatal(err)
		}
		wantB, _ := poly.EvaluateTensor[bn254fr.Element](b, []int{out}, point[:poly.Log2Ceil(out)])
		if !gotB.Equal(&wantB) {
			t.Fatalf("%d: EvaluateBias differs from the dense evaluation", out)
		}
	}
	if _, err := EvaluateWeight[bn254fr.Element](make([]int8, 6), 2, 4, make([]bn254fr.Element, 3)); err == nil {
		t.Error("6 weights accepted for a 2×4 matrix")
	}
	if _, err := EvaluateWeight[bn254fr.Element](make([]int8, 8), 2, 4, make([]bn254fr.Element, 2)); err == nil {
		t.Error("2×4 matrix evaluated at a point of 2 coordinates")
	}
	if _, err := EvaluateBias[bn254fr.Element](make([]int64, 3), make([]bn254fr.Element, 1)); err == nil {
		t.Error("bias of 3 entries evaluated at a point of 1 coordinate")
	}
}

func TestInvalidInputs(t *testing.T) {
	type E = bn254fr.Element
	rng := rand.New(rand.NewPCG(1, 2))
	good := testConfigs[2]
	w := randomWitness(rng, good)
	out := honestClaims[E](rng, good, w)
	for _, cfg := range []Config{
		{Rows: 0, In: 4, Projections: []Projection{{Out: 1}}},
		{Rows: 1, In: 0, Projections: []Projection{{Out: 1}}},
		{Rows: 1, In: 4},
		{Rows: 1, In: 4, Projections: []Projection{{Out: 0}}},
		{Rows: 1 << 20, In: 1 << 20, Projections: []Projection{{Out: 1}}},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	witnesses := map[string]func(*Witness){
		"short X":          func(w *Witness) { w.X = w.X[1:] },
		"missing weight":   func(w *Witness) { w.Weights = w.Weights[1:] },
		"short weight":     func(w *Witness) { w.Weights[1] = w.Weights[1][1:] },
		"missing bias":     func(w *Witness) { w.Biases[0] = nil },
		"short bias list":  func(w *Witness) { w.Biases = w.Biases[1:] },
		"bias without one": func(w *Witness) { w.Biases[1] = []int64{1} },
	}
	for name, edit := range witnesses {
		bad := randomWitness(rand.New(rand.NewPCG(1, 2)), good)
		edit(&bad)
		if _, _, err := Prove(newTranscript[E](), good, bad, out); err == nil {
			t.Errorf("witness with %s accepted", name)
		}
	}
	proof, _, err := Prove(newTranscript[E](), good, w, out)
	if err != nil {
		t.Fatal(err)
	}
	short := out[:2]
	if _, _, err := Prove(newTranscript[E](), good, w, short); err == nil {
		t.Error("prover accepted 2 claims for 3 projections")
	}
	if _, err := Verify(newTranscript[E](), good, proof, short); err == nil {
		t.Error("verifier accepted 2 claims for 3 projections")
	}
	moved := append([]poly.Claim[E](nil), out...)
	moved[1].Point = append([]E(nil), out[1].Point...)
	moved[1].Point[0].SetUint64(5)
	if _, _, err := Prove(newTranscript[E](), good, w, moved); err == nil {
		t.Error("prover accepted claims with different row points under SharedRow")
	}
	if _, err := Verify(newTranscript[E](), good, proof, moved); err == nil {
		t.Error("verifier accepted claims with different row points under SharedRow")
	}
	for name, edit := range map[string]func(*Proof[E]){
		"nil":            nil,
		"missing bias":   func(p *Proof[E]) { p.Biases = p.Biases[1:] },
		"missing weight": func(p *Proof[E]) { p.Weights = p.Weights[1:] },
		"extra input":    func(p *Proof[E]) { p.Inputs = append(p.Inputs, p.Inputs[0]) },
		"extra merge":    func(p *Proof[E]) { p.Merge = &sumcheck.SamePolyProof[E]{} },
		"missing round":  func(p *Proof[E]) { p.SumCheck.Rounds = p.SumCheck.Rounds[1:] },
		"short round":    func(p *Proof[E]) { p.SumCheck.Rounds[0] = p.SumCheck.Rounds[0][:1] },
	} {
		var bad *Proof[E]
		if edit != nil {
			c := *proof
			c.Biases = append([]E(nil), proof.Biases...)
			c.Weights = append([]E(nil), proof.Weights...)
			c.Inputs = append([]E(nil), proof.Inputs...)
			c.SumCheck.Rounds = append([][]E(nil), proof.SumCheck.Rounds...)
			edit(&c)
			bad = &c
		}
		if _, err := Verify(newTranscript[E](), good, bad, out); !errors.Is(err, sumcheck.ErrRejected) {
			t.Errorf("%s proof: got %v, want a rejection", name, err)
		}
	}
}
