package model

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Linear is a float projection y = x·Wᵀ + b with Weight row-major
// [Out, In] (Hugging Face's Llama layout; GPT-2's Conv1D [In, Out] is
// transposed when loaded). Bias is nil when the family has none.
type Linear struct {
	In, Out int
	Weight  []float64
	Bias    []float64
}

// NormWeights holds a norm's per-channel scale γ and, for LayerNorm, its
// shift β (nil for RMSNorm).
type NormWeights struct {
	Weight []float64
	Bias   []float64
}

// LayerWeights holds one transformer block. Gate is nil for GPT-2, whose
// MLP is Down(GELU(Up(x))); Llama's is Down(SiLU(Gate(x)) ⊙ Up(x)).
type LayerWeights struct {
	AttnNorm   NormWeights
	Q, K, V, O Linear
	MLPNorm    NormWeights
	Gate       *Linear
	Up, Down   Linear
}

// Weights holds a model's float weights.
type Weights struct {
	// TokenEmbedding is [Vocab, Hidden].
	TokenEmbedding []float64
	// PositionEmbedding is [MaxPositions, Hidden] (GPT-2), nil for Llama.
	PositionEmbedding []float64
	Layers            []LayerWeights
	FinalNorm         NormWeights
	// LMHead is [Vocab, Hidden]; for tied models it is TokenEmbedding.
	LMHead []float64
}

// check verifies every shape against c.
func (w *Weights) check(c *Config) error {
	type item struct {
		name string
		got  []float64
		want int
	}
	d, kv, f := c.Hidden, c.KVDim(), c.Intermediate
	items := []item{
		{"token embedding", w.TokenEmbedding, c.Vocab * d},
		{"LM head", w.LMHead, c.Vocab * d},
		{"final norm weight", w.FinalNorm.Weight, d},
	}
	if c.Family == GPT2 {
		items = append(items, item{"position embedding", w.PositionEmbedding, c.MaxPositions * d}, item{"final norm bias", w.FinalNorm.Bias, d})
	}
	if len(w.Layers) != c.Layers {
		return fmt.Errorf("model: weights have %d layers, config says %d", len(w.Layers), c.Layers)
	}
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("layer %d ", i)
		lin := func(name string, x *Linear, in, out int) {
			items = append(items, item{p + name + " weight", x.Weight, in * out})
			if c.Family == GPT2 {
				items = append(items, item{p + name + " bias", x.Bias, out})
			}
			if x.In != in || x.Out != out {
				items = append(items, item{p + name + " shape", nil, -1})
			}
		}
		items = append(items, item{p + "attention norm weight", l.AttnNorm.Weight, d}, item{p + "MLP norm weight", l.MLPNorm.Weight, d})
		if c.Family == GPT2 {
			items = append(items, item{p + "attention norm bias", l.AttnNorm.Bias, d}, item{p + "MLP norm bias", l.MLPNorm.Bias, d})
		}
		lin("query", &l.Q, d, d)
		lin("key", &l.K, d, kv)
		lin("value", &l.V, d, kv)
		lin("output", &l.O, d, d)
		lin("up", &l.Up, d, f)
		lin("down", &l.Down, f, d)
		if c.Family == Llama {
			if l.Gate == nil {
				return fmt.Errorf("model: %sgate projection missing", p)
			}
			lin("gate", l.Gate, d, f)
		}
	}
	for _, it := range items {
		if len(it.got) != it.want {
			return fmt.Errorf("model: %s has %d values, want %d", it.name, len(it.got), it.want)
		}
		for j, v := range it.got {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("model: %s[%d] is %g", it.name, j, v)
			}
		}
	}
	return nil
}

// GPT2SmallConfig is the shape of GPT-2 small (124M parameters: 12 blocks,
// d = 768, 12 heads, MLP width 3,072, vocabulary 50,257, tied embeddings)
// with maxPositions positions, for tests and benchmarks of that size with
// [RandomWeights].
func GPT2SmallConfig(maxPositions int) *Config {
	return &Config{Family: GPT2, Vocab: 50257, Hidden: 768, Layers: 12, Heads: 12, KVHeads: 12,
		Intermediate: 3072, MaxPositions: maxPositions, NormEps: 1e-5, TiedEmbeddings: true}
}

// RandomWeights returns deterministic random weights for c from seed.
// Matrices are uniform with standard deviation gain/√In (so activations
// keep their scale through each projection), token embeddings have
// standard deviation embedScale, position embeddings a tenth of it, norm
// scales are 1 ± 0.1 and biases ±0.02. It is meant for tests, benchmarks
// and the built-in default model; uniform draws keep generation cheap for
// GPT-2-sized shapes.
func RandomWeights(c *Config, seed uint64, embedScale, gain float64) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	uniform := func(n int, std float64) []float64 {
		a := std * math.Sqrt(3)
		out := make([]float64, n)
		for i := range out {
			out[i] = a * (2*rng.Float64() - 1)
		}
		return out
	}
	around := func(n int, centre, spread float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = centre + spread*(2*rng.Float64()-1)
		}
		return out
	}
	gpt2 := c.Family == GPT2
	linear := func(in, out int) Linear {
		l := Linear{In: in, Out: out, Weight: uniform(in*out, gain/math.Sqrt(float64(in)))}
		if gpt2 {
			l.Bias = around(out, 0, 0.02)
		}
		return l
	}
	norm := func() NormWeights {
		n := NormWeights{Weight: around(c.Hidden, 1, 0.1)}
		if gpt2 {
			n.Bias = around(c.Hidden, 0, 0.02)
		}
		return n
	}
	d, kv, f := c.Hidden, c.KVDim(), c.Intermediate
	w := &Weights{TokenEmbedding: uniform(c.Vocab*d, embedScale)}
	if gpt2 {
		w.PositionEmbedding = uniform(c.MaxPositions*d, embedScale/10)
	}
	w.Layers = make([]LayerWeights, c.Layers)
	for i := range w.Layers {
		l := &w.Layers[i]
		l.AttnNorm = norm()
		l.Q, l.K, l.V, l.O = linear(d, d), linear(d, kv), linear(d, kv), linear(d, d)
		l.MLPNorm = norm()
		l.Up = linear(d, f)
		if !gpt2 {
			g := linear(d, f)
			l.Gate = &g
		}
		l.Down = linear(f, d)
	}
	w.FinalNorm = norm()
	if c.TiedEmbeddings {
		w.LMHead = w.TokenEmbedding
	} else {
		w.LMHead = uniform(c.Vocab*d, embedScale)
	}
	return w, nil
}
