package pcs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16/bls12-377/mpcsetup"

	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// TestLoadCeremony runs gnark's BLS12-377 phase 1 with two contributions,
// writes its SrsCommons as gnark does, and opens an MLE with the SRS read
// from that file (then from the cache).
func TestLoadCeremony(t *testing.T) {
	const n = 16 // ceremony domain: 2n−1 = 31 G1 powers
	p1 := mpcsetup.NewPhase1(n)
	p1.Contribute()
	var buf bytes.Buffer
	if _, err := p1.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	p2 := new(mpcsetup.Phase1)
	if _, err := p2.ReadFrom(&buf); err != nil {
		t.Fatal(err)
	}
	p2.Contribute()
	commons, err := mpcsetup.VerifyPhase1(n, []byte("beacon"), p1, p2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "phase1.srs")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commons.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	if _, err := pcs.LoadCeremony(path, 2*n, ""); err == nil {
		t.Fatal("loaded more powers than the ceremony has")
	}
	cache := filepath.Join(dir, "cache")
	srs, err := pcs.LoadCeremony(path, 16, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !srs.Pk.G1[1].Equal(&commons.G1.Tau[1]) || !srs.Pk.G1[15].Equal(&commons.G1.Tau[15]) || !srs.Vk.G2[1].Equal(&commons.G2.Tau[1]) ||
		!srs.Vk.G2[2].Equal(&commons.G2.Tau[2]) || !srs.Vk.G2[3].Equal(&commons.G2.Tau[3]) {
		t.Fatal("the SRS does not hold the ceremony's powers")
	}
	cached, err := pcs.LoadCeremony(path, 16, cache)
	if err != nil {
		t.Fatal(err)
	}
	if cached.Hash() != srs.Hash() {
		t.Fatal("the cached SRS differs")
	}

	table := make([]fr.Element, 16)
	for i := range table {
		table[i].SetUint64(uint64(i * i))
	}
	point := make([]fr.Element, 4)
	for i := range point {
		point[i].SetUint64(uint64(7 + i))
	}
	c, err := pcs.Commit(cached, table)
	if err != nil {
		t.Fatal(err)
	}
	claims := []pcs.Claim{{Point: point, Value: poly.Evaluate[fr.Element](table, point)}}
	proof, err := pcs.OpenGroupParts(transcript.New[fr.Element]("ceremony-test"), cached, [][]fr.Element{table}, claims, pcs.MaxNbVars)
	if err != nil {
		t.Fatal(err)
	}
	check, err := pcs.VerifyGroupFieldParts(transcript.New[fr.Element]("ceremony-test"), 1, claims, proof, pcs.MaxNbVars)
	if err != nil {
		t.Fatal(err)
	}
	if err := pcs.VerifyGroup(cached.VerifyingKey(), []pcs.Commitment{c}, &proof.Opening, check); err != nil {
		t.Fatal(err)
	}

	// A corrupted ceremony file is refused.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[8+96+48*3+10] ^= 1 // inside [τ⁴]₁
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pcs.LoadCeremony(path, 16, cache); err == nil {
		t.Fatal("loaded a corrupted ceremony file")
	}
}

// FuzzReadCeremony: ReadCeremony never panics on arbitrary bytes (a
// ceremony file comes from outside), and what it accepts holds the
// requested number of G1 powers. Seeded with a real SrsCommons of domain
// 4, the smallest the verifier's [τ³]₂ allows, and with its cuts.
func FuzzReadCeremony(f *testing.F) {
	p1 := mpcsetup.NewPhase1(4)
	p1.Contribute()
	commons, err := mpcsetup.VerifyPhase1(4, []byte("beacon"), p1)
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := commons.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	data := buf.Bytes()
	for _, cut := range []int{len(data), len(data) / 2, 200, 8, 0} {
		f.Add(data[:cut], uint8(4))
	}
	f.Add(data, uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		s, err := pcs.ReadCeremony(bytes.NewReader(data), int64(len(data)), int(size))
		if err == nil && s.Size() != int(size) {
			t.Fatalf("%d powers read, %d requested", s.Size(), size)
		}
	})
}
