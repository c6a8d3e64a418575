package committed

import (
	"bytes"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
)

// testState is a state of 2 blocks, 5 rows of 16, with points of the
// generator's multiples.
func testState() *State {
	_, _, g, _ := bls12377.Generators()
	s := EmptyState(2, 16)
	s.Rows = 5
	for i := range s.Keys {
		s.Keys[i].Double(&g)
		s.Values[i] = g
		for range i {
			s.Keys[i].Add(&s.Keys[i], &g)
		}
	}
	return s
}

// TestStateEncoding: a state and the empty state round-trip, digest
// included; truncated data, trailing bytes, another magic, more rows
// than the capacity, an empty state holding a point and a point not in
// G1 are refused.
func TestStateEncoding(t *testing.T) {
	for _, s := range []*State{testState(), EmptyState(3, 8)} {
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalState(data)
		if err != nil {
			t.Fatal(err)
		}
		if !sameState(s, back) || back.Digest().Cmp(s.Digest()) != 0 {
			t.Fatalf("a state of %d rows does not round-trip", s.Rows)
		}
		for _, bad := range [][]byte{data[:len(data)-1], append(bytes.Clone(data), 0), append([]byte("veriformer/stat!"), data[len(stateMagic):]...)} {
			if _, err := UnmarshalState(bad); err == nil {
				t.Errorf("a state of %d rows: a corrupt encoding accepted", s.Rows)
			}
		}
	}
	over := testState()
	over.Rows = 17
	empty := testState()
	empty.Rows = 0
	for name, s := range map[string]*State{"more rows than the capacity": over, "an empty state holding points": empty} {
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := UnmarshalState(data); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	data, err := testState().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// The first point's x coordinate changed: off the curve or outside
	// G1 (or not canonical).
	data[len(stateMagic)+12+47] ^= 1
	if _, err := UnmarshalState(data); err == nil {
		t.Error("a changed point accepted")
	}
}

// FuzzUnmarshalState decodes arbitrary bytes: never a panic, and a
// decoded state encodes to the same bytes.
func FuzzUnmarshalState(f *testing.F) {
	for _, s := range []*State{testState(), EmptyState(2, 16)} {
		data, err := s.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := UnmarshalState(data)
		if err != nil {
			return
		}
		again, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, data) {
			t.Fatal("a decoded state encodes to other bytes")
		}
	})
}
