package qkv

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
)

// plainProjections returns the plain integer projections of the layer
// (the model package's int8 kernel, three matmuls with bias).
func plainProjections(cfg Config, w Witness) func() {
	toInt8 := func(v []int64) []int8 {
		out := make([]int8, len(v))
		for i, x := range v {
			out[i] = int8(x)
		}
		return out
	}
	wq, wk, wv := toInt8(w.WQ), toInt8(w.WK), toInt8(w.WV)
	return func() {
		model.MatMulInt(w.X, cfg.Rows, cfg.Hidden, wq, cfg.QCols(), w.BQ)
		model.MatMulInt(w.X, cfg.Rows, cfg.Hidden, wk, cfg.KVCols(), w.BK)
		model.MatMulInt(w.X, cfg.Rows, cfg.Hidden, wv, cfg.KVCols(), w.BV)
	}
}

// benchProve times the prover and, between its runs with the timer
// stopped, the plain computation, so that both see the same load on a
// shared machine; ratio = prover time / plain time.
func benchProve[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := randomWitness(rng, cfg, 127)
	out, err := honestClaims[E, P](rng, cfg, w)
	if err != nil {
		b.Fatal(err)
	}
	plain := plainProjections(cfg, w)
	var plainTotal, proveTotal time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		start := time.Now()
		plain()
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

// BenchmarkProve runs the prover on GPT-2-small shapes (d = 768, 12 heads
// of 64, with bias) for a 16-token prompt and a one-token decoding pass,
// and on a TinyLlama layer (d = 2048, 32:4 heads, no bias), reporting the
// ratio to the plain int8 projections measured in the same run.
func BenchmarkProve(b *testing.B) {
	shapes := []struct {
		name string
		cfg  Config
	}{
		{"gpt2-small/s=16", Config{Rows: 16, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
		{"gpt2-small/decode", Config{Rows: 1, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64, Bias: true}},
		{"tinyllama/s=16", Config{Rows: 16, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
		{"tinyllama/decode", Config{Rows: 1, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 64}},
	}
	for _, s := range shapes {
		b.Run(fmt.Sprintf("bn254/%s", s.name), func(b *testing.B) { benchProve[bn254fr.Element](b, s.cfg) })
		b.Run(fmt.Sprintf("bls12-377/%s", s.name), func(b *testing.B) { benchProve[bls12377fr.Element](b, s.cfg) })
	}
}
