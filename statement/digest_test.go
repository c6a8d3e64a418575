package statement

import (
	"crypto/sha256"
	"math/big"
	"testing"
)

// TestDigest checks the encoding of a list of one request against SHA-256
// of hand-written words: the list digest of (2 + 2^254, 3), then the
// statement digest of the model id 1 and the list digest, and that a
// statement's digest is its list's.
func TestDigest(t *testing.T) {
	var leaf [64]byte
	leaf[0], leaf[31], leaf[63] = 0x40, 2, 3
	sum := sha256.Sum256(leaf[:])
	sum[0] &= 0xff >> (256 - ListBits)
	var words [64]byte
	words[31] = 1
	copy(words[32:], sum[:])
	sum = sha256.Sum256(words[:])
	sum[0] &= 0xff >> (256 - DigestBits)
	want := new(big.Int).SetBytes(sum[:])
	st := Statement{ModelID: big.NewInt(1), InputDigest: big.NewInt(2), OutputDigest: big.NewInt(3)}
	got, err := st.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(want) != 0 {
		t.Fatalf("digest of (1, 2, 3) = %#x, want %#x", got, want)
	}
	if got.BitLen() > DigestBits {
		t.Fatalf("digest has %d bits", got.BitLen())
	}
	for _, bad := range []*big.Int{nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), KindShift)} {
		st := Statement{ModelID: big.NewInt(1), InputDigest: bad, OutputDigest: big.NewInt(3)}
		if _, err := st.Digest(); err == nil {
			t.Fatalf("Digest accepted %v", bad)
		}
	}
}
