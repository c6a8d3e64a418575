package qkv

import (
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

// benchProve times the prover and, interleaved in the same iterations so
// that both see the same load of the machine, the plain int8 projections;
// ns/op is their sum, prove-ns and plain-ns each, ×plain their ratio.
func benchProve[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := randomWitness(rng, cfg)
	out, err := honestClaims[E, P](rng, cfg, w)
	if err != nil {
		b.Fatal(err)
	}
	var plainTime, proveTime time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		outputs(cfg, w)
		mid := time.Now()
		if _, _, err := Prove(newTranscript[E, P](), cfg, w, out); err != nil {
			b.Fatal(err)
		}
		plainTime += mid.Sub(start)
		proveTime += time.Since(mid)
	}
	b.ReportMetric(float64(proveTime.Nanoseconds())/float64(b.N), "prove-ns/op")
	b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "plain-ns/op")
	b.ReportMetric(float64(proveTime)/float64(plainTime), "×plain")
}

// BenchmarkProve runs the prover over 16-token prompts with a row point
// per output (the same-poly merge on X, which protocol/linear's benchmarks,
// all with one row point, do not exercise): GPT-2 small (d = 768, 12 heads
// of 64, with bias) and a TinyLlama layer (d = 2048, 32:4 heads, no bias).
func BenchmarkProve(b *testing.B) {
	shapes := []struct {
		name string
		cfg  Config
	}{
		{"gpt2-small/s=16", Config{Rows: 16, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
		{"tinyllama/s=16", Config{Rows: 16, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
	}
	for _, s := range shapes {
		b.Run("bn254/"+s.name, func(b *testing.B) { benchProve[bn254fr.Element](b, s.cfg) })
		b.Run("bls12-377/"+s.name, func(b *testing.B) { benchProve[bls12377fr.Element](b, s.cfg) })
	}
}
