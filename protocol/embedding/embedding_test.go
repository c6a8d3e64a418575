package embedding

import (
	"math/rand/v2"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

var testConfigs = []Config{
	{Rows: 1, Vocab: 1, Width: 3},
	{Rows: 2, Vocab: 2, Width: 1},
	{Rows: 3, Vocab: 7, Width: 10},
	{Rows: 5, Vocab: 64, Width: 10},
	{Rows: 16, Vocab: 100, Width: 12},
}

func newTranscript[E field.Scalar, P field.Ptr[E]]() *transcript.Transcript[E, P] {
	return transcript.New[E, P]("embedding-test")
}

func randomWitness(rng *rand.Rand, cfg Config) Witness {
	w := Witness{Tokens: make([]int, cfg.Rows), Table: make([]int64, cfg.Vocab*cfg.Width)}
	for i := range w.Tokens {
		w.Tokens[i] = rng.IntN(cfg.Vocab)
	}
	for i := range w.Table {
		w.Table[i] = rng.Int64N(1<<16) - 1<<15
	}
	return w
}

// accepts runs the verifier and checks the table claim.
func accepts[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, tokens []int, proof *Proof[E], out []poly.Claim[E]) bool {
	claims, err := Verify(newTranscript[E, P](), cfg, tokens, proof, out)
	if err != nil {
		return false
	}
	want := EvaluateTable[E, P](w.Table, cfg.Vocab, cfg.Width, claims.Table.Point)
	return P(&want).Equal(&claims.Table.Value)
}

func testEmbedding[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	one := field.One[E, P]()
	for _, cfg := range testConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(cfg.Vocab)))
		w := randomWitness(rng, cfg)
		x, err := Compute(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
		out := []poly.Claim[E]{{Point: point, Value: EvaluateTable[E, P](x, cfg.Rows, cfg.Width, point)}}
		proof, proverClaims, err := Prove(newTranscript[E, P](), cfg, w, out)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		want := EvaluateTable[E, P](w.Table, cfg.Vocab, cfg.Width, proverClaims.Table.Point)
		if !P(&want).Equal(&proverClaims.Table.Value) {
			t.Fatalf("%+v: prover's table claim is wrong", cfg)
		}
		if !accepts[E, P](cfg, w, w.Tokens, proof, out) {
			t.Fatalf("%+v: honest proof rejected", cfg)
		}
		elements := []*E{&proof.Table}
		for _, r := range proof.SumCheck.Rounds {
			for i := range r {
				elements = append(elements, &r[i])
			}
		}
		for i, x := range elements {
			saved := *x
			P(x).Add(x, &one)
			if accepts[E, P](cfg, w, w.Tokens, proof, out) {
				t.Errorf("%+v: element %d tampered, accepted", cfg, i)
			}
			*x = saved
		}
		if cfg.Vocab > 1 {
			other := append([]int(nil), w.Tokens...)
			other[cfg.Rows-1] = (other[cfg.Rows-1] + 1) % cfg.Vocab
			if accepts[E, P](cfg, w, other, proof, out) {
				t.Errorf("%+v: another token accepted", cfg)
			}
		}
	}
}

func TestEmbedding(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testEmbedding[bn254fr.Element](t, seed) })
	t.Run("bls12-377", func(t *testing.T) { testEmbedding[bls12377fr.Element](t, seed) })
}

func TestSelector(t *testing.T) {
	type E = bn254fr.Element
	rng := rand.New(rand.NewPCG(4, 4))
	tokens := []int{5, 2, 5}
	rRow, rho := field.RandomVector[E](rng, 2), field.RandomVector[E](rng, 3)
	table := make([]E, 4*8)
	for i, t := range tokens {
		table[i*8+t] = field.One[E]()
	}
	want := poly.Evaluate[E](table, append(append([]E(nil), rRow...), rho...))
	if got := Selector[E](rRow, rho, tokens); !got.Equal(&want) {
		t.Error("selector differs from the dense one-hot matrix")
	}
}

func TestInvalid(t *testing.T) {
	type E = bn254fr.Element
	cfg := Config{Rows: 2, Vocab: 4, Width: 2}
	if (Config{Rows: 0, Vocab: 4, Width: 2}).Validate() == nil {
		t.Error("zero rows accepted")
	}
	w := Witness{Tokens: []int{1, 4}, Table: make([]int64, 8)}
	if _, err := Compute(cfg, w); err == nil {
		t.Error("token outside the vocabulary accepted")
	}
	w.Tokens = []int{1, 3}
	if _, err := Compute(cfg, Witness{Tokens: w.Tokens, Table: w.Table[1:]}); err == nil {
		t.Error("short table accepted")
	}
	out := []poly.Claim[E]{{Point: make([]E, 2)}}
	if _, _, err := Prove(newTranscript[E](), cfg, w, out); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Prove(newTranscript[E](), cfg, w, append(out, out[0])); err == nil {
		t.Error("two claims accepted")
	}
	if _, err := Verify(newTranscript[E](), cfg, []int{1, -1}, &Proof[E]{}, out); err == nil {
		t.Error("negative token accepted")
	}
	if _, err := Verify(newTranscript[E](), cfg, w.Tokens, nil, out); err == nil {
		t.Error("nil proof accepted")
	}
}

func testEvaluateTable[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	rows, cols := 5, 7
	values := make([]int64, rows*cols)
	dense := make([]E, 8*8)
	for i := range rows {
		for j := range cols {
			v := rng.Int64N(1<<40) - 1<<39
			if i == 0 && j == 0 {
				v = -1 << 63
			}
			values[i*cols+j] = v
			P(&dense[i*8+j]).SetInt64(v)
		}
	}
	point := field.RandomVector[E, P](rng, 6)
	got := EvaluateTable[E, P](values, rows, cols, point)
	want := poly.Evaluate[E, P](dense, point)
	if !P(&got).Equal(&want) {
		t.Error("EvaluateTable differs from the dense evaluation")
	}
}

func TestEvaluateTable(t *testing.T) {
	t.Run("bn254", testEvaluateTable[bn254fr.Element])
	t.Run("bls12-377", testEvaluateTable[bls12377fr.Element])
}
