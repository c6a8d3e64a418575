package embedding

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

var fullVocab = flag.Bool("embedding.gpt2", false, "benchmark GPT-2's whole vocabulary (50,257 × 768, 309 MB of table)")

// benchProve times the prover and, between its runs with the timer
// stopped, the plain lookup; ratio = prover time / plain time.
func benchProve[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := randomWitness(rng, cfg)
	x, err := Compute(cfg, w)
	if err != nil {
		b.Fatal(err)
	}
	point := field.RandomVector[E, P](rng, cfg.RowVars()+cfg.ColVars())
	out := []poly.Claim[E]{{Point: point, Value: EvaluateTable[E, P](x, cfg.Rows, cfg.Width, point)}}
	var plainTotal, proveTotal time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		start := time.Now()
		if _, err := Compute(cfg, w); err != nil {
			b.Fatal(err)
		}
		plainTotal += time.Since(start)
		b.StartTimer()
		start = time.Now()
		if _, _, err := Prove(newTranscript[E, P](), cfg, w, out); err != nil {
			b.Fatal(err)
		}
		proveTotal += time.Since(start)
	}
	b.ReportMetric(float64(plainTotal.Nanoseconds())/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(proveTotal)/float64(plainTotal), "ratio")
}

// BenchmarkProve: width 768, a 16-token prompt and one decoded token, over
// a 4,096-entry vocabulary by default and GPT-2's 50,257 with
// -embedding.gpt2. The prover's cost is dominated by binding the table's
// columns (V·w multiplications), the lookup's by copying s rows.
func BenchmarkProve(b *testing.B) {
	vocab := 4096
	if *fullVocab {
		vocab = 50257
	}
	for _, s := range []struct {
		name string
		cfg  Config
	}{
		{"s=16", Config{Rows: 16, Vocab: vocab, Width: 768}},
		{"decode", Config{Rows: 1, Vocab: vocab, Width: 768}},
	} {
		b.Run("bn254/"+s.name, func(b *testing.B) { benchProve[bn254fr.Element](b, s.cfg) })
		b.Run("bls12-377/"+s.name, func(b *testing.B) { benchProve[bls12377fr.Element](b, s.cfg) })
	}
}
