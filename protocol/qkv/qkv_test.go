package qkv

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
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// testConfigs cover s ∈ {1, 2, 3, 5, 16}, heads ∈ {1, 3, 4, 8, 12}, head
// widths 1, 10 and 64, grouped-query attention 4:1, 4:1 and 3:1, with and
// without bias.
var testConfigs = []Config{
	{Rows: 1, Hidden: 20, Heads: 1, KVHeads: 1, HeadDim: 10, Bias: true},
	{Rows: 3, Hidden: 24, Heads: 3, KVHeads: 3, HeadDim: 10, Bias: false},
	{Rows: 5, Hidden: 40, Heads: 12, KVHeads: 3, HeadDim: 10, Bias: true},
	{Rows: 16, Hidden: 64, Heads: 4, KVHeads: 1, HeadDim: 64, Bias: false},
	{Rows: 1, Hidden: 48, Heads: 12, KVHeads: 12, HeadDim: 10, Bias: true},
	{Rows: 3, Hidden: 17, Heads: 12, KVHeads: 4, HeadDim: 10, Bias: false},
	{Rows: 2, Hidden: 1, Heads: 1, KVHeads: 1, HeadDim: 1, Bias: true},
	{Rows: 1, Hidden: 32, Heads: 8, KVHeads: 2, HeadDim: 64, Bias: false},
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

// widths returns the output widths of Q, K and V.
func widths(cfg Config) [3]int { return [3]int{cfg.QCols(), cfg.KVCols(), cfg.KVCols()} }

// randomWitness draws a 16-bit input, int8 weights (−128 included) and
// accumulator-scale biases.
func randomWitness(rng *rand.Rand, cfg Config) Witness {
	w := Witness{X: randomInts(rng, cfg.Rows*cfg.Hidden, 1<<15)}
	for _, n := range widths(cfg) {
		w.Weights = append(w.Weights, randomWeights(rng, n*cfg.Hidden))
		if cfg.Bias {
			w.Biases = append(w.Biases, randomInts(rng, n, 1<<20))
		}
	}
	return w
}

// outputs returns Q, K and V by the model's integer matmul.
func outputs(cfg Config, w Witness) [3][]int64 {
	var res [3][]int64
	for o, n := range widths(cfg) {
		var b []int64
		if cfg.Bias {
			b = w.Biases[o]
		}
		res[o] = model.MatMulInt(w.X, cfg.Rows, cfg.Hidden, w.Weights[o], n, b)
	}
	return res
}

// honestClaims evaluates Q, K and V at random points, each with its own
// row point.
func honestClaims[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg Config, w Witness) ([]poly.Claim[E], error) {
	out := make([]poly.Claim[E], 3)
	for o, t := range outputs(cfg, w) {
		n := widths(cfg)[o]
		point := field.RandomVector[E, P](rng, poly.Log2Ceil(cfg.Rows)+poly.Log2Ceil(n))
		v, err := poly.EvaluateTensor[E, P](t, []int{cfg.Rows, n}, point)
		if err != nil {
			return nil, err
		}
		out[o] = poly.Claim[E]{Point: point, Value: v}
	}
	return out, nil
}

// checkLeftClaims checks the claims the verifier returns against the
// tensors, as the caller of a layer does.
func checkLeftClaims[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, c Claims[E]) error {
	x, err := poly.EvaluateTensor[E, P](w.X, []int{cfg.Rows, cfg.Hidden}, c.Input.Point)
	if err != nil {
		return err
	}
	if !P(&x).Equal(&c.Input.Value) {
		return errors.New("input claim does not match X")
	}
	for o, n := range widths(cfg) {
		v, err := linear.EvaluateWeight[E, P](w.Weights[o], n, cfg.Hidden, c.Weights[o].Point)
		if err != nil {
			return err
		}
		if !P(&v).Equal(&c.Weights[o].Value) {
			return fmt.Errorf("weight claim %d does not match its matrix", o)
		}
		if !cfg.Bias {
			continue
		}
		if v, err = linear.EvaluateBias[E, P](w.Biases[o], c.Biases[o].Point); err != nil {
			return err
		}
		if !P(&v).Equal(&c.Biases[o].Value) {
			return fmt.Errorf("bias claim %d does not match its vector", o)
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
	return transcript.New[E, P]("qkv-test", field.FromInt64[E, P](7))
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
	for _, cfg := range testConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(cfg.Rows)))
		w := randomWitness(rng, cfg)
		out, err := honestClaims[E, P](rng, cfg, w)
		if err != nil {
			t.Fatal(err)
		}
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
		// A wrong output claim on Q, K or V is rejected.
		one := field.One[E, P]()
		for o := range out {
			bad := append([]poly.Claim[E](nil), out...)
			P(&bad[o].Value).Add(&bad[o].Value, &one)
			if err := verifyAndCheck[E, P](cfg, w, proof, bad); err == nil {
				t.Fatalf("%+v: wrong claim on output %d accepted", cfg, o)
			}
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
	for _, cfg := range testConfigs[:3] {
		rng := rand.New(rand.NewPCG(seed, 1))
		w := randomWitness(rng, cfg)
		out, err := honestClaims[E, P](rng, cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		proof, _, err := Prove(newTranscript[E, P](), cfg, w, out)
		if err != nil {
			t.Fatal(err)
		}
		one := field.One[E, P]()
		for i, x := range proofElements(proof) {
			saved := *x
			P(x).Add(x, &one)
			if err := verifyAndCheck[E, P](cfg, w, proof, out); err == nil {
				t.Errorf("%+v: element %d tampered, proof accepted", cfg, i)
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

func TestInvalidInputs(t *testing.T) {
	type E = bn254fr.Element
	good := Config{Rows: 3, Hidden: 8, Heads: 4, KVHeads: 2, HeadDim: 4, Bias: true}
	for _, cfg := range []Config{
		{Rows: 0, Hidden: 8, Heads: 4, KVHeads: 2, HeadDim: 4},
		{Rows: 3, Hidden: 0, Heads: 4, KVHeads: 2, HeadDim: 4},
		{Rows: 3, Hidden: 8, Heads: 4, KVHeads: 3, HeadDim: 4},
		{Rows: 3, Hidden: 8, Heads: 4, KVHeads: 0, HeadDim: 4},
		{Rows: 3, Hidden: 8, Heads: 1 << 20, KVHeads: 1, HeadDim: 1 << 20},
		{Rows: 3, Hidden: 8, Heads: 1 << 40, KVHeads: 1, HeadDim: 1 << 40},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	w := randomWitness(rng, good)
	out, err := honestClaims[E](rng, good, w)
	if err != nil {
		t.Fatal(err)
	}
	short := w
	short.Weights = [][]int8{w.Weights[0], w.Weights[1][1:], w.Weights[2]}
	if _, _, err := Prove(newTranscript[E](), good, short, out); err == nil {
		t.Error("short W_K accepted")
	}
	noBias := w
	noBias.Biases = [][]int64{nil, w.Biases[1], w.Biases[2]}
	if _, _, err := Prove(newTranscript[E](), good, noBias, out); err == nil {
		t.Error("missing bias accepted")
	}
	if _, _, err := Prove(newTranscript[E](), good, w, out[:2]); err == nil {
		t.Error("two output claims accepted")
	}
	proof, _, err := Prove(newTranscript[E](), good, w, out)
	if err != nil {
		t.Fatal(err)
	}
	for name, malformed := range map[string]func(p *Proof[E]){
		"two weight evaluations": func(p *Proof[E]) { p.Weights = p.Weights[:2] },
		"no same-poly":           func(p *Proof[E]) { p.Merge = nil },
		"one input evaluation":   func(p *Proof[E]) { p.Inputs = p.Inputs[:1] },
		"no bias evaluation":     func(p *Proof[E]) { p.Biases = nil },
	} {
		p := *proof
		malformed(&p)
		if _, err := Verify(newTranscript[E](), good, &p, out); !errors.Is(err, sumcheck.ErrRejected) {
			t.Errorf("proof with %s: got %v, want a rejection", name, err)
		}
	}
	if _, err := Verify(newTranscript[E](), good, nil, out); err == nil {
		t.Error("nil proof accepted")
	}
}
