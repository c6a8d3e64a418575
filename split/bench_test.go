package split

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"

	"github.com/veriformer/veriformer/model"
)

// TinyLlamaLayerConfig is one TinyLlama-1.1B block (d = 2048, MLP width
// 5,632, 32 query heads, 4 key/value heads, head dimension 64) with a
// 256-token vocabulary, for benchmarks with random weights.
func tinyLlamaLayerConfig() *model.Config {
	return &model.Config{Family: model.Llama, Vocab: 256, Hidden: 2048, Layers: 1, Heads: 32, KVHeads: 4,
		Intermediate: 5632, MaxPositions: 64, NormEps: 1e-5, RopeTheta: 10000}
}

var tinyLlamaLayer = sync.OnceValues(func() (*model.Model, error) {
	c := tinyLlamaLayerConfig()
	w, err := model.RandomWeights(c, 1105, model.DefaultEmbedScale, model.DefaultGain)
	if err != nil {
		return nil, err
	}
	return model.New(c, w, nil)
})

// BenchmarkTinyLlamaToken measures, over loopback HTTP, the decoding of
// one token with the TinyLlama-shaped layer encrypted (after a 4-token
// prompt): latency, the server's compute and the bytes each way.
func BenchmarkTinyLlamaToken(b *testing.B) {
	m, err := tinyLlamaLayer()
	if err != nil {
		b.Fatal(err)
	}
	benchToken(b, m, 1)
}

// BenchmarkBuiltinToken measures the same for the built-in Llama model
// with one and with all three layers encrypted.
func BenchmarkBuiltinToken(b *testing.B) {
	for _, layers := range []int{1, 3} {
		b.Run(fmt.Sprintf("encrypted=%d", layers), func(b *testing.B) { benchToken(b, builtin(), layers) })
	}
}

func benchToken(b *testing.B, m *model.Model, layers int) {
	_, url := serve(b, ServerConfig{Model: m})
	ctx := context.Background()
	start := time.Now()
	c, err := Dial(ctx, ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: layers})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("session: %d Galois keys, %d bytes, set-up %s", len(c.layout.Rotations()), c.Stats.KeyBytes, time.Since(start).Round(time.Millisecond))
	cache := m.NewCache()
	start = time.Now()
	if _, err := c.pass(ctx, cache, []int{1, 2, 3, 4}); err != nil {
		b.Fatal(err)
	}
	b.Logf("4-token prompt: %s", time.Since(start).Round(time.Millisecond))
	before := c.Stats
	b.ResetTimer()
	for i := range b.N {
		if cache.Len >= m.Config.MaxPositions {
			b.Fatal("context full: use a smaller -benchtime")
		}
		if _, err := c.forward(ctx, cache, []int{5 + i%200}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	s := c.Stats
	b.ReportMetric(float64(s.ServerCompute-before.ServerCompute)/n/1e6/float64(layers), "server-ms/layer")
	b.ReportMetric(float64(s.Encrypt-before.Encrypt+s.Decrypt-before.Decrypt)/n/1e6, "crypto-ms/token")
	b.ReportMetric(float64(s.BytesSent-before.BytesSent)/n, "sent-B/token")
	b.ReportMetric(float64(s.BytesReceived-before.BytesReceived)/n, "received-B/token")
	b.ReportMetric(s.MaxError, "max-ckks-error")
}

// BenchmarkTinyLlamaLayerServer measures the server's compute for the
// four rounds of the TinyLlama-shaped layer on one row, without HTTP.
func BenchmarkTinyLlamaLayerServer(b *testing.B) {
	m, err := tinyLlamaLayer()
	if err != nil {
		b.Fatal(err)
	}
	_, url := serve(b, ServerConfig{Model: m})
	c, err := Dial(context.Background(), ClientConfig{URL: url, Token: testToken, Model: m, EncryptedLayers: 1})
	if err != nil {
		b.Fatal(err)
	}
	l := c.layout
	gks := rlwe.NewKeyGenerator(l.Params).GenGaloisKeysNew(l.GaloisElements(), c.sk)
	p := newProjector(l, rlwe.NewMemEvaluationKeySet(nil, gks...), 0)
	layer := &m.Quant.Layers[0]
	rounds := []Round{RoundQKV, RoundOutput, RoundMLP, RoundDown}
	reqs := make(map[Round]*Request)
	for _, r := range rounds {
		sh := l.shapeOf(layer, r)
		x := model.Tensor{Shape: []int{1, sh.In}, Data: make([]int64, sh.In)}
		for i := range x.Data {
			x.Data[i] = int64((i*7919)%8191 - 4095)
		}
		req, _, err := c.encrypt(0, r, x)
		if err != nil {
			b.Fatal(err)
		}
		reqs[r] = req
	}
	spent := make(map[Round]time.Duration)
	cpu := cpuTime()
	b.ResetTimer()
	for range b.N {
		for _, r := range rounds {
			start := time.Now()
			if _, err := p.project(projections(layer, r), 1, reqs[r].Cts); err != nil {
				b.Fatal(err)
			}
			spent[r] += time.Since(start)
		}
	}
	b.StopTimer()
	for _, r := range rounds {
		b.ReportMetric(float64(spent[r].Milliseconds())/float64(b.N), r.String()+"-ms")
	}
	// CPU time does not depend on how busy the machine is.
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/layer")
}
