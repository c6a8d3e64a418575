package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Family names a model architecture.
type Family string

// The supported families.
const (
	// GPT2 has learned positional embeddings, LayerNorm, Q/K/V/O projections
	// with biases, masked multi-head attention, a GELU MLP (tanh form, as in
	// Hugging Face's "gelu_new") and an LM head tied to the token embedding.
	GPT2 Family = "gpt2"
	// Llama has RMSNorm, rotary position embeddings (RoPE, rotate-half
	// pairing as in Hugging Face), grouped-query attention, a SiLU-gated MLP
	// and no biases.
	Llama Family = "llama"
)

// Limits that keep every accumulator inside an int64 (see doc.go, "Bounds").
const (
	maxHidden       = 1 << 14
	maxIntermediate = 1 << 16
	maxVocab        = 1 << 20
	maxPositions    = 1 << 16
)

// Config describes a model's shapes and constants.
type Config struct {
	Family Family
	// Vocab is the number of token ids.
	Vocab int
	// Hidden is the embedding width d.
	Hidden int
	// Layers is the number of transformer blocks.
	Layers int
	// Heads is the number of query heads; Hidden = Heads·HeadDim.
	Heads int
	// KVHeads is the number of key/value heads (Heads for GPT-2); each
	// group of Heads/KVHeads consecutive query heads shares one K/V head.
	KVHeads int
	// Intermediate is the MLP width (4·Hidden for GPT-2 unless n_inner).
	Intermediate int
	// MaxPositions is the context length.
	MaxPositions int
	// NormEps is the ε of LayerNorm or RMSNorm.
	NormEps float64
	// RopeTheta is the RoPE base (Llama only).
	RopeTheta float64
	// TiedEmbeddings reuses the token embedding as the LM head (always for
	// GPT-2; tie_word_embeddings for Llama).
	TiedEmbeddings bool
}

// HeadDim returns Hidden/Heads.
func (c *Config) HeadDim() int { return c.Hidden / c.Heads }

// KVDim returns the width of the key and value projections.
func (c *Config) KVDim() int { return c.KVHeads * c.HeadDim() }

// HeadLayout is the shape the integer pass computes attention in: the
// model's own heads when the query heads per key/value head and the head
// dimension are powers of two (and, for Llama, whose RoPE rotates the
// whole query and key rows, the key/value heads too), and otherwise each
// of them padded to the next power of two (see doc.go, "Padded heads").
// Query head a·Group + b (a < KVHeads, b < Group) reads key/value head a.
type HeadLayout struct {
	// Heads, KVHeads, Group and HeadDim are the computed shape:
	// Heads = KVHeads·Group.
	Heads, KVHeads, Group, HeadDim int
	// kvHeads, group, headDim are the model's own; split tells whether a
	// head's columns are two RoPE halves (Llama).
	kvHeads, group, headDim int
	split                   bool
}

// HeadLayout returns the shape the integer pass computes attention in.
// A config that does not validate gets its heads unpadded (and at least
// one of each).
func (c *Config) HeadLayout() HeadLayout {
	heads, kv := max(c.Heads, 1), max(c.KVHeads, 1)
	group, hd := max(heads/kv, 1), max(c.Hidden/heads, 1)
	l := HeadLayout{Heads: heads, KVHeads: kv, Group: group, HeadDim: hd,
		kvHeads: kv, group: group, headDim: hd, split: c.Family == Llama}
	if c.Validate() != nil || pow2(group) && pow2(hd) && (pow2(kv) || !l.split) {
		return l
	}
	l.Group, l.HeadDim = nextPow2(group), nextPow2(hd)
	if l.split {
		l.KVHeads = nextPow2(kv)
	}
	l.Heads = l.KVHeads * l.Group
	return l
}

// Padded reports whether the layout differs from the model's heads.
func (l HeadLayout) Padded() bool {
	return l.KVHeads != l.kvHeads || l.Group != l.group || l.HeadDim != l.headDim
}

// QueryDim returns the width of the queries and of the attention's
// context: Heads·HeadDim.
func (l HeadLayout) QueryDim() int { return l.Heads * l.HeadDim }

// KVDim returns the width of the keys and values: KVHeads·HeadDim.
func (l HeadLayout) KVDim() int { return l.KVHeads * l.HeadDim }

// Offset returns the column inside a computed head of the model's head
// column t < hd: t itself, or for Llama's RoPE halves t for t < hd/2 and
// t − hd/2 + HeadDim/2 for the second half, so that the rotation pairs
// t with t + HeadDim/2 as the model pairs t with t + hd/2.
func (l HeadLayout) Offset(t int) int {
	if l.split && t >= l.headDim/2 {
		return t - l.headDim/2 + l.HeadDim/2
	}
	return t
}

// QueryColumn returns the computed column of the model's query column
// c = h·hd + t: head h = a·g + b becomes head a·Group + b.
func (l HeadLayout) QueryColumn(c int) int {
	h, t := c/l.headDim, c%l.headDim
	a, b := h/l.group, h%l.group
	return (a*l.Group+b)*l.HeadDim + l.Offset(t)
}

