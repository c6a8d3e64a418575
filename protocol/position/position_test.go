package position

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
	{Rows: 3, Width: 10, Context: 64, Start: 0},
	{Rows: 5, Width: 12, Context: 7, Start: 0},
	{Rows: 16, Width: 10, Context: 64, Start: 0},
	{Rows: 4, Width: 3, Context: 4, Start: 0},
	{Rows: 1, Width: 10, Context: 64, Start: 0},
	{Rows: 1, Width: 10, Context: 64, Start: 37},
	{Rows: 1, Width: 5, Context: 6, Start: 5},
	{Rows: 2, Width: 1, Context: 2, Start: 0},
	{Rows: 1, Width: 1, Context: 1, Start: 0},
}

func randomInts(rng *rand.Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = rng.Int64N(1<<16) - 1<<15
	}
	return out
}

func newTranscript[E field.Scalar, P field.Ptr[E]]() *transcript.Transcript[E, P] {
	return transcript.New[E, P]("position-test")
}

// output returns X + Table[shift : shift+Rows] (the layer's output when
// shift = Start).
func output(cfg Config, w Witness, shift int) []int64 {
	out := make([]int64, cfg.Rows*cfg.Width)
	for i := range cfg.Rows {
		for j := range cfg.Width {
			out[i*cfg.Width+j] = w.X[i*cfg.Width+j] + w.Table[(shift+i)*cfg.Width+j]
		}
	}
	return out
}

func claimOn[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, cfg Config, o []int64) []poly.Claim[E] {
	point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
	return []poly.Claim[E]{{Point: point, Value: EvaluateTable[E, P](o, cfg.Rows, cfg.Width, point)}}
}

// accepts runs the verifier and the caller's checks of the left claims.
func accepts[E field.Scalar, P field.Ptr[E]](cfg Config, w Witness, proof *Proof[E], out []poly.Claim[E]) bool {
	claims, err := Verify(newTranscript[E, P](), cfg, proof, out)
	if err != nil {
		return false
	}
	x := EvaluateTable[E, P](w.X, cfg.Rows, cfg.Width, claims.Input.Point)
	table := EvaluateTable[E, P](w.Table, cfg.Context, cfg.Width, claims.Table.Point)
	return P(&x).Equal(&claims.Input.Value) && P(&table).Equal(&claims.Table.Value)
}

func testPosition[E field.Scalar, P field.Ptr[E]](t *testing.T, seed uint64) {
	one := field.One[E, P]()
	for _, cfg := range testConfigs {
		rng := rand.New(rand.NewPCG(seed, uint64(cfg.Rows*100+cfg.Start)))
		w := Witness{X: randomInts(rng, cfg.Rows*cfg.Width), Table: randomInts(rng, cfg.Context*cfg.Width)}
		out := claimOn[E, P](rng, cfg, output(cfg, w, cfg.Start))
		proof, proverClaims, err := Prove(newTranscript[E, P](), cfg, w, out)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		table := EvaluateTable[E, P](w.Table, cfg.Context, cfg.Width, proverClaims.Table.Point)
		if !P(&table).Equal(&proverClaims.Table.Value) {
			t.Fatalf("%+v: prover's table claim is wrong", cfg)
		}
		if !accepts[E, P](cfg, w, proof, out) {
			t.Fatalf("%+v: honest proof rejected", cfg)
		}
		elements := []*E{&proof.Input}
		if proof.Masked != nil {
			for _, r := range proof.Masked.SumCheck.Rounds {
				for i := range r {
					elements = append(elements, &r[i])
				}
			}
			elements = append(elements, &proof.Masked.Prefix)
		}
		for i := range proof.Siblings {
			elements = append(elements, &proof.Siblings[i])
		}
		for i, x := range elements {
			saved := *x
			P(x).Add(x, &one)
			if accepts[E, P](cfg, w, proof, out) {
				t.Errorf("%+v: element %d tampered, accepted", cfg, i)
			}
			*x = saved
		}
		// The output built from the wrong position rows.
		shift := (cfg.Start + 1) % (cfg.Context - cfg.Rows + 1)
		if shift != cfg.Start {
			bad := claimOn[E, P](rng, cfg, output(cfg, w, shift))
			badProof, _, err := Prove(newTranscript[E, P](), cfg, w, bad)
			if err != nil {
				t.Fatal(err)
			}
			if accepts[E, P](cfg, w, badProof, bad) {
				t.Errorf("%+v: rows from position %d accepted", cfg, shift)
			}
		}
	}
}

func TestPosition(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	t.Run("bn254", func(t *testing.T) { testPosition[bn254fr.Element](t, seed) })
	t.Run("bls12-377", func(t *testing.T) { testPosition[bls12377fr.Element](t, seed) })
}

func TestInvalid(t *testing.T) {
	type E = bn254fr.Element
	for _, cfg := range []Config{{Rows: 0, Width: 1, Context: 1}, {Rows: 2, Width: 1, Context: 4, Start: 1}, {Rows: 1, Width: 1, Context: 4, Start: 4}} {
		if cfg.Validate() == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	cfg := Config{Rows: 3, Width: 2, Context: 8}
	rng := rand.New(rand.NewPCG(1, 1))
	w := Witness{X: randomInts(rng, 6), Table: randomInts(rng, 16)}
	out := claimOn[E](rng, cfg, output(cfg, w, 0))
	if _, _, err := Prove(newTranscript[E](), cfg, Witness{X: w.X, Table: w.Table[1:]}, out); err == nil {
		t.Error("short table accepted")
	}
	if _, _, err := Prove(newTranscript[E](), cfg, w, append(out, out[0])); err == nil {
		t.Error("two claims accepted")
	}
	proof, _, err := Prove(newTranscript[E](), cfg, w, out)
	if err != nil {
		t.Fatal(err)
	}
	proof.Siblings = proof.Siblings[1:]
	if _, err := Verify(newTranscript[E](), cfg, proof, out); err == nil {
		t.Error("proof with a missing sibling accepted")
	}
}
