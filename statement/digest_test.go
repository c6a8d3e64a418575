package statement

import (
	"crypto/sha256"
	"math/big"
	"testing"
)

// TestDigest checks the encoding against SHA-256 of hand-written words and
// a golden value, and the refusal of values that are not 256-bit words.
func TestDigest(t *testing.T) {
	const goldenDigest123 = "1701f34c80e1ef7f8125e5d4d2d7e19b509e25d26e462d5308b5abb95b64783e"
	var words [DigestInputSize]byte
	words[31], words[63], words[95] = 1, 2, 3
	sum := sha256.Sum256(words[:])
	sum[0] &= 0x1f
	want := new(big.Int).SetBytes(sum[:])
	got, err := Digest(big.NewInt(1), big.NewInt(2), big.NewInt(3))
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(want) != 0 {
		t.Fatalf("Digest(1, 2, 3) = %#x, want %#x", got, want)
	}
	if g := got.Text(16); g != goldenDigest123 {
		t.Fatalf("Digest(1, 2, 3) = %s, golden %s", g, goldenDigest123)
	}
	if got.BitLen() > DigestBits {
		t.Fatalf("digest has %d bits", got.BitLen())
	}
	st := Statement{ModelID: big.NewInt(1), InputDigest: big.NewInt(2), OutputDigest: big.NewInt(3)}
	if d, err := st.Digest(); err != nil || d.Cmp(got) != 0 {
		t.Fatalf("Statement.Digest = %v, %v", d, err)
	}
	for _, bad := range []*big.Int{nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), 256)} {
		if _, err := Digest(big.NewInt(1), bad, big.NewInt(3)); err == nil {
			t.Fatalf("Digest accepted %v", bad)
		}
	}
}

// TestTurnDigest checks the turn's encoding against SHA-256 of
// hand-written words and a golden value shared with the circuit's and the
// registry's tests, and the refusal of values that are not 256-bit words.
func TestTurnDigest(t *testing.T) {
	const goldenTurn12345 = "1f88c1044a05e5340ed20466276500f6d45ca5603913b9091e957161734e1635"
	var words [TurnDigestInputSize]byte
	words[31], words[63], words[95], words[127], words[159] = 1, 2, 3, 4, 5
	sum := sha256.Sum256(words[:])
	sum[0] &= 0x1f
	want := new(big.Int).SetBytes(sum[:])
	turn := Turn{ModelID: big.NewInt(1), StateIn: big.NewInt(2), InputDigest: big.NewInt(3), OutputDigest: big.NewInt(4), StateOut: big.NewInt(5)}
	got, err := turn.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(want) != 0 {
		t.Fatalf("turn digest of 1…5 = %#x, want %#x", got, want)
	}
	if g := got.Text(16); g != goldenTurn12345 {
		t.Fatalf("turn digest of 1…5 = %s, golden %s", g, goldenTurn12345)
	}
	for _, bad := range []*big.Int{nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), 256)} {
		b := turn
		b.StateOut = bad
		if _, err := b.Digest(); err == nil {
			t.Fatalf("turn digest accepted %v", bad)
		}
	}
}
