package recursion

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
)

// cubic proves knowledge of X with X³ + X + 5 = Y.
type cubic struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *cubic) Define(api frontend.API) error {
	api.AssertIsEqual(c.Y, api.Add(api.Mul(c.X, c.X, c.X), c.X, 5))
	return nil
}

func compileCubic(t testing.TB, curve ecc.ID) constraint.ConstraintSystem {
	t.Helper()
	ccs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &cubic{})
	if err != nil {
		t.Fatal(err)
	}
	return ccs
}

// proveCubic proves and verifies X = 3, Y = 35 with the given keys.
func proveCubic(t *testing.T, curve ecc.ID, ccs constraint.ConstraintSystem, pk groth16.ProvingKey, vk groth16.VerifyingKey) {
	t.Helper()
	w, err := frontend.NewWitness(&cubic{X: 3, Y: 35}, curve.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	proof, err := groth16.Prove(ccs, pk, w)
	if err != nil {
		t.Fatal(err)
	}
	public, err := w.Public()
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(proof, vk, public); err != nil {
		t.Fatal(err)
	}
	bad, err := frontend.NewWitness(&cubic{Y: 36}, curve.ScalarField(), frontend.PublicOnly())
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(proof, vk, bad); err == nil {
		t.Fatal("proof verifies for another public input")
	}
}

func TestLoadOrSetup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	ccs := compileCubic(t, ecc.BN254)
	pk, vk, err := LoadOrSetup(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	proveCubic(t, ecc.BN254, ccs, pk, vk)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 {
		t.Fatalf("cache holds %d entries (%v), want a .pk and a .vk", len(entries), err)
	}

	// A second call loads the same keys instead of a new setup.
	pk2, vk2, err := LoadOrSetup(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vkBytes(t, vk), vkBytes(t, vk2)) {
		t.Fatal("second LoadOrSetup did not load the cached verifying key")
	}
	proveCubic(t, ecc.BN254, ccs, pk2, vk2)

	// Another circuit has another hash.
	other := compileCubic(t, ecc.BW6_761)
	h1, err := CircuitHash(ccs)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := CircuitHash(other)
	if err != nil {
		t.Fatal(err)
	}
	if h1 == h2 {
		t.Fatal("two circuits share a hash")
	}

	// A corrupted cache is an error, not a silent new setup.
	pkPath, _, err := keyPaths(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkPath, []byte("not a key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrSetup(ccs, dir); err == nil {
		t.Fatal("corrupted cached key accepted")
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(CacheDirEnv, "")
	dir, err := DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(dir))
	if filepath.Base(dir) != "keys" || filepath.Base(filepath.Dir(dir)) != ".cache" {
		t.Fatalf("default cache dir %s is not <root>/.cache/keys", dir)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("default cache dir %s is not under the module root: %v", dir, err)
	}
	t.Setenv(CacheDirEnv, "/some/where")
	if dir, err := DefaultCacheDir(); err != nil || dir != "/some/where" {
		t.Fatalf("%s ignored: %s, %v", CacheDirEnv, dir, err)
	}
}

func TestLoadOrSetupVK(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	ccs := compileCubic(t, ecc.BN254)
	vk, err := LoadOrSetupVK(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	// The setup stored both keys; the proving key pairs with vk.
	pk, vk2, err := LoadOrSetup(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	proveCubic(t, ecc.BN254, ccs, pk, vk)
	if !bytes.Equal(vkBytes(t, vk), vkBytes(t, vk2)) {
		t.Fatal("LoadOrSetupVK and LoadOrSetup disagree")
	}

	// With both keys cached the proving key is not read at all.
	pkPath, vkPath, err := keyPaths(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkPath, []byte("not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	vk3, err := LoadOrSetupVK(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vkBytes(t, vk), vkBytes(t, vk3)) {
		t.Fatal("cached verifying key not loaded")
	}

	// A corrupted verifying key is an error, not a silent new setup.
	if err := os.WriteFile(vkPath, []byte("not a key"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrSetupVK(ccs, dir); err == nil {
		t.Fatal("corrupted cached verifying key accepted")
	}
}

// vkBytes is the encoding of a verifying key, to compare keys.
func vkBytes(t *testing.T, vk groth16.VerifyingKey) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := vk.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
