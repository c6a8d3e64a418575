package pcs

import (
	"bytes"
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
)

func TestSRSCache(t *testing.T) {
	s := srsForTest(t)
	path := filepath.Join(t.TempDir(), "srs")
	if err := s.WriteCache(path, false); err != nil {
		t.Fatal(err)
	}
	hash := s.Hash()
	got, err := ReadCache(path, &hash, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Hash() != hash || got.Size() != s.Size() || !got.Vk.G2[1].Equal(&s.Vk.G2[1]) || got.Vk.Lines != s.Vk.Lines {
		t.Fatal("cached SRS differs")
	}

	// Another expected hash is refused.
	other := hash
	other[0] ^= 1
	if _, err := ReadCache(path, &other, nil); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("expected hash %x: got %v, want a hash mismatch", other, err)
	}

	// A changed point is refused: the recorded hash no longer matches.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Swap two G1 powers: every point stays valid, the hash changes.
	off := len(srsMagic) + 32 + 8
	const g = bls12377.SizeOfG1AffineUncompressed
	swapped := bytes.Clone(data)
	copy(swapped[off+g:off+2*g], data[off+2*g:off+3*g])
	copy(swapped[off+2*g:off+3*g], data[off+g:off+2*g])
	if err := os.WriteFile(path, swapped, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCache(path, nil, nil); !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("swapped powers: got %v, want a hash mismatch", err)
	}

	// Truncated and malformed files are refused without a panic.
	for _, cut := range []int{0, 10, len(srsMagic) + 20, off + 4, len(data) - 1} {
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCache(path, nil, nil); err == nil {
			t.Fatalf("decoded a cache cut to %d bytes", cut)
		}
	}
}

func TestLoadOrCreateDevelopment(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	logger := log.New(&out, "", 0)
	a, err := LoadOrCreateDevelopment(dir, 16, logger)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "DEVELOPMENT ONLY") {
		t.Fatalf("no warning on creation: %q", out.String())
	}
	out.Reset()
	b, err := LoadOrCreateDevelopment(dir, 16, logger)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() {
		t.Fatal("the cached development SRS differs from the one created")
	}
	if !strings.Contains(out.String(), "DEVELOPMENT ONLY") {
		t.Fatalf("no warning on load: %q", out.String())
	}
}

func TestSRSCheckRefusesWrongPowers(t *testing.T) {
	s := srsForTest(t)
	bad := &SRS{SRS: s.SRS}
	bad.Pk.G1 = append([]bls12377.G1Affine(nil), s.Pk.G1...)
	bad.Pk.G1[5], bad.Pk.G1[6] = bad.Pk.G1[6], bad.Pk.G1[5]
	if err := bad.Check(); err == nil {
		t.Fatal("swapped powers pass the check")
	}
}
