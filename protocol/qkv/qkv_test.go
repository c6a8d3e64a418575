package qkv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// testConfigs cover s ∈ {1, 3, 5, 16}, heads ∈ {1, 3, 12}, head widths 10
// and 64, grouped-query attention 4:1 and 3:1, with and without bias.
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

// randomWitness draws int8-range weights (or larger ones, weightBound), a
// 16-bit input and accumulator-scale biases.
func randomWitness(rng *rand.Rand, cfg Config, weightBound int64) Witness {
	d, q, kv := cfg.Hidden, cfg.QCols(), cfg.KVCols()
	w := Witness{
		X:  randomInts(rng, cfg.Rows*d, 1<<15),
		WQ: randomInts(rng, q*d, weightBound),
		WK: randomInts(rng, kv*d, weightBound),
		WV: randomInts(rng, kv*d, weightBound),
	}
	if cfg.Bias {
		w.BQ, w.BK, w.BV = randomInts(rng, q, 1<<20), randomInts(rng, kv, 1<<20), randomInts(rng, kv, 1<<20)
	}
	return w
}

// honestClaims evaluates the plain outputs at random points.
func honestClaims[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg Config, w Witness) ([]poly.Claim[E], error) {
	q, k, v, err := Compute(cfg, w)
	if err != nil {
		return nil, err
	}
	cols := cfg.ColVars()
	widths := [3]int{cfg.QCols(), cfg.KVCols(), cfg.KVCols()}
	out := make([]poly.Claim[E], 3)
	for o, t := range [3][]int64{q, k, v} {
		point := field.RandomVector[E, P](rng, cfg.RowVars()+cols[o])
		out[o] = poly.Claim[E]{Point: point, Value: EvaluateMatrix[E, P](t, cfg.Rows, widths[o], point)}
	}
	return out, nil
}

// checkLeftClaims checks the claims the verifier returns against the
// tensors, as the caller of a layer does.
func checkLeftClaims[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, c Claims[E]) error {
	type check struct {
		name       string
		claim      poly.Claim[E]
		values     []int64
		rows, cols int
	}
	checks := []check{
		{"input", c.Input, w.X, cfg.Rows, cfg.Hidden},
		{"W_Q", c.WeightQ, w.WQ, cfg.QCols(), cfg.Hidden},
		{"W_K", c.WeightK, w.WK, cfg.KVCols(), cfg.Hidden},
		{"W_V", c.WeightV, w.WV, cfg.KVCols(), cfg.Hidden},
	}
	if cfg.Bias {
		checks = append(checks, check{"b_Q", c.BiasQ, w.BQ, 1, cfg.QCols()}, check{"b_K", c.BiasK, w.BK, 1, cfg.KVCols()}, check{"b_V", c.BiasV, w.BV, 1, cfg.KVCols()})
	}
	for _, ch := range checks {
		want := EvaluateMatrix[E, P](ch.values, ch.rows, ch.cols, ch.claim.Point)
		if !P(&want).Equal(&ch.claim.Value) {
			return fmt.Errorf("%s claim does not match the tensor", ch.name)
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
		for _, bound := range []int64{127, 1000} {
			rng := rand.New(rand.NewPCG(seed, uint64(cfg.Rows)))
			w := randomWitness(rng, cfg, bound)
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
			// A wrong output claim is rejected.
			bad := append([]poly.Claim[E](nil), out...)
			one := field.One[E, P]()
			P(&bad[1].Value).Add(&bad[1].Value, &one)
			if err := verifyAndCheck[E, P](cfg, w, proof, bad); err == nil {
				t.Fatalf("%+v: wrong claim on K accepted", cfg)
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
		w := randomWitness(rng, cfg, 127)
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
		{Rows: 3, Hidden: 8, Heads: 4, KVHeads: 3, HeadDim: 4},
		{Rows: 3, Hidden: 8, Heads: 1 << 20, KVHeads: 1, HeadDim: 1 << 20},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	w := randomWitness(rng, good, 127)
	out, err := honestClaims[E](rng, good, w)
	if err != nil {
		t.Fatal(err)
	}
	short := w
	short.WK = short.WK[1:]
	if _, _, err := Prove(newTranscript[E](), good, short, out); err == nil {
		t.Error("short W_K accepted")
	}
	noBias := w
	noBias.BQ = nil
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
	malformed := *proof
	malformed.Weights = malformed.Weights[:2]
	if _, err := Verify(newTranscript[E](), good, &malformed, out); err == nil {
		t.Error("proof with two weight evaluations accepted")
	}
	malformed = *proof
	malformed.Merge = nil
	if _, err := Verify(newTranscript[E](), good, &malformed, out); err == nil {
		t.Error("proof without same-poly accepted")
	}
	if _, err := Verify(newTranscript[E](), good, nil, out); err == nil {
		t.Error("nil proof accepted")
	}
}

func TestFoldRows(t *testing.T) {
	t.Run("bn254", testFoldRows[bn254fr.Element])
	t.Run("bls12-377", testFoldRows[bls12377fr.Element])
}

func testFoldRows[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, bound := range []int64{0, 1, 127, 256, 257, 1 << 40} {
		rows, cols := 7, 300
		w := randomInts(rng, rows*cols, bound)
		point := field.RandomVector[E, P](rng, 3)
		eq := poly.EqTable[E, P](point)
		got := foldRows[E, P](w, rows, cols, eq, 512)
		table := PadMatrix[E, P](w, rows, cols)
		want := foldMatrixRows(table, eq)
		for c := range want {
			if !P(&got[c]).Equal(&want[c]) {
				t.Fatalf("bound %d: column %d differs", bound, c)
			}
		}
	}
}

func TestCompute(t *testing.T) {
	cfg := Config{Rows: 2, Hidden: 3, Heads: 1, KVHeads: 1, HeadDim: 2, Bias: true}
	w := Witness{
		X:  []int64{1, 2, 3, -1, 0, 4},
		WQ: []int64{1, 0, 0, 0, 1, 0},
		WK: []int64{0, 0, 1, 1, 1, 1},
		WV: []int64{-1, 0, 0, 0, 0, -1},
		BQ: []int64{10, 20}, BK: []int64{0, 1}, BV: []int64{5, 5},
	}
	q, k, v, err := Compute(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	want := [3][]int64{{11, 22, 9, 20}, {3, 7, 4, 4}, {4, 2, 6, 1}}
	for o, got := range [3][]int64{q, k, v} {
		if fmt.Sprint(got) != fmt.Sprint(want[o]) {
			t.Errorf("output %d = %v, want %v", o, got, want[o])
		}
	}
	if _, _, _, err := Compute(cfg, Witness{}); err == nil {
		t.Error("empty witness accepted")
	}
}