// KVColumn returns the computed column of the model's key or value
// column c = a·hd + t.
func (l HeadLayout) KVColumn(c int) int {
	return c/l.headDim*l.HeadDim + l.Offset(c%l.headDim)
}

func pow2(n int) bool { return n > 0 && n&(n-1) == 0 }

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// Validate checks that the shapes are consistent and inside the limits
// that keep the integer pass exact.
func (c *Config) Validate() error {
	type limit struct {
		name   string
		value  int
		lo, hi int
	}
	for _, l := range []limit{
		{"vocabulary size", c.Vocab, 1, maxVocab},
		{"hidden size", c.Hidden, 1, maxHidden},
		{"number of layers", c.Layers, 1, 1 << 10},
		{"number of heads", c.Heads, 1, maxHidden},
		{"number of key/value heads", c.KVHeads, 1, maxHidden},
		{"intermediate size", c.Intermediate, 1, maxIntermediate},
		{"maximum positions", c.MaxPositions, 1, maxPositions},
	} {
		if l.value < l.lo || l.value > l.hi {
			return fmt.Errorf("model: config: %s %d outside [%d, %d]", l.name, l.value, l.lo, l.hi)
		}
	}
	switch c.Family {
	case GPT2, Llama:
	default:
		return fmt.Errorf("model: config: unknown family %q", c.Family)
	}
	if c.Hidden%c.Heads != 0 {
		return fmt.Errorf("model: config: hidden size %d is not a multiple of the %d heads", c.Hidden, c.Heads)
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("model: config: %d query heads are not a multiple of the %d key/value heads", c.Heads, c.KVHeads)
	}
	if !(c.NormEps > 0) || math.IsInf(c.NormEps, 0) {
		return fmt.Errorf("model: config: norm epsilon %g must be positive and finite", c.NormEps)
	}
	switch c.Family {
	case GPT2:
		if c.KVHeads != c.Heads {
			return fmt.Errorf("model: config: GPT-2 needs as many key/value heads as heads, got %d and %d", c.KVHeads, c.Heads)
		}
		if !c.TiedEmbeddings {
			return errors.New("model: config: GPT-2 ties its LM head to the token embedding")
		}
	case Llama:
		if c.HeadDim()%2 != 0 {
			return fmt.Errorf("model: config: RoPE needs an even head dimension, got %d", c.HeadDim())
		}
		if !(c.RopeTheta > 1) || math.IsInf(c.RopeTheta, 0) {
			return fmt.Errorf("model: config: rope_theta %g must be finite and greater than 1", c.RopeTheta)
		}
	}
	return nil
}

// hfConfig holds the config.json keys read for both families; pointers tell
// absent keys from zero values.
type hfConfig struct {
	ModelType     string   `json:"model_type"`
	Architectures []string `json:"architectures"`

	NEmbd       *int     `json:"n_embd"`
	NHead       *int     `json:"n_head"`
	NLayer      *int     `json:"n_layer"`
	NPositions  *int     `json:"n_positions"`
	NCtx        *int     `json:"n_ctx"`
	NInner      *int     `json:"n_inner"`
	LayerNormEp *float64 `json:"layer_norm_epsilon"`
	Activation  *string  `json:"activation_function"`

	HiddenSize        *int            `json:"hidden_size"`
	NumHeads          *int            `json:"num_attention_heads"`
	NumKVHeads        *int            `json:"num_key_value_heads"`
	NumLayers         *int            `json:"num_hidden_layers"`
	IntermediateSize  *int            `json:"intermediate_size"`
	MaxPositionEmbeds *int            `json:"max_position_embeddings"`
	RMSNormEps        *float64        `json:"rms_norm_eps"`
	RopeTheta         *float64        `json:"rope_theta"`
	HiddenAct         *string         `json:"hidden_act"`
	HeadDim           *int            `json:"head_dim"`
	TieWordEmbeddings *bool           `json:"tie_word_embeddings"`
	AttentionBias     *bool           `json:"attention_bias"`
	MLPBias           *bool           `json:"mlp_bias"`
	RopeScaling       json.RawMessage `json:"rope_scaling"`

	VocabSize *int `json:"vocab_size"`
}

