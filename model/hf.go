package model

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/veriformer/veriformer/model/safetensors"
	"github.com/veriformer/veriformer/model/tokenizer"
)

// File names inside a model directory, as Hugging Face stores them.
const (
	ConfigFile  = "config.json"
	WeightsFile = "model.safetensors"
)

// Load reads dir/config.json and dir/model.safetensors, quantizes the
// weights with the default options and, when the directory has tokenizer
// files (tokenizer.json, or vocab.json with merges.txt), loads the
// tokenizer with its beginning-of-sequence rule as the files give it
// (tokenizer.BOSAuto); see [LoadBOS]. Library API, the entry the package
// documentation shows for a user's directory; the commands choose the
// rule and call [LoadBOS] or [LoadText] (through [Source]).
func Load(dir string) (*Model, error) { return LoadBOS(dir, tokenizer.BOSAuto) }

// LoadText is LoadBOS for commands that read and print text: it refuses a
// directory without tokenizer files instead of returning a model without
// a tokenizer.
func LoadText(dir string, bos tokenizer.BOSMode) (*Model, error) {
	m, err := LoadBOS(filepath.Clean(dir), bos)
	if err != nil {
		return nil, err
	}
	if m.Tokenizer == nil {
		return nil, fmt.Errorf("model: %s has no tokenizer files (tokenizer.json, or vocab.json and merges.txt)", dir)
	}
	return m, nil
}

// LoadBOS is Load with the beginning-of-sequence rule chosen by bos.
func LoadBOS(dir string, bos tokenizer.BOSMode) (*Model, error) {
	data, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return nil, fmt.Errorf("model: load: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, err
	}
	f, err := safetensors.ReadFile(filepath.Join(dir, WeightsFile))
	if err != nil {
		return nil, fmt.Errorf("model: load: %w", err)
	}
	w, err := WeightsFromSafetensors(c, f)
	if err != nil {
		return nil, err
	}
	m, err := New(c, w, nil)
	if err != nil {
		return nil, err
	}
	if !hasTokenizer(dir) {
		return m, nil
	}
	if m.Tokenizer, err = tokenizer.LoadCodec(dir, bos); err != nil {
		return nil, err
	}
	if n := m.Tokenizer.Tokenizer.VocabSize(); n > c.Vocab {
		return nil, fmt.Errorf("model: the tokenizer has %d tokens, the model's vocabulary %d", n, c.Vocab)
	}
	return m, nil
}

