package split

import (
	"bytes"
	"testing"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"
)

// fuzzLayout returns the built-in model's layout and a fresh encryption of
// zero at level.
func fuzzLayout(t testing.TB, level int) (*Layout, *rlwe.Ciphertext, *rlwe.SecretKey) {
	l, err := NewLayout(LlamaConfig())
	if err != nil {
		t.Fatal(err)
	}
	sk := rlwe.NewKeyGenerator(l.Params).GenSecretKeyNew()
	pt := ckks.NewPlaintext(l.Params, level)
	ct := l.newCiphertext(level, pt.Scale)
	if err := rlwe.NewEncryptor(l.Params, sk).Encrypt(pt, ct); err != nil {
		t.Fatal(err)
	}
	return l, ct, sk
}

// FuzzDecodeRequest: the request decoder never panics, and what it
// accepts re-encodes to the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	l, ct, _ := fuzzLayout(f, inLevel)
	inCts := func(layer int, r Round) int {
		if layer < 3 && r >= RoundQKV && r <= RoundDown {
			return 1
		}
		return 0
	}
	valid := l.EncodeRequest(&Request{Layer: 1, Round: RoundMLP, Rows: 3, Cts: []*rlwe.Ciphertext{ct}})
	f.Add(valid)
	f.Add(valid[:requestHeaderBytes])
	f.Add([]byte("VFSQ\x01\x01\x00\x00\x01\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := l.DecodeRequest(b, inCts, 64)
		if err != nil {
			return
		}
		if !bytes.Equal(l.EncodeRequest(r), b) {
			t.Fatal("accepted request does not re-encode to its bytes")
		}
	})
}

// FuzzDecodeResponse: the response decoder never panics, and what it
// accepts re-encodes to the same bytes.
func FuzzDecodeResponse(f *testing.F) {
	l, ct, _ := fuzzLayout(f, outLevel)
	valid := l.EncodeResponse([]*rlwe.Ciphertext{ct})
	f.Add(valid, 1)
	f.Add(valid[:9], 0)
	f.Add([]byte("VFSR\x01\x00\x00\x00\x00"), 0)
	f.Fuzz(func(t *testing.T, b []byte, want int) {
		if want < 0 || want > 4 {
			return
		}
		cts, err := l.DecodeResponse(b, want)
		if err != nil {
			return
		}
		if !bytes.Equal(l.EncodeResponse(cts), b) {
			t.Fatal("accepted response does not re-encode to its bytes")
		}
	})
}

// FuzzDecodeKeys: the keys decoder never panics, and what it accepts
// re-encodes to the same bytes.
func FuzzDecodeKeys(f *testing.F) {
	l, _, sk := fuzzLayout(f, inLevel)
	gks := rlwe.NewKeyGenerator(l.Params).GenGaloisKeysNew(l.GaloisElements(), sk)
	valid, err := l.EncodeKeys(gks)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:7])
	f.Add([]byte("VFSK\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		set, err := l.DecodeKeys(b)
		if err != nil {
			return
		}
		var keys []*rlwe.GaloisKey
		for _, el := range l.GaloisElements() {
			gk, err := set.GetGaloisKey(el)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, gk)
		}
		again, err := l.EncodeKeys(keys)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatal("accepted keys do not re-encode to their bytes")
		}
	})
}
