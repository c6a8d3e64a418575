package model

import (
	"fmt"
)

// Constants of the built-in default model.
const (
	// DefaultSeed seeds the default model's weights.
	DefaultSeed = 20240601
	// DefaultEmbedScale is the standard deviation of the default token
	// embedding: large enough that the logits of different tokens are well
	// separated (see doc.go, "Default model").
	DefaultEmbedScale = 1.0
	// DefaultGain scales the default projections: weights have standard
	// deviation DefaultGain/√In.
	DefaultGain = 1.0
)

// DefaultConfig is the built-in model's shape: GPT-2 family, 2 layers,
// d = 64, 4 heads, context 32, a byte-level vocabulary of 256.
func DefaultConfig() *Config {
	return &Config{
		Family:         GPT2,
		Vocab:          256,
		Hidden:         64,
		Layers:         2,
		Heads:          4,
		KVHeads:        4,
		Intermediate:   256,
		MaxPositions:   32,
		NormEps:        1e-5,
		TiedEmbeddings: true,
	}
}

// Default returns the built-in model [Tiny]: [DefaultConfig] with weights
// drawn by [RandomWeights] from DefaultSeed, quantized with the default
// options. It needs no files and is the same on every call and machine.
// Its tokenizer is the byte tokenizer without a beginning-of-sequence
// token.
func Default() *Model {
	m, err := Builtin(Tiny)
	if err != nil {
		panic(fmt.Sprintf("model: default model: %v", err))
	}
	return m
}