// hasTokenizer reports whether dir holds tokenizer files.
func hasTokenizer(dir string) bool {
	for _, name := range []string{"tokenizer.json", "vocab.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// tensorReader fetches float tensors by Hugging Face name, trying each
// prefix in turn.
type tensorReader struct {
	file     *safetensors.File
	prefixes []string
}

func (r *tensorReader) get(name string, shape ...int) ([]float64, error) {
	for _, p := range r.prefixes {
		t, ok := r.file.Tensor(p + name)
		if !ok {
			continue
		}
		switch t.DType {
		case safetensors.F64, safetensors.F32, safetensors.F16, safetensors.BF16:
		default:
			return nil, fmt.Errorf("model: tensor %q has dtype %s, want F64, F32, F16 or BF16", p+name, t.DType)
		}
		if !slices.Equal(t.Shape, shape) {
			return nil, fmt.Errorf("model: tensor %q has shape %v, want %v", p+name, t.Shape, shape)
		}
		v, err := t.Float64s()
		if err != nil {
			return nil, fmt.Errorf("model: tensor %q: %w", p+name, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("model: tensor %q missing from %s", r.prefixes[0]+name, WeightsFile)
}

// WeightsFromSafetensors reads a Hugging Face checkpoint of family c.Family
// (GPT-2 names with an optional "transformer." prefix and Conv1D [in, out]
// matrices; Llama names with [out, in] matrices).
func WeightsFromSafetensors(c *Config, f *safetensors.File) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var w *Weights
	var err error
	if c.Family == GPT2 {
		w, err = gpt2Weights(c, &tensorReader{file: f, prefixes: []string{"", "transformer."}})
	} else {
		w, err = llamaWeights(c, &tensorReader{file: f, prefixes: []string{""}})
	}
	if err != nil {
		return nil, err
	}
	if err := w.check(c); err != nil {
		return nil, err
	}
	return w, nil
}

// transposeColumns returns the [n, rows] transpose of the rows×cols matrix m
// restricted to columns [from, from+n).
func transposeColumns(m []float64, rows, cols, from, n int) []float64 {
	out := make([]float64, n*rows)
	for i := range rows {
		for j := range n {
			out[j*rows+i] = m[i*cols+from+j]
		}
	}
	return out
}

func gpt2Weights(c *Config, r *tensorReader) (*Weights, error) {
	d, f := c.Hidden, c.Intermediate
	var err error
	w := &Weights{}
	if w.TokenEmbedding, err = r.get("wte.weight", c.Vocab, d); err != nil {
		return nil, err
	}
	if w.PositionEmbedding, err = r.get("wpe.weight", c.MaxPositions, d); err != nil {
		return nil, err
	}
	w.LMHead = w.TokenEmbedding
	norm := func(name string) (NormWeights, error) {
		g, err := r.get(name+".weight", d)
		if err != nil {
			return NormWeights{}, err
		}
		b, err := r.get(name+".bias", d)
		if err != nil {
			return NormWeights{}, err
		}
		return NormWeights{Weight: g, Bias: b}, nil
	}
	conv := func(name string, in, out int) (Linear, error) {
		m, err := r.get(name+".weight", in, out)
		if err != nil {
			return Linear{}, err
		}
		b, err := r.get(name+".bias", out)
		if err != nil {
			return Linear{}, err
		}
		return Linear{In: in, Out: out, Weight: transposeColumns(m, in, out, 0, out), Bias: b}, nil
	}
	w.Layers = make([]LayerWeights, c.Layers)
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("h.%d.", i)
		if l.AttnNorm, err = norm(p + "ln_1"); err != nil {
			return nil, err
		}
		qkv, err := r.get(p+"attn.c_attn.weight", d, 3*d)
		if err != nil {
			return nil, err
		}
		qkvBias, err := r.get(p+"attn.c_attn.bias", 3*d)
		if err != nil {
			return nil, err
		}
		for k, dst := range []*Linear{&l.Q, &l.K, &l.V} {
			*dst = Linear{In: d, Out: d, Weight: transposeColumns(qkv, d, 3*d, k*d, d), Bias: qkvBias[k*d : (k+1)*d]}
		}
		if l.O, err = conv(p+"attn.c_proj", d, d); err != nil {
			return nil, err
		}
		if l.MLPNorm, err = norm(p + "ln_2"); err != nil {
			return nil, err
		}
		if l.Up, err = conv(p+"mlp.c_fc", d, f); err != nil {
			return nil, err
		}
		if l.Down, err = conv(p+"mlp.c_proj", f, d); err != nil {
			return nil, err
		}
	}
	if w.FinalNorm, err = norm("ln_f"); err != nil {
		return nil, err
	}
	return w, nil
}

func llamaWeights(c *Config, r *tensorReader) (*Weights, error) {
	d, kv, f := c.Hidden, c.KVDim(), c.Intermediate
	var err error
	w := &Weights{}
	if w.TokenEmbedding, err = r.get("model.embed_tokens.weight", c.Vocab, d); err != nil {
		return nil, err
	}
	if c.TiedEmbeddings {
		w.LMHead = w.TokenEmbedding
	} else if w.LMHead, err = r.get("lm_head.weight", c.Vocab, d); err != nil {
		return nil, err
	}
	proj := func(name string, in, out int) (Linear, error) {
		m, err := r.get(name+".weight", out, in)
		if err != nil {
			return Linear{}, err
		}
		return Linear{In: in, Out: out, Weight: m}, nil
	}
	w.Layers = make([]LayerWeights, c.Layers)
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("model.layers.%d.", i)
		if l.AttnNorm.Weight, err = r.get(p+"input_layernorm.weight", d); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			dst     *Linear
			name    string
			in, out int
		}{
			{&l.Q, "self_attn.q_proj", d, d},
			{&l.K, "self_attn.k_proj", d, kv},
			{&l.V, "self_attn.v_proj", d, kv},
			{&l.O, "self_attn.o_proj", d, d},
			{&l.Up, "mlp.up_proj", d, f},
			{&l.Down, "mlp.down_proj", f, d},
		} {
			if *s.dst, err = proj(p+s.name, s.in, s.out); err != nil {
				return nil, err
			}
		}
		gate, err := proj(p+"mlp.gate_proj", d, f)
		if err != nil {
			return nil, err
		}
		l.Gate = &gate
		if l.MLPNorm.Weight, err = r.get(p+"post_attention_layernorm.weight", d); err != nil {
			return nil, err
		}
	}
	if w.FinalNorm.Weight, err = r.get("model.norm.weight", d); err != nil {
		return nil, err
	}
	return w, nil
}

// hfTensors returns w under Hugging Face names and layouts, as float32.
func hfTensors(c *Config, w *Weights) []safetensors.Tensor {
	var out []safetensors.Tensor
	put := func(name string, shape []int, v []float64) {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		out = append(out, safetensors.FromFloat32(name, shape, f))
	}
	d := c.Hidden
	if c.Family == GPT2 {
		put("wte.weight", []int{c.Vocab, d}, w.TokenEmbedding)
		put("wpe.weight", []int{c.MaxPositions, d}, w.PositionEmbedding)
		conv := func(name string, l *Linear) {
			put(name+".weight", []int{l.In, l.Out}, transposeColumns(l.Weight, l.Out, l.In, 0, l.In))
			put(name+".bias", []int{l.Out}, l.Bias)
		}
		for i := range w.Layers {
			l := &w.Layers[i]
			p := fmt.Sprintf("h.%d.", i)
			put(p+"ln_1.weight", []int{d}, l.AttnNorm.Weight)
			put(p+"ln_1.bias", []int{d}, l.AttnNorm.Bias)
			qkv := make([]float64, d*3*d)
			for k, src := range []*Linear{&l.Q, &l.K, &l.V} {
				for j := range d {
					for i := range d {
						qkv[i*3*d+k*d+j] = src.Weight[j*d+i]
					}
				}
			}
			put(p+"attn.c_attn.weight", []int{d, 3 * d}, qkv)
			put(p+"attn.c_attn.bias", []int{3 * d}, slices.Concat(l.Q.Bias, l.K.Bias, l.V.Bias))
			conv(p+"attn.c_proj", &l.O)
			put(p+"ln_2.weight", []int{d}, l.MLPNorm.Weight)
			put(p+"ln_2.bias", []int{d}, l.MLPNorm.Bias)
			conv(p+"mlp.c_fc", &l.Up)
			conv(p+"mlp.c_proj", &l.Down)
		}
		put("ln_f.weight", []int{d}, w.FinalNorm.Weight)
		put("ln_f.bias", []int{d}, w.FinalNorm.Bias)
		return out
	}
	put("model.embed_tokens.weight", []int{c.Vocab, d}, w.TokenEmbedding)
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("model.layers.%d.", i)
		put(p+"input_layernorm.weight", []int{d}, l.AttnNorm.Weight)
		for _, s := range []struct {
			name string
			l    *Linear
		}{{"self_attn.q_proj", &l.Q}, {"self_attn.k_proj", &l.K}, {"self_attn.v_proj", &l.V}, {"self_attn.o_proj", &l.O},
			{"mlp.gate_proj", l.Gate}, {"mlp.up_proj", &l.Up}, {"mlp.down_proj", &l.Down}} {
			put(p+s.name+".weight", []int{s.l.Out, s.l.In}, s.l.Weight)
		}
		put(p+"post_attention_layernorm.weight", []int{d}, l.MLPNorm.Weight)
	}
	put("model.norm.weight", []int{d}, w.FinalNorm.Weight)
	if !c.TiedEmbeddings {
		put("lm_head.weight", []int{c.Vocab, d}, w.LMHead)
	}
	return out
}

// Save writes dir/config.json and dir/model.safetensors (float32, Hugging
// Face names and layouts) so that [Load] reads the model back.
func (m *Model) Save(dir string) error {
	cfg, err := m.Config.MarshalHF()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), cfg, 0o644); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, hfTensors(&m.Config, m.Weights), map[string]string{"format": "pt"}); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, WeightsFile), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	return nil
}
