package pcs

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

func TestGroupProofRoundTrip(t *testing.T) {
	f := newGroupFixture(t, newTestRand(t))
	data, err := f.proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// 5 rounds of 2 scalars, 4 folds + 1 quotient, 5·3 evaluations.
	if want := 8 + 10*scalarSize + 4 + 5*pointSize + 15*scalarSize; len(data) != want {
		t.Fatalf("encoding of %d bytes, want %d", len(data), want)
	}
	var p GroupProof
	if err := p.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	g := f.clone()
	g.proof = &p
	if err := g.verify(t); err != nil {
		t.Fatalf("decoded proof rejected: %v", err)
	}
	again, err := p.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Fatal("re-encoding differs")
	}
	for cut := range len(data) {
		if err := p.UnmarshalBinary(data[:cut]); err == nil {
			t.Fatalf("decoded a proof cut to %d of %d bytes", cut, len(data))
		}
	}
	if err := p.UnmarshalBinary(append(data, 0)); err == nil {
		t.Fatal("decoded a proof with a trailing byte")
	}
}

func TestProofRoundTrip(t *testing.T) {
	f := newGroupFixture(t, newTestRand(t))
	data, err := f.proof.Opening.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var p Proof
	if err := p.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	again, _ := p.MarshalBinary()
	if !bytes.Equal(again, data) {
		t.Fatal("re-encoding differs")
	}
}

// FuzzGroupProofUnmarshal checks that decoding arbitrary bytes never
// panics and that whatever decodes re-encodes to the same bytes.
func FuzzGroupProofUnmarshal(f *testing.F) {
	fx := newGroupFixture(f, rand.New(rand.NewPCG(1, 2)))
	data, err := fx.proof.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	huge := bytes.Clone(data)
	binary.BigEndian.PutUint32(huge, 1<<31)
	f.Add(huge)
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		var p GroupProof
		if err := p.UnmarshalBinary(in); err != nil {
			return
		}
		out, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("decoded proof does not encode: %v", err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("decode/encode is not the identity")
		}
	})
}

// FuzzProofUnmarshal is FuzzGroupProofUnmarshal for a single opening.
func FuzzProofUnmarshal(f *testing.F) {
	fx := newGroupFixture(f, rand.New(rand.NewPCG(3, 4)))
	data, err := fx.proof.Opening.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		var p Proof
		if err := p.UnmarshalBinary(in); err != nil {
			return
		}
		out, _ := p.MarshalBinary()
		if !bytes.Equal(out, in) {
			t.Fatalf("decode/encode is not the identity")
		}
	})
}
