package model

import (
	"fmt"
	"strings"

	"github.com/veriformer/veriformer/model/tokenizer"
)

// Names of the built-in models: models that need no files, the same on
// every machine (weights drawn by [RandomWeights] from a fixed seed,
// quantized with the default options, the byte tokenizer without a
// beginning-of-sequence token).
const (
	// Tiny is the default model, [Default]: GPT-2 family, 2 layers,
	// d = 64, vocabulary 256, context 32.
	Tiny = "tiny"
	// LlamaTiny is the small Llama-family test model: 3 layers, d = 64,
	// 4 query heads sharing 2 key/value heads, MLP width 128, context 64,
	// vocabulary 256.
	LlamaTiny = "llama-tiny"
	// GPT2SmallRandom has GPT-2 small's exact shape (12 layers, d = 768,
	// 12 heads, vocabulary 50,257, context 1,024) and random weights. Its
	// byte tokenizer encodes prompts as tokens 0–255; generated tokens
	// past 255 have no text.
	GPT2SmallRandom = "gpt2-small-random"
	// Micro is the smallest built-in model, for the end-to-end tests of
	// the default test run: GPT-2 family, 1 layer, d = 16, 2 heads, MLP
	// width 64, vocabulary 256, context 8.
	Micro = "micro"
)

// Seeds of the built-in models' weights.
const (
	LlamaTinySeed       = 20241123
	GPT2SmallRandomSeed = 20260601
	MicroSeed           = 20261201
)

// BuiltinNames lists the built-in models' names, the default first.
func BuiltinNames() []string { return []string{Tiny, LlamaTiny, GPT2SmallRandom, Micro} }

// IsBuiltin reports whether name is a built-in model's.
func IsBuiltin(name string) bool {
	for _, n := range BuiltinNames() {
		if n == name {
			return true
		}
	}
	return false
}

// BuiltinConfig returns the shape of the built-in model name.
func BuiltinConfig(name string) (*Config, error) {
	switch name {
	case Tiny:
		return DefaultConfig(), nil
	case LlamaTiny:
		return &Config{Family: Llama, Vocab: 256, Hidden: 64, Layers: 3, Heads: 4, KVHeads: 2,
			Intermediate: 128, MaxPositions: 64, NormEps: 1e-5, RopeTheta: 10000}, nil
	case GPT2SmallRandom:
		return GPT2SmallConfig(1024), nil
	case Micro:
		return &Config{Family: GPT2, Vocab: 256, Hidden: 16, Layers: 1, Heads: 2, KVHeads: 2,
			Intermediate: 64, MaxPositions: 8, NormEps: 1e-5, TiedEmbeddings: true}, nil
	}
	return nil, fmt.Errorf("model: no built-in model %q (built-in: %s)", name, strings.Join(BuiltinNames(), ", "))
}

// Builtin returns the built-in model name with its byte tokenizer. The
// weights of gpt2-small-random (124M parameters) take a few seconds to
// draw and about a gigabyte of memory.
func Builtin(name string) (*Model, error) {
	c, err := BuiltinConfig(name)
	if err != nil {
		return nil, err
	}
	seed := uint64(DefaultSeed)
	switch name {
	case LlamaTiny:
		seed = LlamaTinySeed
	case GPT2SmallRandom:
		seed = GPT2SmallRandomSeed
	case Micro:
		seed = MicroSeed
	}
	w, err := RandomWeights(c, seed, DefaultEmbedScale, DefaultGain)
	if err != nil {
		return nil, fmt.Errorf("model: built-in %s: %w", name, err)
	}
	m, err := New(c, w, nil)
	if err != nil {
		return nil, fmt.Errorf("model: built-in %s: %w", name, err)
	}
	m.Tokenizer = tokenizer.NewByteCodec()
	return m, nil
}
