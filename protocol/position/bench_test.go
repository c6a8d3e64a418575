package position

import (
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

// benchProve times the prover and, between its runs with the timer
// stopped, the plain addition X + P[Start:Start+Rows]; ratio = prover time
// / plain time.
func benchProve[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := Witness{X: randomInts(rng, cfg.Rows*cfg.Width), Table: randomInts(rng, cfg.Context*cfg.Width)}
	out := claimOn[E, P](rng, cfg, output(cfg, w, cfg.Start))
	var plainTotal, proveTotal time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		start := time.Now()
		_ = output(cfg, w, cfg.Start)
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

// BenchmarkProve: GPT-2 small's width 768, context 64, a 16-token prompt
// and a decoding pass at position 16.
func BenchmarkProve(b *testing.B) {
	for _, s := range []struct {
		name string
		cfg  Config
	}{
		{"s=16", Config{Rows: 16, Width: 768, Context: 64}},
		{"decode", Config{Rows: 1, Width: 768, Context: 64, Start: 16}},
	} {
		b.Run("bn254/"+s.name, func(b *testing.B) { benchProve[bn254fr.Element](b, s.cfg) })
		b.Run("bls12-377/"+s.name, func(b *testing.B) { benchProve[bls12377fr.Element](b, s.cfg) })
	}
}
