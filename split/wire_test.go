package split

import (
	"bytes"
	"testing"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"

	"github.com/veriformer/veriformer/model"
)

// fuzzLayout returns the built-in model's layout and a fresh encryption of
// zero at level.
func fuzzLayout(t testing.TB, level int) (*Layout, *rlwe.Ciphertext, *rlwe.SecretKey) {
	l, err := NewLayout(llamaConfig())
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

// TestEncodeSmall: the diagonal encoder gives the plaintexts of lattigo's
// encoder (modulo each prime).
func TestEncodeSmall(t *testing.T) {
	for _, c := range []*model.Config{llamaConfig(), tinyLlamaLayerConfig()} {
		l, err := NewLayout(c)
		if err != nil {
			t.Fatal(err)
		}
		enc := ckks.NewEncoder(l.Params)
		v := make([]float64, l.Slots)
		for i := range v {
			v[i] = float64((i*37)%255 - 127)
		}
		want := ckks.NewPlaintext(l.Params, inLevel)
		want.LogDimensions = l.dims()
		want.Scale = rlwe.NewScale(l.Params.Q()[inLevel])
		got := ckks.NewPlaintext(l.Params, inLevel)
		got.LogDimensions = want.LogDimensions
		got.Scale = want.Scale
		if err := enc.Encode(v, want); err != nil {
			t.Fatal(err)
		}
		if err := l.encodeSmall(enc, make([]complex128, l.Slots), v, got); err != nil {
			t.Fatal(err)
		}
		for j, q := range l.Params.Q()[:inLevel+1] {
			for i := range got.Value.Coeffs[j] {
				if got.Value.Coeffs[j][i]%q != want.Value.Coeffs[j][i]%q {
					t.Fatalf("slots %d: limb %d coefficient %d: %d, lattigo %d", l.Slots, j, i, got.Value.Coeffs[j][i], want.Value.Coeffs[j][i])
				}
			}
		}
	}
}
