package model

import (
	"fmt"
	"math"
	"strings"
)

// TensorError compares a dequantized integer tensor with its float
// reference.
type TensorError struct {
	Name string
	// MaxAbs and MeanAbs are the largest and mean |integer − float|.
	MaxAbs, MeanAbs float64
	// Scale is the largest |float| value; Relative = MaxAbs/Scale.
	Scale, Relative float64
}

func compare(name string, got, want []float64) TensorError {
	e := TensorError{Name: name}
	for i, w := range want {
		d := math.Abs(got[i] - w)
		e.MaxAbs = max(e.MaxAbs, d)
		e.MeanAbs += d
		e.Scale = max(e.Scale, math.Abs(w))
	}
	if len(want) > 0 {
		e.MeanAbs /= float64(len(want))
	}
	if e.Scale > 0 {
		e.Relative = e.MaxAbs / e.Scale
	}
	return e
}

// Fidelity compares the integer pass with the float reference on one
// generation.
type Fidelity struct {
	Prompt, Tokens []int
	// Embedding, Layers (residual stream after each layer) and Logits are
	// compared over all positions of prompt + generated tokens except the
	// last generated one, the integer rows gathered from all passes.
	Embedding TensorError
	Layers    []TensorError
	Logits    TensorError
	// Agree counts the steps where the float argmax on the same prefix
	// (teacher forcing with the integer tokens) equals the integer token.
	Agree int
	// FloatTokens are the float pass's own greedy tokens; FreeRunAgree
	// counts the leading steps where they equal the integer tokens.
	FloatTokens  []int
	FreeRunAgree int
}

// Fidelity generates n tokens after prompt with the integer pass and
// compares every layer with the float reference.
func (m *Model) Fidelity(prompt []int, n int) (*Fidelity, error) {
	g, err := m.Generate(prompt, n)
	if err != nil {
		return nil, err
	}
	seq := append(append([]int(nil), prompt...), g.Tokens[:n-1]...)
	ref, err := m.Reference(seq)
	if err != nil {
		return nil, err
	}
	gather := func(pick func(t *Trace) *Tensor) []float64 {
		var out []float64
		for _, t := range g.Traces {
			x := pick(t)
			out = append(out, dequantize(x.Data, x.Frac)...)
		}
		return out
	}
	f := &Fidelity{Prompt: g.Prompt, Tokens: g.Tokens}
	f.Embedding = compare("embedding", gather(func(t *Trace) *Tensor { return &t.Embedding }), ref.Embedding)
	for l := range m.Config.Layers {
		got := gather(func(t *Trace) *Tensor { return &t.Layers[l].Output })
		f.Layers = append(f.Layers, compare(fmt.Sprintf("layer.%d.output", l), got, ref.LayerOutputs[l]))
	}
	f.Logits = compare("logits", gather(func(t *Trace) *Tensor { return t.Logits() }), ref.Logits)
	v := m.Config.Vocab
	for i, tok := range g.Tokens {
		row := ref.Logits[(len(prompt)-1+i)*v : (len(prompt)+i)*v]
		if floatArgmax(row) == tok {
			f.Agree++
		}
	}
	floatSeq := append([]int(nil), prompt...)
	for range n {
		r, err := m.Reference(floatSeq)
		if err != nil {
			return nil, err
		}
		next := floatArgmax(r.Logits[(len(floatSeq)-1)*v:])
		f.FloatTokens = append(f.FloatTokens, next)
		floatSeq = append(floatSeq, next)
	}
	for f.FreeRunAgree < n && f.FloatTokens[f.FreeRunAgree] == g.Tokens[f.FreeRunAgree] {
		f.FreeRunAgree++
	}
	return f, nil
}

func floatArgmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// String formats the report as a table.
func (f *Fidelity) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %12s %12s %12s %10s\n", "tensor", "max |err|", "mean |err|", "max |float|", "relative")
	rows := append(append([]TensorError{f.Embedding}, f.Layers...), f.Logits)
	for _, e := range rows {
		fmt.Fprintf(&b, "%-16s %12.3g %12.3g %12.3g %10.3g\n", e.Name, e.MaxAbs, e.MeanAbs, e.Scale, e.Relative)
	}
	n := len(f.Tokens)
	fmt.Fprintf(&b, "top-1 agreement (same prefix): %d/%d; free-running float greedy agrees on the first %d/%d tokens\n", f.Agree, n, f.FreeRunAgree, n)
	return b.String()
}
