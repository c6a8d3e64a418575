package split

import (
	"fmt"

	"github.com/veriformer/veriformer/model"
)

// LlamaSeed seeds the weights of [LlamaModel].
const LlamaSeed = model.LlamaTinySeed

// LlamaConfig is the built-in Llama-family model this package serves by
// default, model.LlamaTiny: 3 layers, d = 64, 4 query heads sharing 2
// key/value heads, MLP width 128, context 64, a byte-level vocabulary of
// 256 (a token is a byte of the prompt).
func LlamaConfig() *model.Config {
	c, err := model.BuiltinConfig(model.LlamaTiny)
	if err != nil {
		panic(fmt.Sprintf("split: built-in config: %v", err))
	}
	return c
}

// LlamaModel returns the built-in Llama-family model, model.LlamaTiny. It
// needs no files and is the same on every machine.
func LlamaModel() *model.Model {
	m, err := model.Builtin(model.LlamaTiny)
	if err != nil {
		panic(fmt.Sprintf("split: built-in model: %v", err))
	}
	return m
}
