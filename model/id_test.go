package model

import (
	"math/big"
	"testing"

	"github.com/veriformer/veriformer/model/tokenizer"
)

func TestID(t *testing.T) {
	m := Default()
	id := m.ID()
	if id.BitLen() > IDBits || id.Sign() == 0 {
		t.Fatalf("model id of %d bits", id.BitLen())
	}
	if id.Cmp(Default().ID()) != 0 {
		t.Fatal("model id is not deterministic")
	}
	// Any change to what the integer pass reads changes the id.
	m.Quant.Layers[1].Up.Weight.Data[7]++
	if id.Cmp(m.ID()) == 0 {
		t.Fatal("a weight change kept the model id")
	}
	m.Quant.Layers[1].Up.Weight.Data[7]--
	m.Quant.Layers[0].O.Shift++
	if id.Cmp(m.ID()) == 0 {
		t.Fatal("a shift change kept the model id")
	}
}

// TestIDTokenizer checks that the tokenizer is part of the id: a
// swapped vocabulary, another beginning-of-sequence rule or no tokenizer
// give another id.
func TestIDTokenizer(t *testing.T) {
	m := Default()
	id := m.ID()
	gpt2 := func(vocab string) *tokenizer.Codec {
		t.Helper()
		tok, err := tokenizer.LoadGPT2([]byte(vocab), []byte("#version: 0.2\na b\n"))
		if err != nil {
			t.Fatal(err)
		}
		return &tokenizer.Codec{Tokenizer: tok, BOS: tokenizer.NoBOS}
	}
	ids := map[string]*big.Int{"byte tokenizer": id}
	for name, c := range map[string]*tokenizer.Codec{
		"no tokenizer":        nil,
		"byte tokenizer, BOS": {Tokenizer: tokenizer.NewByte(), BOS: 0},
		"vocabulary":          gpt2(`{"a": 0, "b": 1, "ab": 2}`),
		"swapped vocabulary":  gpt2(`{"a": 1, "b": 0, "ab": 2}`),
	} {
		m.Tokenizer = c
		ids[name] = m.ID()
	}
	m.Tokenizer = gpt2(`{"ab": 2, "b": 1, "a": 0}`)
	if m.ID().Cmp(ids["vocabulary"]) != 0 {
		t.Error("the id depends on the order of vocab.json")
	}
	for a, x := range ids {
		for b, y := range ids {
			if a < b && x.Cmp(y) == 0 {
				t.Errorf("%s and %s: same model id", a, b)
			}
		}
	}
}
