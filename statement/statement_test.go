package statement

import (
	"math/big"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
)

func TestTokensDigest(t *testing.T) {
	a, err := TokensDigest[bn254fr.Element]([]int{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range [][]int{{1, 2, 4}, {1, 2, 3, 0}, {1, 2}, {}} {
		b, err := TokensDigest[bn254fr.Element](other)
		if err != nil {
			t.Fatal(err)
		}
		if a.Equal(&b) {
			t.Errorf("tokens %v have the digest of [1 2 3]", other)
		}
	}
	for _, bad := range []int{-1, 1 << 20} {
		if _, err := TokensDigest[bn254fr.Element]([]int{bad}); err == nil {
			t.Errorf("token %d accepted", bad)
		}
	}
}

func TestModelID(t *testing.T) {
	m := model.Default()
	id := ModelID(m)
	if id.BitLen() > ModelIDBits || id.Sign() == 0 {
		t.Fatalf("model id of %d bits", id.BitLen())
	}
	if id.Cmp(ModelID(model.Default())) != 0 {
		t.Fatal("model id is not deterministic")
	}
	// Any change to what the integer pass reads changes the id.
	m.Quant.Layers[1].Up.Weight.Data[7]++
	if id.Cmp(ModelID(m)) == 0 {
		t.Fatal("a weight change kept the model id")
	}
	m.Quant.Layers[1].Up.Weight.Data[7]--
	m.Quant.Layers[0].O.Shift++
	if id.Cmp(ModelID(m)) == 0 {
		t.Fatal("a shift change kept the model id")
	}
}

// TestModelIDTokenizer checks that the tokenizer is part of the id: a
// swapped vocabulary, another beginning-of-sequence rule or no tokenizer
// give another id.
func TestModelIDTokenizer(t *testing.T) {
	m := model.Default()
	id := ModelID(m)
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
		ids[name] = ModelID(m)
	}
	m.Tokenizer = gpt2(`{"ab": 2, "b": 1, "a": 0}`)
	if ModelID(m).Cmp(ids["vocabulary"]) != 0 {
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

func TestStatementFitsAllFields(t *testing.T) {
	m := model.Default()
	s, err := New[bls12377fr.Element](m, []int{1, 2}, []int{3})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*big.Int{s.ModelID, s.InputDigest, s.OutputDigest} {
		if v.Cmp(bls12377fr.Modulus()) >= 0 || v.Cmp(bn254fr.Modulus()) >= 0 {
			t.Fatal("statement value does not fit both fields")
		}
	}
	els := Elements[bn254fr.Element](s)
	var back big.Int
	els[1].BigInt(&back)
	if back.Cmp(s.InputDigest) != 0 {
		t.Fatal("statement elements")
	}
	if s.String() == "" {
		t.Fatal("empty string")
	}
}
