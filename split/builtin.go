package split

import (
	"fmt"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
)

// LlamaSeed seeds the weights of [LlamaModel].
const LlamaSeed = 20241123

// LlamaConfig is the built-in Llama-family model of this package: 3
// layers, d = 64, 4 query heads sharing 2 key/value heads, MLP width 128,
// context 64, a byte-level vocabulary of 256 (a token is a byte of the
// prompt).
func LlamaConfig() *model.Config {
	return &model.Config{Family: model.Llama, Vocab: 256, Hidden: 64, Layers: 3, Heads: 4, KVHeads: 2,
		Intermediate: 128, MaxPositions: 64, NormEps: 1e-5, RopeTheta: 10000}
}

// LlamaModel returns the built-in Llama-family model: [LlamaConfig] with
// [model.RandomWeights] from LlamaSeed, quantized with the default
// options. It needs no files and is the same on every machine.
func LlamaModel() *model.Model {
	c := LlamaConfig()
	w, err := model.RandomWeights(c, LlamaSeed, model.DefaultEmbedScale, model.DefaultGain)
	if err != nil {
		panic(fmt.Sprintf("split: built-in weights: %v", err))
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		panic(fmt.Sprintf("split: built-in model: %v", err))
	}
	m.Tokenizer = tokenizer.NewByteCodec()
	return m
}
