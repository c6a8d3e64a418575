package kvcache

import (
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

// benchAppend times the prover of one append of cfg.Claims claims on the
// new cache and, between its runs with the timer stopped, the plain
// append (copying the cache and the new rows, as the model's forward
// pass does); ratio = prover time / plain time.
func benchAppend[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	rng := rand.New(rand.NewPCG(1, 2))
	w, out := appendCase[E, P](rng, cfg, cfg.NewRows())
	var sink []int64
	var plainTotal, proveTotal time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		start := time.Now()
		sink = append(append(sink[:0], w.Prev...), w.New...)
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
	_ = sink
}

// BenchmarkAppend: GPT-2 small's key/value width 768, a decoding pass at
// position 16 of a context of 64, and a turn of 16 rows at position 16.
func BenchmarkAppend(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"row", Config{Context: 64, Width: 768, Position: 16, Claims: 2}}, {"turn16", Config{Context: 64, Width: 768, Position: 16, Rows: 16, Claims: 2}}} {
		b.Run(c.name+"/bn254", func(b *testing.B) { benchAppend[bn254fr.Element](b, c.cfg) })
		b.Run(c.name+"/bls12-377", func(b *testing.B) { benchAppend[bls12377fr.Element](b, c.cfg) })
	}
}
