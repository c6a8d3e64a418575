package model

import (
	"reflect"
	"strings"
	"testing"
)

// gpt2SmallJSON is GPT-2 small's config.json as published.
const gpt2SmallJSON = `{
  "activation_function": "gelu_new",
  "architectures": ["GPT2LMHeadModel"],
  "attn_pdrop": 0.1,
  "bos_token_id": 50256,
  "embd_pdrop": 0.1,
  "eos_token_id": 50256,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2",
  "n_ctx": 1024,
  "n_embd": 768,
  "n_head": 12,
  "n_layer": 12,
  "n_positions": 1024,
  "resid_pdrop": 0.1,
  "vocab_size": 50257
}`

// tinyLlamaJSON is TinyLlama-1.1B's config.json as published.
const tinyLlamaJSON = `{
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 5632,
  "max_position_embeddings": 2048,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 22,
  "num_key_value_heads": 4,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.35.0",
  "use_cache": true,
  "vocab_size": 32000
}`

func TestParseConfigGPT2(t *testing.T) {
	c, err := ParseConfig([]byte(gpt2SmallJSON))
	if err != nil {
		t.Fatal(err)
	}
	// GPT2SmallConfig is the same shape as GPT-2 small's own config.json.
	want := *GPT2SmallConfig(1024)
	if *c != want {
		t.Fatalf("got %+v, want %+v", *c, want)
	}
	if c.HeadDim() != 64 || c.KVDim() != 768 {
		t.Errorf("head dim %d, KV dim %d", c.HeadDim(), c.KVDim())
	}
}

func TestParseConfigLlama(t *testing.T) {
	c, err := ParseConfig([]byte(tinyLlamaJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Family: Llama, Vocab: 32000, Hidden: 2048, Layers: 22, Heads: 32, KVHeads: 4,
		Intermediate: 5632, MaxPositions: 2048, NormEps: 1e-5, RopeTheta: 10000}
	if *c != want {
		t.Fatalf("got %+v, want %+v", *c, want)
	}
	if c.HeadDim() != 64 || c.KVDim() != 256 {
		t.Errorf("head dim %d, KV dim %d", c.HeadDim(), c.KVDim())
	}
}

func TestParseConfigFamilyFromKeys(t *testing.T) {
	c, err := ParseConfig([]byte(`{"n_embd": 48, "n_head": 3, "n_layer": 1, "n_positions": 8, "vocab_size": 10}`))
	if err != nil || c.Family != GPT2 || c.Intermediate != 192 || c.NormEps != 1e-5 {
		t.Fatalf("got %+v, %v", c, err)
	}
	c, err = ParseConfig([]byte(`{"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "num_attention_heads": 2,
		"num_hidden_layers": 1, "intermediate_size": 16, "max_position_embeddings": 8, "vocab_size": 10}`))
	if err != nil || c.Family != Llama || c.KVHeads != 2 || c.RopeTheta != 10000 || c.NormEps != 1e-6 {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestConfigRoundTrip(t *testing.T) {
	for _, c := range []*Config{DefaultConfig(), smallGPT2Config(), smallLlamaConfig()} {
		data, err := c.MarshalHF()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Errorf("round trip: got %+v, want %+v", back, c)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	llama := func(edit string) string {
		return strings.Replace(tinyLlamaJSON, `"vocab_size": 32000`, `"vocab_size": 32000`+edit, 1)
	}
	for _, tc := range []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "config.json"},
		{"unknown model type", `{"model_type": "bert"}`, `model_type "bert"`},
		{"no family", `{"vocab_size": 3}`, "cannot tell the model family"},
		{"missing key", strings.Replace(gpt2SmallJSON, `"n_head": 12,`, "", 1), `missing "n_head"`},
		{"missing vocab", strings.Replace(gpt2SmallJSON, `,
  "vocab_size": 50257`, "", 1), `missing "vocab_size"`},
		{"fractional size", strings.Replace(gpt2SmallJSON, `"n_embd": 768`, `"n_embd": 768.5`, 1), "config.json"},
		{"heads do not divide", strings.Replace(gpt2SmallJSON, `"n_head": 12`, `"n_head": 7`, 1), "not a multiple of the 7 heads"},
		{"zero layers", strings.Replace(gpt2SmallJSON, `"n_layer": 12`, `"n_layer": 0`, 1), "number of layers 0"},
		{"negative epsilon", strings.Replace(gpt2SmallJSON, `1e-05`, `-1`, 1), "epsilon"},
		{"activation", strings.Replace(gpt2SmallJSON, `"gelu_new"`, `"relu"`, 1), "activation_function"},
		{"kv heads do not divide", strings.Replace(tinyLlamaJSON, `"num_key_value_heads": 4`, `"num_key_value_heads": 5`, 1), "not a multiple of the 5 key/value heads"},
		{"hidden act", strings.Replace(tinyLlamaJSON, `"silu"`, `"gelu"`, 1), "hidden_act"},
		{"attention bias", strings.Replace(tinyLlamaJSON, `"attention_bias": false`, `"attention_bias": true`, 1), "biases"},
		{"rope scaling", strings.Replace(tinyLlamaJSON, `"rope_scaling": null`, `"rope_scaling": {"type": "linear", "factor": 2.0}`, 1), "rope_scaling"},
		{"rope theta", llama(`, "rope_theta": 0.5`), "rope_theta"},
		{"head dim", llama(`, "head_dim": 32`), "head_dim"},
		{"too wide", strings.Replace(gpt2SmallJSON, `"n_embd": 768`, `"n_embd": 32768`, 1), "hidden size 32768"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(c *Config)
	}{
		{"odd head dim", func(c *Config) { c.Hidden, c.Heads, c.KVHeads = 12, 4, 2 }},
		{"unknown family", func(c *Config) { c.Family = "t5" }},
		{"zero vocab", func(c *Config) { c.Vocab = 0 }},
	} {
		c := smallLlamaConfig()
		tc.edit(c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	c := smallGPT2Config()
	c.KVHeads = 1
	if err := c.Validate(); err == nil {
		t.Error("GPT-2 with grouped-query attention accepted")
	}
	c = smallGPT2Config()
	c.TiedEmbeddings = false
	if err := c.Validate(); err == nil {
		t.Error("untied GPT-2 accepted")
	}
}

// FuzzParseConfig checks that arbitrary bytes never panic and that every
// accepted config survives a MarshalHF round trip.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(gpt2SmallJSON))
	f.Add([]byte(tinyLlamaJSON))
	f.Add([]byte(`{"n_embd": 4, "n_head": 2, "n_layer": 1, "n_positions": 2, "vocab_size": 3, "n_inner": 5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config fails validation: %v", err)
		}
		out, err := c.MarshalHF()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(out)
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("round trip: %+v, %v; want %+v", back, err, c)
		}
	})
}
