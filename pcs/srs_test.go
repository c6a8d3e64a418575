package pcs

import (
	"bytes"
	"errors"
	"log"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/kzg"

	"github.com/veriformer/veriformer/field"
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
	if got.Hash() != hash || got.Size() != s.Size() || got.Vk.G2 != s.Vk.G2 || got.Vk.Lines != s.Vk.Lines {
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
	bad := &SRS{Pk: s.Pk, Vk: s.Vk}
	bad.Pk.G1 = append([]bls12377.G1Affine(nil), s.Pk.G1...)
	bad.Pk.G1[5], bad.Pk.G1[6] = bad.Pk.G1[6], bad.Pk.G1[5]
	if err := bad.Check(); err == nil {
		t.Fatal("swapped powers pass the check")
	}
}

// TestSRSCheckRefusesWrongG2Powers: [τ²]₂ and [τ³]₂ swapped, or either
// replaced by another power, fail the check.
func TestSRSCheckRefusesWrongG2Powers(t *testing.T) {
	s := srsForTest(t)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	for name, g2 := range map[string][4]bls12377.G2Affine{
		"swapped":       {s.Vk.G2[0], s.Vk.G2[1], s.Vk.G2[3], s.Vk.G2[2]},
		"[τ²]₂ = [τ]₂":  {s.Vk.G2[0], s.Vk.G2[1], s.Vk.G2[1], s.Vk.G2[3]},
		"[τ³]₂ = [τ²]₂": {s.Vk.G2[0], s.Vk.G2[1], s.Vk.G2[2], s.Vk.G2[2]},
	} {
		bad := newSRS(s.Pk.G1, [3]bls12377.G2Affine{g2[1], g2[2], g2[3]})
		if err := bad.Check(); err == nil {
			t.Errorf("%s: the check passes", name)
		}
	}
}

// TestSRSCheckRefusesWrongG1Key: the verifying key's [τ]₁ or [τ²]₁ not
// the prover's power fails the check.
func TestSRSCheckRefusesWrongG1Key(t *testing.T) {
	s := srsForTest(t)
	for k := 1; k < len(s.Vk.G1); k++ {
		bad := *s
		bad.Vk.G1[k] = s.Pk.G1[k+1]
		if err := bad.Check(); err == nil {
			t.Errorf("[τ^%d]₁ replaced: the check passes", k)
		}
	}
}

// TestOldCacheRebuilt: a development SRS cached in the earlier format
// (v1 header) is reported as such by ReadCache and drawn again by
// LoadOrCreateDevelopment; any other unknown header is an error.
func TestOldCacheRebuilt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dev-16.srs")
	if err := os.WriteFile(path, []byte(srsOldPrefix+"/development\nrest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCache(path, nil, nil); !errors.Is(err, ErrOldCache) {
		t.Fatalf("got %v, want ErrOldCache", err)
	}
	var out bytes.Buffer
	s, err := LoadOrCreateDevelopment(dir, 16, log.New(&out, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCache(path, nil, log.New(&out, "", 0)); err != nil {
		t.Fatalf("the rebuilt cache: %v", err)
	}
	if err := os.WriteFile(path, []byte("veriformer/pcs/srs/v9\nrest"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateDevelopment(dir, 16, log.New(&out, "", 0)); err == nil || errors.Is(err, ErrOldCache) {
		t.Fatalf("unknown header: got %v", err)
	}
}

// TestG1Powers checks the comb against gnark-crypto's kzg.NewSRS (a
// scalar multiplication per power) for τ = 1, 2, p − 2 and a random τ,
// over sizes that end inside and past a batch and a goroutine's range,
// and that τ = 0 is refused.
func TestG1Powers(t *testing.T) {
	rng := newTestRand(t)
	random := field.Random[fr.Element](rng)
	var big1, big2, pm2, br big.Int
	big1.SetInt64(1)
	big2.SetInt64(2)
	pm2.Sub(fr.Modulus(), &big2)
	random.BigInt(&br)
	for _, tau := range []*big.Int{&big1, &big2, &pm2, &br} {
		for _, n := range []int{1, 2, 3, powerBatch + 1, 3*powerBatch + 17} {
			var e fr.Element
			e.SetBigInt(tau)
			got, err := g1Powers(n, &e)
			if err != nil {
				t.Fatal(err)
			}
			want, err := kzg.NewSRS(uint64(max(n, 2)), tau)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if !got[i].Equal(&want.Pk.G1[i]) {
					t.Fatalf("τ = %s, %d powers: [τ^%d]₁ differs from kzg.NewSRS", tau, n, i)
				}
			}
		}
	}
	var zero fr.Element
	if _, err := g1Powers(4, &zero); err == nil {
		t.Fatal("τ = 0 accepted")
	}
	if _, err := NewSRSOfTau(MinSize, new(big.Int).Set(fr.Modulus())); err == nil {
		t.Fatal("τ = p accepted")
	}
}
