// Package headshapes lists head layouts of real models whose attention
// the integer pass computes in padded heads (model.HeadLayout), as small
// random Llama models with those layouts: the fixtures of the tests that
// prove and verify them in both designs. It is off the product path:
// only tests import it.
package headshapes

import (
	"fmt"

	"github.com/veriformer/veriformer/model"
)

// Shape is a head layout: query heads, key/value heads and head
// dimension.
type Shape struct {
	Name                    string
	Heads, KVHeads, HeadDim int
}

// The layouts. Every pads all three of key/value heads (3 → 4), the group
// (3 → 4) and the head dimension (6 → 8) at once; the others are those of
// Qwen2.5 (14 query heads per 2 key/value heads: group 7), Qwen2 (group
// 6), Phi-3 (head dimension 96) and a group of 3 with head dimension 10.
var (
	Every  = Shape{"llama-h9-kv3-d6", 9, 3, 6}
	Qwen25 = Shape{"llama-h14-kv2-d4", 14, 2, 4}
	Qwen2  = Shape{"llama-h12-kv2-d8", 12, 2, 8}
	Phi3   = Shape{"llama-h2-kv2-d96", 2, 2, 96}
	Group3 = Shape{"llama-h6-kv2-d10", 6, 2, 10}
)

// All returns the layouts, Every first.
func All() []Shape { return []Shape{Every, Qwen25, Qwen2, Phi3, Group3} }

// ByName returns the layout named name.
func ByName(name string) (Shape, bool) {
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// Config returns a one-block Llama of the layout: a vocabulary of 64
// tokens, an MLP of width 32, a context of 16.
func (s Shape) Config() *model.Config {
	return &model.Config{Family: model.Llama, Vocab: 64, Hidden: s.Heads * s.HeadDim, Layers: 1,
		Heads: s.Heads, KVHeads: s.KVHeads, Intermediate: 32, MaxPositions: 16, NormEps: 1e-5, RopeTheta: 10000}
}

// Model returns the layout's model with random weights (seed 7).
func (s Shape) Model() (*model.Model, error) {
	c := s.Config()
	w, err := model.RandomWeights(c, 7, 1, 1)
	if err != nil {
		return nil, fmt.Errorf("headshapes: %s: %w", s.Name, err)
	}
	m, err := model.New(c, w, nil)
	if err != nil {
		return nil, fmt.Errorf("headshapes: %s: %w", s.Name, err)
	}
	if !c.HeadLayout().Padded() {
		return nil, fmt.Errorf("headshapes: %s: its heads are not padded", s.Name)
	}
	return m, nil
}

// PaddingColumn returns the first column of c's computed queries that is
// no model query column (a column the padding holds at zero), or an
// error when its heads are not padded or every column is the model's.
func PaddingColumn(c *model.Config) (int, error) {
	hl := c.HeadLayout()
	real := make([]bool, hl.QueryDim())
	for col := range c.Heads * c.HeadDim() {
		real[hl.QueryColumn(col)] = true
	}
	for col, r := range real {
		if !r {
			return col, nil
		}
	}
	return 0, fmt.Errorf("headshapes: no padding column in %d heads of %d", hl.Heads, hl.HeadDim)
}