// ParseConfig reads a Hugging Face config.json. The family comes from
// model_type ("gpt2", "llama"), else from architectures, else from the keys
// present (n_embd for GPT-2, hidden_size for Llama).
func ParseConfig(data []byte) (*Config, error) {
	var h hfConfig
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("model: config.json: %w", err)
	}
	family, err := h.family()
	if err != nil {
		return nil, err
	}
	c := &Config{Family: family}
	need := func(name string, p *int) (int, error) {
		if p == nil {
			return 0, fmt.Errorf("model: config.json: missing %q", name)
		}
		return *p, nil
	}
	if c.Vocab, err = need("vocab_size", h.VocabSize); err != nil {
		return nil, err
	}
	switch family {
	case GPT2:
		if c.Hidden, err = need("n_embd", h.NEmbd); err != nil {
			return nil, err
		}
		if c.Heads, err = need("n_head", h.NHead); err != nil {
			return nil, err
		}
		if c.Layers, err = need("n_layer", h.NLayer); err != nil {
			return nil, err
		}
		positions := h.NPositions
		if positions == nil {
			positions = h.NCtx
		}
		if c.MaxPositions, err = need("n_positions", positions); err != nil {
			return nil, err
		}
		c.KVHeads = c.Heads
		c.Intermediate = 4 * c.Hidden
		if h.NInner != nil {
			c.Intermediate = *h.NInner
		}
		c.NormEps = 1e-5
		if h.LayerNormEp != nil {
			c.NormEps = *h.LayerNormEp
		}
		if h.Activation != nil && *h.Activation != "gelu_new" {
			return nil, fmt.Errorf("model: config.json: activation_function %q not supported (want \"gelu_new\")", *h.Activation)
		}
		c.TiedEmbeddings = true
	case Llama:
		if c.Hidden, err = need("hidden_size", h.HiddenSize); err != nil {
			return nil, err
		}
		if c.Heads, err = need("num_attention_heads", h.NumHeads); err != nil {
			return nil, err
		}
		if c.Layers, err = need("num_hidden_layers", h.NumLayers); err != nil {
			return nil, err
		}
		if c.Intermediate, err = need("intermediate_size", h.IntermediateSize); err != nil {
			return nil, err
		}
		if c.MaxPositions, err = need("max_position_embeddings", h.MaxPositionEmbeds); err != nil {
			return nil, err
		}
		c.KVHeads = c.Heads
		if h.NumKVHeads != nil {
			c.KVHeads = *h.NumKVHeads
		}
		c.NormEps = 1e-6
		if h.RMSNormEps != nil {
			c.NormEps = *h.RMSNormEps
		}
		c.RopeTheta = 10000
		if h.RopeTheta != nil {
			c.RopeTheta = *h.RopeTheta
		}
		if h.TieWordEmbeddings != nil {
			c.TiedEmbeddings = *h.TieWordEmbeddings
		}
		if h.HiddenAct != nil && *h.HiddenAct != "silu" {
			return nil, fmt.Errorf("model: config.json: hidden_act %q not supported (want \"silu\")", *h.HiddenAct)
		}
		if (h.AttentionBias != nil && *h.AttentionBias) || (h.MLPBias != nil && *h.MLPBias) {
			return nil, errors.New("model: config.json: Llama projections with biases are not supported")
		}
		if len(h.RopeScaling) > 0 && !bytes.Equal(bytes.TrimSpace(h.RopeScaling), []byte("null")) {
			return nil, errors.New("model: config.json: rope_scaling is not supported")
		}
		if h.HeadDim != nil && c.Heads > 0 && *h.HeadDim*c.Heads != c.Hidden {
			return nil, fmt.Errorf("model: config.json: head_dim %d times %d heads differs from hidden_size %d", *h.HeadDim, c.Heads, c.Hidden)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func (h *hfConfig) family() (Family, error) {
	switch h.ModelType {
	case "gpt2":
		return GPT2, nil
	case "llama":
		return Llama, nil
	case "":
	default:
		return "", fmt.Errorf("model: config.json: model_type %q not supported (want \"gpt2\" or \"llama\")", h.ModelType)
	}
	switch {
	case slices.Contains(h.Architectures, "GPT2LMHeadModel"), slices.Contains(h.Architectures, "GPT2Model"):
		return GPT2, nil
	case slices.Contains(h.Architectures, "LlamaForCausalLM"), slices.Contains(h.Architectures, "LlamaModel"):
		return Llama, nil
	case h.NEmbd != nil:
		return GPT2, nil
	case h.HiddenSize != nil:
		return Llama, nil
	}
	return "", errors.New("model: config.json: cannot tell the model family (no model_type, architectures, n_embd or hidden_size)")
}

// MarshalHF returns the config as a Hugging Face config.json.
func (c *Config) MarshalHF() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var m map[string]any
	switch c.Family {
	case GPT2:
		m = map[string]any{
			"model_type":          "gpt2",
			"architectures":       []string{"GPT2LMHeadModel"},
			"vocab_size":          c.Vocab,
			"n_embd":              c.Hidden,
			"n_head":              c.Heads,
			"n_layer":             c.Layers,
			"n_positions":         c.MaxPositions,
			"n_inner":             c.Intermediate,
			"layer_norm_epsilon":  c.NormEps,
			"activation_function": "gelu_new",
		}
	case Llama:
		m = map[string]any{
			"model_type":              "llama",
			"architectures":           []string{"LlamaForCausalLM"},
			"vocab_size":              c.Vocab,
			"hidden_size":             c.Hidden,
			"num_attention_heads":     c.Heads,
			"num_key_value_heads":     c.KVHeads,
			"num_hidden_layers":       c.Layers,
			"intermediate_size":       c.Intermediate,
			"max_position_embeddings": c.MaxPositions,
			"rms_norm_eps":            c.NormEps,
			"rope_theta":              c.RopeTheta,
			"hidden_act":              "silu",
			"tie_word_embeddings":     c.TiedEmbeddings,
		}
	}
	return json.MarshalIndent(m, "", "  ")
}
