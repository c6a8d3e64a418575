package inference

import (
	"bytes"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

func TestEncodingRoundTrip(t *testing.T) {
	prompt := []int{'a', 'b'}
	m, st, output, proof := proveDefault[bn254fr.Element](t, prompt, 2)
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("proof: %d bytes", len(data))
	back, err := UnmarshalProof[bn254fr.Element](data)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify[bn254fr.Element](m, st, prompt, output, back); err != nil {
		t.Fatalf("decoded proof rejected: %v", err)
	}
	again, err := back.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatal("re-encoding differs")
	}
	// Another field, truncation, trailing bytes and a non-canonical
	// element are refused.
	if _, err := UnmarshalProof[bls12377fr.Element](data); err == nil {
		t.Fatal("a BN254 proof decoded as BLS12-377")
	}
	for _, bad := range [][]byte{data[:len(data)-1], append(append([]byte(nil), data...), 0), data[:10], nil} {
		if _, err := UnmarshalProof[bn254fr.Element](bad); err == nil {
			t.Fatalf("malformed proof of %d bytes decoded", len(bad))
		}
	}
}

func FuzzUnmarshalProof(f *testing.F) {
	_, _, _, proof := proveDefault[bn254fr.Element](f, []int{'x'}, 1)
	data, err := proof.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(FormatVersion))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := UnmarshalProof[bn254fr.Element](data)
		if err != nil {
			return
		}
		again, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Fatal("decode then encode changed the bytes")
		}
	})
}
