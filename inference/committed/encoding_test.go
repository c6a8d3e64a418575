package committed

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
)

func encodedProofs(t testing.TB) [][]byte {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	var out [][]byte
	for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
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
		if _, err := Verify(testKey(t, s, f.m), f.m, f.st, f.pass, seg, decoded); err != nil {
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
	forgedBoundaries := 0
	for _, data := range encodedProofs(t) {
		for _, n := range []int{0, len(magic), len(magic) + 4, len(data) / 2, len(data) - 1} {
			if _, err := UnmarshalProof(data[:n]); err == nil {
				t.Errorf("a proof cut to %d of %d bytes was decoded", n, len(data))
			}
		}
		if _, err := UnmarshalProof(append(append([]byte(nil), data...), 0)); err == nil {
			t.Error("a proof with a trailing byte was decoded")
		}
		// The last segment's proof has no boundary: a boundary value other
		// than zero is refused.
		p, err := UnmarshalProof(data)
		if err != nil {
			t.Fatal(err)
		}
		if p.Boundary == nil {
			p.BoundaryEval.SetOne()
			forged, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := UnmarshalProof(forged); err == nil {
				t.Error("a boundary value without a boundary commitment was decoded")
			}
			forgedBoundaries++
		}
	}
	if forgedBoundaries == 0 {
		t.Error("no proof without a boundary to forge one in")
	}
}

var writeCorpus = flag.Bool("committed.corpus", false, "write the fuzz seed corpus (testdata/fuzz/FuzzUnmarshalProof) from fresh proofs")

// TestWriteCorpus writes an honest proof of each segment as a seed of
// FuzzUnmarshalProof (go test -run TestWriteCorpus -committed.corpus).
func TestWriteCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -committed.corpus to rewrite the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalProof")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{}
	for k, data := range encodedProofs(t) {
		seeds[fmt.Sprintf("segment%d", k)] = data
	}
	// A turn's proof of the first segment (its cache commitments and
	// proofs).
	m := model.Default()
	pass, st := turnRequest(t, m, m.NewCache(), []int{5, 17, 42}, 3, 8)
	turn := proveTurn(t, testSRS(t, 1<<18), m, m.NewCache(), pass, st, 16, []inference.Segment{{From: 0, To: 1}})
	data, err := turn.proofs[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	seeds["turn0"] = data
	for name, data := range seeds {
		seed := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(seed), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzUnmarshalProof decodes arbitrary bytes; its seeds (testdata) are
// honest proofs of the two segments of the built-in model and of a
// turn's first segment.
func FuzzUnmarshalProof(f *testing.F) {
	f.Add(append([]byte(nil), magic...))
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
