package model

import (
	"fmt"
	"testing"

	"github.com/veriformer/veriformer/model/tokenizer"
)

// Documented tolerances of the integer pass against the float reference
// (see doc.go, "Fidelity"): the largest error of every layer output and of
// the logits, relative to the largest float magnitude of that tensor.
const (
	layerTolerance  = 0.03
	logitsTolerance = 0.03
)

// defaultPrompts is the fixed prompt set on which the default model's
// integer and float greedy tokens must agree.
var defaultPrompts = []string{
	"Hello, world",
	"The quick brown fox",
	"veriformer",
	"0123456789",
	"a",
	"Proofs of inference!",
	"sum-check",
	"\x00\xff\x10 bytes",
}

func bytesOf(s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}

func checkFidelity(t *testing.T, f *Fidelity) {
	t.Helper()
	for _, e := range append(append([]TensorError{f.Embedding}, f.Layers...), f.Logits) {
		limit := layerTolerance
		if e.Name == "logits" {
			limit = logitsTolerance
		}
		if !(e.Relative <= limit) || e.Scale == 0 {
			t.Errorf("%s: relative error %.4g above %.4g (max |err| %.4g, max |float| %.4g)", e.Name, e.Relative, limit, e.MaxAbs, e.Scale)
		}
	}
}

func TestDefaultFidelity(t *testing.T) {
	m := Default()
	const n = 12
	for _, p := range defaultPrompts {
		f, err := m.Fidelity(bytesOf(p), n)
		if err != nil {
			t.Fatal(err)
		}
		checkFidelity(t, f)
		if f.Agree != n || f.FreeRunAgree != n {
			t.Errorf("prompt %q: top-1 agreement %d/%d, free-running %d/%d\n%v", p, f.Agree, n, f.FreeRunAgree, n, f)
		}
		if p == defaultPrompts[0] {
			t.Logf("prompt %q:\n%v", p, f)
		}
	}
}

func TestSmallModelsFidelity(t *testing.T) {
	for _, c := range []*Config{smallGPT2Config(), smallLlamaConfig()} {
		m := newModel(t, c, 11)
		f, err := m.Fidelity([]int{2, 7, 1, 8, 2, 8, 1, 8}, 8)
		if err != nil {
			t.Fatal(err)
		}
		checkFidelity(t, f)
		t.Logf("%s:\n%v", c.Family, f)
		if f.Agree < 7 {
			t.Errorf("%s: top-1 agreement %d/8", c.Family, f.Agree)
		}
	}
}

func TestPerTensorQuantization(t *testing.T) {
	c := DefaultConfig()
	w, err := RandomWeights(c, DefaultSeed, DefaultEmbedScale, DefaultGain)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(c, w, &QuantOptions{PerTensor: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, mult := range [][]int64{m.Quant.Layers[0].Q.Multiplier, m.Quant.LMHead.Multiplier} {
		for _, v := range mult {
			if v != mult[0] {
				t.Fatal("per-tensor quantization has per-row multipliers")
			}
		}
	}
	f, err := m.Fidelity(bytesOf(defaultPrompts[0]), 8)
	if err != nil {
		t.Fatal(err)
	}
	checkFidelity(t, f)
	g, err := m.Generate(bytesOf("per tensor"), 3)
	if err != nil {
		t.Fatal(err)
	}
	checkTrace(t, m, g.Traces[0])
}

func TestQuantOptionErrors(t *testing.T) {
	c := DefaultConfig()
	w, err := RandomWeights(c, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(c, w, &QuantOptions{Margin: 0.5}); err == nil {
		t.Error("margin below 1 accepted")
	}
	if _, err := New(c, w, &QuantOptions{Calibration: [][]int{{300}}}); err == nil {
		t.Error("calibration token outside the vocabulary accepted")
	}
	w.Layers = w.Layers[:1]
	if _, err := New(c, w, nil); err == nil {
		t.Error("missing layer accepted")
	}
}

func ExampleDefault() {
	m := Default()
	tok := tokenizer.NewByte()
	prompt, err := tok.Encode("Hello")
	if err != nil {
		panic(err)
	}
	g, err := m.Generate(prompt, 5)
	if err != nil {
		panic(err)
	}
	tr := g.Traces[0]
	fmt.Println("generated:", len(g.Tokens), "tokens in", len(g.Traces), "passes")
	fmt.Println("first pass rows:", tr.Embedding.Shape[0], "layers:", len(tr.Layers))
	fmt.Println("logits shape:", tr.Logits().Shape)
	f, err := m.Fidelity(prompt, 5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("top-1 agreement with float: %d/%d\n", f.Agree, len(f.Tokens))
	// Output:
	// generated: 5 tokens in 5 passes
	// first pass rows: 5 layers: 2
	// logits shape: [5 256]
	// top-1 agreement with float: 5/5
}
