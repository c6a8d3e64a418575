package setup

import (
	"os"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
)

// Development keys of a BN254 circuit with a commitment have the
// commitment key on [γ]₂, as a ceremony's do; proofs made with them are
// accepted, and a changed commitment or proof of knowledge is not.
func TestDevelopmentCommitmentKeyOnGamma(t *testing.T) {
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &committed{})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := LoadOrSetup(ccs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vk := keys.VK.(*groth16bn254.VerifyingKey)
	if len(vk.CommitmentKeys) != 1 || !vk.CommitmentKeys[0].G.Equal(&vk.G2.Gamma) {
		t.Fatal("the commitment key's G2 point is not [γ]₂")
	}
	full, err := frontend.NewWitness(&committed{X: 3, Y: 9}, ecc.BN254.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	public, err := full.Public()
	if err != nil {
		t.Fatal(err)
	}
	proof, err := groth16.Prove(ccs, keys.PK, full)
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(proof, keys.VK, public); err != nil {
		t.Fatalf("honest proof refused: %v", err)
	}
	p := proof.(*groth16bn254.Proof)
	pok := p.CommitmentPok
	p.CommitmentPok.Add(&pok, &pok)
	if groth16.Verify(p, keys.VK, public) == nil {
		t.Fatal("a changed proof of knowledge was accepted")
	}
	p.CommitmentPok = pok
	cmt := p.Commitments[0]
	p.Commitments[0].Add(&cmt, &cmt)
	if groth16.Verify(p, keys.VK, public) == nil {
		t.Fatal("a changed commitment was accepted")
	}
}

// Cached finds a circuit's keys by their manifest, reports none for an
// empty cache, and refuses a cache that lost a key file.
func TestCached(t *testing.T) {
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &committed{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if m, err := Cached(ccs, dir); err != nil || m != nil {
		t.Fatalf("empty cache: %v, %v", m, err)
	}
	if _, err := LoadOrSetup(ccs, dir); err != nil {
		t.Fatal(err)
	}
	m, err := Cached(ccs, dir)
	if err != nil || m == nil || m.Kind != Development {
		t.Fatalf("cached keys: %+v, %v", m, err)
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p.vk); err != nil {
		t.Fatal(err)
	}
	if _, err := Cached(ccs, dir); err == nil {
		t.Fatal("a cache without the verifying key was accepted")
	}
}
