package model

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model/safetensors"
)

// writeDir writes config.json and model.safetensors made of tensors.
func writeDir(t *testing.T, c *Config, tensors []safetensors.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	cfg, err := c.MarshalHF()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, tensors, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, WeightsFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func closeTo(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %g, want %g", name, i, got[i], want[i])
		}
	}
}

func TestSaveLoad(t *testing.T) {
	for _, c := range []*Config{smallGPT2Config(), smallLlamaConfig()} {
		t.Run(string(c.Family), func(t *testing.T) {
			m := newModel(t, c, 5)
			dir := t.TempDir()
			if err := m.Save(dir); err != nil {
				t.Fatal(err)
			}
			back, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if back.Config != m.Config {
				t.Fatalf("config %+v, want %+v", back.Config, m.Config)
			}
			w, bw := m.Weights, back.Weights
			closeTo(t, "token embedding", bw.TokenEmbedding, w.TokenEmbedding)
			closeTo(t, "LM head", bw.LMHead, w.LMHead)
			closeTo(t, "position embedding", bw.PositionEmbedding, w.PositionEmbedding)
			for i := range w.Layers {
				l, bl := &w.Layers[i], &bw.Layers[i]
				for _, p := range []struct {
					name      string
					got, want *Linear
				}{{"q", &bl.Q, &l.Q}, {"k", &bl.K, &l.K}, {"v", &bl.V, &l.V}, {"o", &bl.O, &l.O}, {"up", &bl.Up, &l.Up}, {"down", &bl.Down, &l.Down}} {
					closeTo(t, p.name, p.got.Weight, p.want.Weight)
					closeTo(t, p.name+" bias", p.got.Bias, p.want.Bias)
				}
				if c.Family == Llama {
					closeTo(t, "gate", bl.Gate.Weight, l.Gate.Weight)
				}
				closeTo(t, "attention norm", bl.AttnNorm.Weight, l.AttnNorm.Weight)
				closeTo(t, "MLP norm bias", bl.MLPNorm.Bias, l.MLPNorm.Bias)
			}
			g, err := back.Generate([]int{4, 8, 15, 16, 23}, 6)
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range g.Traces {
				checkTrace(t, back, tr)
			}
		})
	}
}

func TestLoadTransformerPrefix(t *testing.T) {
	c := smallGPT2Config()
	m := newModel(t, c, 6)
	tensors := hfTensors(c, m.Weights)
	for i := range tensors {
		tensors[i].Name = "transformer." + tensors[i].Name
	}
	back, err := Load(writeDir(t, c, tensors))
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "layer 1 value", back.Weights.Layers[1].V.Weight, m.Weights.Layers[1].V.Weight)
}

func TestLoadTiedLlama(t *testing.T) {
	c := smallLlamaConfig()
	c.TiedEmbeddings = true
	m := newModel(t, c, 7)
	tensors := hfTensors(c, m.Weights)
	for _, tn := range tensors {
		if tn.Name == "lm_head.weight" {
			t.Fatal("tied model wrote an LM head")
		}
	}
	back, err := Load(writeDir(t, c, tensors))
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "LM head", back.Weights.LMHead, m.Weights.TokenEmbedding)
}

func TestLoadErrors(t *testing.T) {
	gpt2, llama := smallGPT2Config(), smallLlamaConfig()
	gw, lw := newModel(t, gpt2, 8).Weights, newModel(t, llama, 9).Weights
	edit := func(c *Config, w *Weights, name string, f func(tn *safetensors.Tensor) bool) []safetensors.Tensor {
		var out []safetensors.Tensor
		for _, tn := range hfTensors(c, w) {
			if tn.Name != name || f(&tn) {
				out = append(out, tn)
			}
		}
		return out
	}
	drop := func(*safetensors.Tensor) bool { return false }
	reshape := func(tn *safetensors.Tensor) bool {
		tn.Shape = []int{tn.Shape[1], tn.Shape[0]}
		return true
	}
	toInt := func(tn *safetensors.Tensor) bool {
		tn.DType = safetensors.I32
		return true
	}
	for _, tc := range []struct {
		name    string
		c       *Config
		tensors []safetensors.Tensor
		want    string
	}{
		{"missing gpt2 tensor", gpt2, edit(gpt2, gw, "h.1.mlp.c_fc.bias", drop), `"h.1.mlp.c_fc.bias" missing`},
		{"missing llama tensor", llama, edit(llama, lw, "model.layers.0.self_attn.k_proj.weight", drop), `"model.layers.0.self_attn.k_proj.weight" missing`},
		{"missing LM head", llama, edit(llama, lw, "lm_head.weight", drop), `"lm_head.weight" missing`},
		{"transposed Conv1D", gpt2, edit(gpt2, gw, "h.0.attn.c_attn.weight", reshape), `"h.0.attn.c_attn.weight" has shape [144 48], want [48 144]`},
		{"transposed projection", llama, edit(llama, lw, "model.layers.1.mlp.down_proj.weight", reshape), `has shape [72 40], want [40 72]`},
		{"integer dtype", gpt2, edit(gpt2, gw, "wte.weight", toInt), `"wte.weight" has dtype I32`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeDir(t, tc.c, tc.tensors))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	t.Run("files", func(t *testing.T) {
		dir := writeDir(t, gpt2, hfTensors(gpt2, gw))
		if err := os.WriteFile(filepath.Join(dir, WeightsFile), []byte("not safetensors"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil {
			t.Error("corrupt weights accepted")
		}
		if err := os.Remove(filepath.Join(dir, WeightsFile)); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil {
			t.Error("missing weights accepted")
		}
		if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), ConfigFile) {
			t.Errorf("missing config: %v", err)
		}
	})
	t.Run("non-finite", func(t *testing.T) {
		w, err := RandomWeights(gpt2, 1, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		w.Layers[0].Q.Weight[3] = math.NaN()
		if _, err := New(gpt2, w, nil); err == nil || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("NaN weight: %v", err)
		}
	})
}

// FuzzWeightsFromSafetensors feeds arbitrary bytes through the safetensors
// parser and the weight reader of a tiny GPT-2: errors, never panics.
func FuzzWeightsFromSafetensors(f *testing.F) {
	c := &Config{Family: GPT2, Vocab: 3, Hidden: 4, Layers: 1, Heads: 2, KVHeads: 2, Intermediate: 4,
		MaxPositions: 2, NormEps: 1e-5, TiedEmbeddings: true}
	w, err := RandomWeights(c, 1, 1, 1)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, hfTensors(c, w), nil); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := safetensors.Parse(data)
		if err != nil {
			return
		}
		if w, err := WeightsFromSafetensors(c, file); err == nil {
			if _, err := New(c, w, nil); err != nil && !strings.Contains(err.Error(), "model:") {
				t.Fatalf("unwrapped error %v", err)
			}
		}
	})
}
