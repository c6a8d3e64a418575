package linear

import (
	"math/rand/v2"
	"testing"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
)

// benchConfigs are GPT-2 small's matmuls (d = 768, MLP 3072) on a
// 16-token prompt and on one decoding token, and its Q, K, V projections
// batched over their shared input.
var benchConfigs = []struct {
	name string
	cfg  Config
}{
	{"attn.o/s=16", Config{Rows: 16, In: 768, Projections: []Projection{{Out: 768, Bias: true}}}},
	{"mlp.up/s=16", Config{Rows: 16, In: 768, Projections: []Projection{{Out: 3072, Bias: true}}}},
	{"mlp.down/s=16", Config{Rows: 16, In: 3072, Projections: []Projection{{Out: 768, Bias: true}}}},
	{"qkv/s=16", Config{Rows: 16, In: 768, Projections: []Projection{{Out: 768, Bias: true}, {Out: 768, Bias: true}, {Out: 768, Bias: true}}, SharedRow: true}},
	{"mlp.up/s=1", Config{Rows: 1, In: 768, Projections: []Projection{{Out: 3072, Bias: true}}}},
}

// benchWitness draws an 8-bit input (the model's normed activations) and
// int8 weights.
func benchWitness(cfg Config) Witness {
	rng := rand.New(rand.NewPCG(3, 4))
	w := randomWitness(rng, cfg)
	for i := range w.X {
		w.X[i] = rng.Int64N(255) - 127
	}
	return w
}

// benchProve times the prover and, interleaved in the same iterations so
// that both see the same load of the machine, the plain integer matmuls
// (model.MatMulInt, one per projection); ns/op is their sum, prove-ns and
// plain-ns each, ×plain their ratio.
func benchProve[E field.Scalar, P field.Ptr[E]](b *testing.B, cfg Config) {
	w := benchWitness(cfg)
	rng := rand.New(rand.NewPCG(5, 6))
	row := field.RandomVector[E, P](rng, cfg.RowVars())
	out := make([]poly.Claim[E], len(cfg.Projections))
	for k, p := range cfg.Projections {
		point := poly.Concat(row, field.RandomVector[E, P](rng, poly.Log2Ceil(p.Out)))
		v, err := poly.EvaluateTensor[E, P](plainAcc(cfg, w, k), []int{cfg.Rows, p.Out}, point)
		if err != nil {
			b.Fatal(err)
		}
		out[k] = poly.Claim[E]{Point: point, Value: v}
	}
	var plainTime, proveTime time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		for k, p := range cfg.Projections {
			model.MatMulInt(w.X, cfg.Rows, cfg.In, w.Weights[k], p.Out, w.Biases[k])
		}
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

func BenchmarkProve(b *testing.B) {
	for _, c := range benchConfigs {
		b.Run("bn254/"+c.name, func(b *testing.B) { benchProve[bn254fr.Element](b, c.cfg) })
		b.Run("bls12-377/"+c.name, func(b *testing.B) { benchProve[bls12377fr.Element](b, c.cfg) })
	}
}

// BenchmarkEvaluateWeight times the native check of a weight claim on
// GPT-2 small's MLP matrix (3072 × 768).
func BenchmarkEvaluateWeight(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	w := randomWeights(rng, 3072*768)
	point := field.RandomVector[bn254fr.Element](rng, 12+10)
	b.ResetTimer()
	for range b.N {
		if _, err := EvaluateWeight[bn254fr.Element](w, 3072, 768, point); err != nil {
			b.Fatal(err)
		}
	}
}
