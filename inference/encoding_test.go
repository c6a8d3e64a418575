package inference

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
)

func TestEncodingRoundTrip(t *testing.T) {
	prompt := []int{'a', 'b'}
	m, st, req, proof := proveDefault[bn254fr.Element](t, prompt, 2, 0)
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("proof: %d bytes", len(data))
	back, err := UnmarshalProof[bn254fr.Element](data)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify[bn254fr.Element](m, st, req, back); err != nil {
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
	_, _, _, proof := proveDefault[bn254fr.Element](f, []int{'x'}, 1, 0)
	data, err := proof.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(FormatVersion))
	// Counts larger than the bytes can fill: empty tensors, absent layers.
	f.Add(append(binary.AppendUvarint(header(), 64), make([]byte, 64)...))
	f.Add(append(binary.AppendUvarint(append(header(), 0), 64), make([]byte, 64)...))
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

// header returns the encoding's header for BN254.
func header() []byte {
	var buf bytes.Buffer
	writeString(&buf, FormatVersion)
	writeString(&buf, field.Name[bn254fr.Element]())
	return buf.Bytes()
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestUnmarshalBoundedMemory decodes crafted proofs that claim as many
// items as their bytes allow (empty tensors, absent layers, one-byte
// integers) and checks that the decoder allocates at most AllocationRatio
// bytes per input byte, plus a fixed allowance, where a count bounded by
// the remaining bytes alone allowed 24 to 48 bytes per byte.
func TestUnmarshalBoundedMemory(t *testing.T) {
	const size = 4 << 20
	crafted := map[string][]byte{}
	// Tensors: size empty slices (one byte each, 24 in memory).
	b := binary.AppendUvarint(header(), size)
	crafted["empty tensors"] = append(b, make([]byte, size)...)
	// Layers: no tensors, then size/6 layers of six absent proofs
	// (six bytes each, 48 in memory), then an absent LM head.
	b = binary.AppendUvarint(append(header(), 0), size/6)
	b = append(b, make([]byte, size/6*6)...)
	crafted["absent layers"] = append(b, 0)
	// As many layers claimed as there are bytes: 48 bytes each in
	// memory if the count were bounded by the bytes alone.
	b = binary.AppendUvarint(append(header(), 0), size)
	crafted["overclaimed layers"] = append(b, make([]byte, size)...)
	// One tensor of size one-byte integers (8 bytes each in memory).
	b = binary.AppendUvarint(append(header(), 1), size)
	b = append(b, make([]byte, size)...)
	crafted["small integers"] = append(b, 0, 0)
	// A length far beyond the input.
	crafted["huge count"] = binary.AppendUvarint(header(), 1<<40)
	for name, data := range crafted {
		var err error
		got := allocated(func() { _, err = UnmarshalProof[bn254fr.Element](data) })
		limit := uint64(AllocationRatio*len(data) + AllocationSlack + 1<<20)
		t.Logf("%s: %d bytes in, %d allocated (%.1f per byte), err %v", name, len(data), got, float64(got)/float64(len(data)), err)
		if got > limit {
			t.Errorf("%s: %d bytes allocated for %d input bytes, want at most %d", name, got, len(data), limit)
		}
	}
	// An honest proof decodes within the bound, with few allocations
	// per field element.
	_, _, _, proof := proveDefault[bn254fr.Element](t, []int{'a', 'b'}, 2, 0)
	data, err := proof.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got := allocated(func() { _, err = UnmarshalProof[bn254fr.Element](data) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("honest proof: %d bytes in, %d allocated (%.1f per byte)", len(data), got, float64(got)/float64(len(data)))
	if got > uint64(AllocationRatio*len(data)+AllocationSlack) {
		t.Errorf("honest proof: %d bytes allocated for %d input bytes", got, len(data))
	}
	allocs := testing.AllocsPerRun(3, func() { _, _ = UnmarshalProof[bn254fr.Element](data) })
	t.Logf("honest proof: %.0f allocations", allocs)
	if elements := len(data) / 32; allocs > float64(elements) {
		t.Errorf("%.0f allocations for a proof of at most %d field elements", allocs, elements)
	}
}
