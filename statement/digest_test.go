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

// goldenBatch is a batch of two inferences of model 1: inputs 2 and 4,
// outputs 3 and 5. Its list digest and digest are golden values shared
// with the circuit's and the registry's tests.
func goldenBatch() Batch {
	return Batch{ModelID: big.NewInt(1), Inputs: []*big.Int{big.NewInt(2), big.NewInt(4)}, Outputs: []*big.Int{big.NewInt(3), big.NewInt(5)}}
}

// TestBatchDigest checks the batch's encoding against SHA-256 of
// hand-written words and golden values, that the order of the
// inferences, the pairing of inputs with outputs and the count change
// it, and the refusal of batches that are empty, uneven, too large or
// hold a value that is not a 256-bit word.
func TestBatchDigest(t *testing.T) {
	const (
		goldenList   = "1c77b2a2a33283f1700b6649db35bedaf824238e8db513b6cb1b2546c7db6dc"
		goldenDigest = "f76f24f0be463c7f132dfd794644122fbc39b5a563f35d6f691e57fd46f3051"
	)
	b := goldenBatch()
	var words [32 + 64*2]byte
	words[31], words[63], words[95], words[127], words[159] = 2, 2, 3, 4, 5
	sum := sha256.Sum256(words[:])
	sum[0] &= 0x03
	wantList := new(big.Int).SetBytes(sum[:])
	list, err := b.ListDigest()
	if err != nil {
		t.Fatal(err)
	}
	if list.Cmp(wantList) != 0 {
		t.Fatalf("list digest %#x, want %#x", list, wantList)
	}
	var outer [64]byte
	outer[31] = 1
	list.FillBytes(outer[32:])
	sum = sha256.Sum256(outer[:])
	sum[0] &= 0x1f
	wantDigest := new(big.Int).SetBytes(sum[:])
	d, err := b.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d.Cmp(wantDigest) != 0 {
		t.Fatalf("batch digest %#x, want %#x", d, wantDigest)
	}
	if list.Text(16) != goldenList || d.Text(16) != goldenDigest {
		t.Fatalf("list digest %x, digest %x; golden %s, %s", list, d, goldenList, goldenDigest)
	}
	if list.BitLen() > ListBits || d.BitLen() > DigestBits {
		t.Fatalf("list digest of %d bits, digest of %d", list.BitLen(), d.BitLen())
	}
	if s := b.Statement(1); s.ModelID.Int64() != 1 || s.InputDigest.Int64() != 4 || s.OutputDigest.Int64() != 5 {
		t.Fatalf("inference 1: %v", s)
	}

	// Every change of the inferences changes the digest.
	two := func(a, b int64) []*big.Int { return []*big.Int{big.NewInt(a), big.NewInt(b)} }
	for name, other := range map[string]Batch{
		"reordered":        {ModelID: big.NewInt(1), Inputs: two(4, 2), Outputs: two(5, 3)},
		"outputs swapped":  {ModelID: big.NewInt(1), Inputs: two(2, 4), Outputs: two(5, 3)},
		"one dropped":      {ModelID: big.NewInt(1), Inputs: two(2, 4)[:1], Outputs: two(3, 5)[:1]},
		"one added":        {ModelID: big.NewInt(1), Inputs: append(two(2, 4), big.NewInt(6)), Outputs: append(two(3, 5), big.NewInt(7))},
		"another model":    {ModelID: big.NewInt(2), Inputs: two(2, 4), Outputs: two(3, 5)},
		"an input changed": {ModelID: big.NewInt(1), Inputs: two(2, 6), Outputs: two(3, 5)},
	} {
		od, err := other.Digest()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if od.Cmp(d) == 0 {
			t.Errorf("%s: the same digest", name)
		}
	}
	// A batch of one is not the statement of its inference.
	one := Batch{ModelID: big.NewInt(1), Inputs: two(2, 0)[:1], Outputs: two(3, 0)[:1]}
	od, err := one.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if sd, _ := one.Statement(0).Digest(); sd.Cmp(od) == 0 {
		t.Error("a batch of one has its statement's digest")
	}

	big256 := new(big.Int).Lsh(big.NewInt(1), 256)
	for name, bad := range map[string]Batch{
		"empty":            {ModelID: big.NewInt(1)},
		"uneven":           {ModelID: big.NewInt(1), Inputs: two(2, 4), Outputs: two(3, 5)[:1]},
		"too large":        {ModelID: big.NewInt(1), Inputs: make([]*big.Int, MaxBatch+1), Outputs: make([]*big.Int, MaxBatch+1)},
		"no model id":      {Inputs: two(2, 4), Outputs: two(3, 5)},
		"a nil input":      {ModelID: big.NewInt(1), Inputs: []*big.Int{big.NewInt(2), nil}, Outputs: two(3, 5)},
		"a negative value": {ModelID: big.NewInt(1), Inputs: two(2, 4), Outputs: two(3, -5)},
		"a 257-bit value":  {ModelID: big.NewInt(1), Inputs: []*big.Int{big.NewInt(2), big256}, Outputs: two(3, 5)},
	} {
		if _, err := bad.Digest(); err == nil {
			t.Errorf("%s: digest accepted", name)
		}
		if _, err := bad.ListDigest(); err == nil {
			t.Errorf("%s: list digest accepted", name)
		}
	}
}
