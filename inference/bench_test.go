package inference

import (
	"flag"
	"testing"
	"time"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

var gpt2Small = flag.Bool("inference.gpt2small", false, "also benchmark a GPT-2-small-shaped model (12 layers, d=768, random weights)")

// BenchmarkProve measures the native prover of a whole pass against the
// integer forward pass of the same tokens, measured in the same run:
// prove-ratio = prover time / inference time (the prover starts from the
// trace, so this is the proving overhead on top of inference).
func BenchmarkProve(b *testing.B) {
	b.Run("default/s=16", func(b *testing.B) { benchProve(b, model.Default(), 16) })
	if *gpt2Small {
		c := model.GPT2SmallConfig(64)
		w, err := model.RandomWeights(c, 1, 1, 1)
		if err != nil {
			b.Fatal(err)
		}
		m, err := model.New(c, w, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("gpt2-small/s=16", func(b *testing.B) { benchProve(b, m, 16) })
	}
}

func benchProve(b *testing.B, m *model.Model, rows int) {
	tokens := make([]int, rows)
	for i := range tokens {
		tokens[i] = (i*37 + 11) % m.Config.Vocab
	}
	prompt, output := tokens[:rows-1], tokens[rows-1:]
	st, err := statement.Of[bn254fr.Element](m.ID(), prompt, output)
	if err != nil {
		b.Fatal(err)
	}
	var infer, prove time.Duration
	for b.Loop() {
		start := time.Now()
		tr, err := m.Forward(m.NewCache(), tokens)
		if err != nil {
			b.Fatal(err)
		}
		infer += time.Since(start)
		start = time.Now()
		if _, err := Prove[bn254fr.Element](m, st, statement.Request{Prompt: prompt, Output: output, Rows: rows}, tr); err != nil {
			b.Fatal(err)
		}
		prove += time.Since(start)
	}
	b.ReportMetric(float64(prove)/float64(infer), "prove-ratio")
	b.ReportMetric(float64(prove.Milliseconds())/float64(b.N), "prove-ms")
	b.ReportMetric(float64(infer.Milliseconds())/float64(b.N), "infer-ms")
}
