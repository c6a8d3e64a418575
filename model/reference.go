package model

import (
	"fmt"
	"math"

	"github.com/veriformer/veriformer/internal/parallel"
)

// Reference is the float64 forward pass over a whole token sequence, on the
// model's original float weights (not the dequantized int8 ones, so the
// fidelity report measures the whole quantization error). All tensors are
// row-major with one row per position.
type Reference struct {
	Tokens []int
	// Embedding is [T, Hidden]: token (+ position) embeddings.
	Embedding []float64
	// LayerOutputs[l] is the residual stream after layer l, [T, Hidden].
	LayerOutputs [][]float64
	// Logits is [T, Vocab].
	Logits []float64
}

// rangeStats collects the largest magnitude of each tensor kind during a
// reference pass; quantization turns them into fixed-point formats.
type rangeStats struct {
	residual, normed, qk, value, context, gate, up, hidden, logit float64
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

// Reference runs the float64 forward pass on tokens (positions 0…T−1).
func (m *Model) Reference(tokens []int) (*Reference, error) {
	return reference(&m.Config, m.Weights, tokens, nil)
}

func reference(c *Config, w *Weights, tokens []int, stats *rangeStats) (*Reference, error) {
	if err := checkTokens(c, tokens, 0); err != nil {
		return nil, err
	}
	note := func(p *float64, x []float64) {
		if stats != nil {
			*p = max(*p, maxAbs(x))
		}
	}
	t, d := len(tokens), c.Hidden
	h := make([]float64, t*d)
	for r, tok := range tokens {
		copy(h[r*d:(r+1)*d], w.TokenEmbedding[tok*d:(tok+1)*d])
		if c.Family == GPT2 {
			for i := range d {
				h[r*d+i] += w.PositionEmbedding[r*d+i]
			}
		}
	}
	ref := &Reference{Tokens: append([]int(nil), tokens...), Embedding: append([]float64(nil), h...)}
	var s rangeStats
	if stats == nil {
		stats = &s
	}
	note(&stats.residual, h)
	for li := range w.Layers {
		l := &w.Layers[li]
		x := floatNorm(c, h, t, &l.AttnNorm)
		note(&stats.normed, x)
		q, k, v := floatLinear(x, t, &l.Q), floatLinear(x, t, &l.K), floatLinear(x, t, &l.V)
		note(&stats.qk, q)
		note(&stats.qk, k)
		note(&stats.value, v)
		if c.Family == Llama {
			floatRope(c, q, t, c.Heads)
			floatRope(c, k, t, c.KVHeads)
			note(&stats.qk, q)
			note(&stats.qk, k)
		}
		ctx := floatAttention(c, q, k, v, t)
		note(&stats.context, ctx)
		o := floatLinear(ctx, t, &l.O)
		for i := range h {
			h[i] += o[i]
		}
		note(&stats.residual, h)
		x = floatNorm(c, h, t, &l.MLPNorm)
		note(&stats.normed, x)
		var act []float64
		if c.Family == GPT2 {
			act = floatLinear(x, t, &l.Up)
			note(&stats.gate, act)
			for i, a := range act {
				act[i] = GELU(a)
			}
		} else {
			act = floatLinear(x, t, l.Gate)
			up := floatLinear(x, t, &l.Up)
			note(&stats.gate, act)
			note(&stats.up, up)
			for i, a := range act {
				act[i] = SiLU(a) * up[i]
			}
			note(&stats.hidden, act)
		}
		down := floatLinear(act, t, &l.Down)
		for i := range h {
			h[i] += down[i]
		}
		note(&stats.residual, h)
		ref.LayerOutputs = append(ref.LayerOutputs, append([]float64(nil), h...))
	}
	x := floatNorm(c, h, t, &w.FinalNorm)
	note(&stats.normed, x)
	ref.Logits = floatLinear(x, t, &Linear{In: d, Out: c.Vocab, Weight: w.LMHead})
	note(&stats.logit, ref.Logits)
	return ref, nil
}

// checkTokens validates ids and the context length for a pass that starts
// at position start.
func checkTokens(c *Config, tokens []int, start int) error {
	if len(tokens) == 0 {
		return fmt.Errorf("model: no tokens")
	}
	if start+len(tokens) > c.MaxPositions {
		return fmt.Errorf("model: %d positions exceed the context length %d", start+len(tokens), c.MaxPositions)
	}
	for i, tok := range tokens {
		if tok < 0 || tok >= c.Vocab {
			return fmt.Errorf("model: token %d is %d, outside the vocabulary [0, %d)", i, tok, c.Vocab)
		}
	}
	return nil
}

func floatNorm(c *Config, h []float64, t int, n *NormWeights) []float64 {
	d := c.Hidden
	out := make([]float64, len(h))
	for r := range t {
		row := h[r*d : (r+1)*d]
		mean := 0.0
		if c.Family == GPT2 {
			for _, v := range row {
				mean += v
			}
			mean /= float64(d)
		}
		variance := 0.0
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		inv := 1 / math.Sqrt(variance/float64(d)+c.NormEps)
		for i, v := range row {
			y := (v - mean) * inv * n.Weight[i]
			if n.Bias != nil {
				y += n.Bias[i]
			}
			out[r*d+i] = y
		}
	}
	return out
}

func floatLinear(x []float64, t int, l *Linear) []float64 {
	out := make([]float64, t*l.Out)
	minChunk := max(1, (1<<15)/max(1, t*l.In))
	parallel.Execute(l.Out, minChunk, func(start, end int) {
		for j := start; j < end; j++ {
			w := l.Weight[j*l.In : (j+1)*l.In]
			b := 0.0
			if l.Bias != nil {
				b = l.Bias[j]
			}
			for r := range t {
				s := 0.0
				for i, xv := range x[r*l.In : (r+1)*l.In] {
					s += xv * w[i]
				}
				out[r*l.Out+j] = s + b
			}
		}
	})
	return out
}

// floatRope rotates pairs (j, j+hd/2) of every head of x ([t, heads·hd]) by
// the angle p·θⱼ of the row's position p.
func floatRope(c *Config, x []float64, t, heads int) {
	hd := c.HeadDim()
	half := hd / 2
	for p := range t {
		for h := range heads {
			base := p*heads*hd + h*hd
			for j := range half {
				angle := float64(p) * math.Pow(c.RopeTheta, -2*float64(j)/float64(hd))
				cs, sn := math.Cos(angle), math.Sin(angle)
				a, b := x[base+j], x[base+j+half]
				x[base+j] = a*cs - b*sn
				x[base+j+half] = b*cs + a*sn
			}
		}
	}
}

// floatAttention is causal grouped-query attention with 1/√hd scaling.
func floatAttention(c *Config, q, k, v []float64, t int) []float64 {
	hd, kvd := c.HeadDim(), c.KVDim()
	group := c.Heads / c.KVHeads
	out := make([]float64, t*c.Hidden)
	scale := 1 / math.Sqrt(float64(hd))
	scores := make([]float64, t)
	for h := range c.Heads {
		g := h / group
		for i := range t {
			qi := q[i*c.Hidden+h*hd : i*c.Hidden+(h+1)*hd]
			best := math.Inf(-1)
			for j := 0; j <= i; j++ {
				kj := k[j*kvd+g*hd : j*kvd+(g+1)*hd]
				s := 0.0
				for x := range hd {
					s += qi[x] * kj[x]
				}
				scores[j] = s * scale
				best = max(best, scores[j])
			}
			sum := 0.0
			for j := 0; j <= i; j++ {
				scores[j] = math.Exp(scores[j] - best)
				sum += scores[j]
			}
			o := out[i*c.Hidden+h*hd : i*c.Hidden+(h+1)*hd]
			for j := 0; j <= i; j++ {
				p := scores[j] / sum
				vj := v[j*kvd+g*hd : j*kvd+(g+1)*hd]
				for x := range hd {
					o[x] += p * vj[x]
				}
			}
		}
	}
	return out
}
