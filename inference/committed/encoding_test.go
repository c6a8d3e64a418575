package committed

import (
	"bytes"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
)

func encodedProofs(t testing.TB) [][]byte {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	var out [][]byte
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		proof, _, err := Prove(s, f.m, f.st, f.tr, seg)
		if err != nil {
			t.Fatal(err)
		}
		data, err := proof.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		decoded, err := UnmarshalProof(data)
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		if _, err := Verify(s.VerifyingKey(), f.m, f.st, f.rows, seg, decoded); err != nil {
			t.Fatalf("segment %v: the decoded proof is rejected: %v", seg, err)
		}
		again, err := decoded.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("segment %v: the encoding does not round-trip", seg)
		}
		if len(data) < proof.Size() {
			t.Fatalf("segment %v: encoding of %d bytes, Size says %d", seg, len(data), proof.Size())
		}
		out = append(out, data)
	}
	return out
}

func TestEncoding(t *testing.T) {
	for _, data := range encodedProofs(t) {
		for _, n := range []int{0, len(magic), len(magic) + 4, len(data) / 2, len(data) - 1} {
			if _, err := UnmarshalProof(data[:n]); err == nil {
				t.Errorf("a proof cut to %d of %d bytes was decoded", n, len(data))
			}
		}
		if _, err := UnmarshalProof(append(append([]byte(nil), data...), 0)); err == nil {
			t.Error("a proof with a trailing byte was decoded")
		}
	}
}

func FuzzUnmarshalProof(f *testing.F) {
	for _, data := range encodedProofs(f) {
		f.Add(data)
		f.Add(data[:len(data)/3])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := UnmarshalProof(data)
		if err != nil {
			return
		}
		again, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := UnmarshalProof(again); err != nil {
			t.Fatalf("a re-encoded proof does not decode: %v", err)
		}
	})
}
