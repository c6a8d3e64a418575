package statement

import (
	"math/big"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/model"
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

func TestStatementFitsAllFields(t *testing.T) {
	m := model.Default()
	s, err := Of[bls12377fr.Element](m.ID(), []int{1, 2}, []int{3})
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
	if ModelIDBits != model.IDBits {
		t.Fatalf("statement ids of %d bits, model ids of %d", ModelIDBits, model.IDBits)
	}
}
