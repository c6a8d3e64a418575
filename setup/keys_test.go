package setup

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	var log bytes.Buffer
	keys, err := LoadOrSetup(ccs, dir, WithLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "DEVELOPMENT KEYS") {
		t.Fatalf("no development warning in the log: %q", log.String())
	}
	if keys.Manifest.Kind != Development {
		t.Fatalf("manifest kind %q after groth16.Setup", keys.Manifest.Kind)
	}
	proveCubic(t, ecc.BN254, ccs, keys.PK, keys.VK)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 3 {
		t.Fatalf("cache holds %d entries (%v), want a .pk, a .vk and a .json", len(entries), err)
	}

	// A second call loads the same keys instead of a new setup, and says
	// which kind they are.
	log.Reset()
	keys2, err := LoadOrSetup(ccs, dir, WithLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vkBytes(t, keys.VK), vkBytes(t, keys2.VK)) {
		t.Fatal("second LoadOrSetup did not load the cached verifying key")
	}
	if !strings.Contains(log.String(), "development keys of circuit") {
		t.Fatalf("the log does not say which keys were used: %q", log.String())
	}
	proveCubic(t, ecc.BN254, ccs, keys2.PK, keys2.VK)

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

	// Ceremony keys only: development keys are refused, and so is a
	// development setup.
	if _, err := LoadOrSetup(ccs, dir, WithKind(Ceremony)); err == nil {
		t.Error("development keys accepted where ceremony keys are required")
	}
	if _, err := LoadOrSetup(other, t.TempDir(), WithKind(Ceremony)); err == nil {
		t.Error("development setup run where ceremony keys are required")
	}
}

// TestKeyDigests changes the cache in the ways a mistake or an attacker
// would and checks that each is refused with an error, never loaded nor
// silently replaced by a new setup.
func TestKeyDigests(t *testing.T) {
	ccs := compileCubic(t, ecc.BN254)
	honest := t.TempDir()
	if _, err := LoadOrSetup(ccs, honest); err != nil {
		t.Fatal(err)
	}
	hp, err := pathsOf(ccs, honest)
	if err != nil {
		t.Fatal(err)
	}
	otherCCS, otherDir, op := otherCache(t)
	// cache copies the honest cache into a fresh directory, applies
	// change to the copy's paths and returns the directory.
	cache := func(change func(p paths)) string {
		dir := t.TempDir()
		for _, path := range []string{hp.pk, hp.vk, hp.manifest} {
			copyFile(t, path, filepath.Join(dir, filepath.Base(path)))
		}
		p, err := pathsOf(ccs, dir)
		if err != nil {
			t.Fatal(err)
		}
		change(p)
		return dir
	}
	flip := func(path string, at func(n int) int) { flipByte(t, path, at) }

	// The honest cache loads, whole or the verifying key alone.
	if _, err := Load(ccs, honest); err != nil {
		t.Fatalf("honest cache refused: %v", err)
	}
	if k, err := LoadOrSetupVK(ccs, honest); err != nil || k.PK != nil {
		t.Fatalf("honest verifying key refused (%v) or proving key decoded", err)
	}

	for _, c := range []struct {
		name   string
		change func(p paths)
	}{
		{"flipped byte in the proving key", func(p paths) { flip(p.pk, middle) }},
		{"flipped last byte of the proving key", func(p paths) { flip(p.pk, last) }},
		{"flipped byte in the verifying key", func(p paths) { flip(p.vk, middle) }},
		{"byte appended to the verifying key", func(p paths) { appendByte(t, p.vk) }},
		{"another circuit's verifying key", func(p paths) { copyFile(t, op.vk, p.vk) }},
		{"another circuit's proving key", func(p paths) { copyFile(t, op.pk, p.pk) }},
		{"another circuit's three files", func(p paths) {
			copyFile(t, op.pk, p.pk)
			copyFile(t, op.vk, p.vk)
			copyFile(t, op.manifest, p.manifest)
		}},
		{"manifest deleted", func(p paths) { os.Remove(p.manifest) }},
		{"proving key deleted", func(p paths) { os.Remove(p.pk) }},
		{"verifying key deleted", func(p paths) { os.Remove(p.vk) }},
		{"manifest not JSON", func(p paths) { os.WriteFile(p.manifest, []byte("{"), 0o644) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := cache(c.change)
			if _, err := LoadOrSetup(ccs, dir); err == nil {
				t.Error("LoadOrSetup accepts it")
			} else {
				t.Log(err)
			}
			if _, err := LoadOrSetupVK(ccs, dir); err == nil {
				t.Error("LoadOrSetupVK accepts it")
			}
		})
	}

	// Keys checked before export: a verifying key of another circuit (or
	// another setup of this one) is refused.
	keys, err := LoadOrSetupVK(ccs, honest)
	if err != nil {
		t.Fatal(err)
	}
	if err := keys.Check(); err != nil {
		t.Fatalf("honest keys refused: %v", err)
	}
	other, err := Load(otherCCS, otherDir)
	if err != nil {
		t.Fatal(err)
	}
	_, vk2, err := groth16.Setup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	for name, vk := range map[string]groth16.VerifyingKey{"another circuit's": other.VK, "another setup's": vk2} {
		swapped := *keys
		swapped.VK = vk
		if err := swapped.Check(); err == nil {
			t.Errorf("%s verifying key passes the check", name)
		}
	}
	swapped := *other
	swapped.CCS = ccs
	if err := swapped.Check(); err == nil {
		t.Error("keys with their manifest pass the check for another circuit")
	}
	whole, err := Load(ccs, honest)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPair(whole.PK, vk2); err == nil {
		t.Error("a proving key pairs with another setup's verifying key")
	}
	if err := CheckPair(whole.PK, other.VK); err == nil {
		t.Error("a proving key pairs with another circuit's verifying key")
	}
	if _, err := Store(ccs, t.TempDir(), whole.PK, vk2, Manifest{Kind: Development}); err == nil {
		t.Error("Store accepts keys of two setups")
	}
}

// square proves knowledge of X with X² = Y.
type square struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *square) Define(api frontend.API) error {
	api.AssertIsEqual(c.Y, api.Mul(c.X, c.X))
	return nil
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendByte(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte{0}); err != nil {
		t.Fatal(err)
	}
}

// otherCache sets up, in a directory of its own, the keys of a circuit
// other than compileCubic's, and returns the circuit, the directory and
// its cache paths.
func otherCache(t *testing.T) (constraint.ConstraintSystem, string, paths) {
	t.Helper()
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &square{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := LoadOrSetup(ccs, dir); err != nil {
		t.Fatal(err)
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	return ccs, dir, p
}

// flipByte flips the low bit of the byte at(len) of the file at path.
func flipByte(t *testing.T, path string, at func(n int) int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[at(len(data))] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func middle(n int) int { return n / 2 }
func last(n int) int   { return n - 1 }

func FuzzParseManifest(f *testing.F) {
	m := Manifest{Format: cacheFormat, Circuit: strings.Repeat("ab", 32), Kind: Development,
		ProvingKey: digestPrefix + strings.Repeat("0", 64), VerifyingKey: digestPrefix + strings.Repeat("1", 64)}
	var b bytes.Buffer
	if _, err := m.writeTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if _, err := m.writeTo(&out); err != nil {
			t.Fatal(err)
		}
		back, err := ParseManifest(out.Bytes())
		if err != nil {
			t.Fatalf("a manifest does not parse after a round trip: %v", err)
		}
		if !reflect.DeepEqual(m, back) {
			t.Fatal("round trip changes the manifest")
		}
	})
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
	keys, err := LoadOrSetupVK(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if keys.PK != nil {
		t.Fatal("LoadOrSetupVK returns a proving key")
	}
	// The setup stored both keys; the proving key pairs with vk.
	whole, err := LoadOrSetup(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	proveCubic(t, ecc.BN254, ccs, whole.PK, keys.VK)
	if !bytes.Equal(vkBytes(t, keys.VK), vkBytes(t, whole.VK)) {
		t.Fatal("LoadOrSetupVK and LoadOrSetup disagree")
	}
	again, err := LoadOrSetupVK(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(vkBytes(t, keys.VK), vkBytes(t, again.VK)) {
		t.Fatal("cached verifying key not loaded")
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

// committed has a Pedersen commitment, like the project's circuits: its
// verifying key has a point per public input and per commitment.
type committed struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *committed) Define(api frontend.API) error {
	api.AssertIsEqual(c.Y, api.Mul(c.X, c.X))
	cmt, err := api.(frontend.Committer).Commit(c.X)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(cmt, 0)
	return nil
}

func TestLoadOrSetupWithCommitment(t *testing.T) {
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377, ecc.BW6_761} {
		ccs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &committed{})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := LoadOrSetup(ccs, dir); err != nil {
			t.Fatalf("%s: %v", curve, err)
		}
		keys, err := Load(ccs, dir)
		if err != nil {
			t.Fatalf("%s: %v", curve, err)
		}
		if err := keys.Check(); err != nil {
			t.Fatalf("%s: %v", curve, err)
		}
	}
}

func FuzzParseCeremonyInfo(f *testing.F) {
	f.Add([]byte(`{"format":"veriformer/ceremony/v1","name":"x","curve":"bn254","power":3}`))
	f.Add([]byte(`{"format":"veriformer/ceremony/v1","name":"x","curve":"bw6_761","power":17,"circuit":{"hash":"ab","constraints":5,"commitments":1,"maxPoints":9}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := ParseCeremonyInfo(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(&info)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseCeremonyInfo(out)
		if err != nil {
			t.Fatalf("ceremony.json does not parse after a round trip: %v", err)
		}
		if !reflect.DeepEqual(info, back) {
			t.Fatal("round trip changes ceremony.json")
		}
	})
}

func TestLoadProvingKey(t *testing.T) {
	dir := t.TempDir()
	ccs := compileCubic(t, ecc.BN254)
	keys, err := LoadOrSetupVK(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := LoadProvingKey(keys, dir)
	if err != nil {
		t.Fatal(err)
	}
	proveCubic(t, ecc.BN254, ccs, pk, keys.VK)

	otherCCS, otherDir, op := otherCache(t)
	other, err := Load(otherCCS, otherDir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pathsOf(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Another circuit's proving key under this one's name: its digest
	// is not the manifest's.
	swapped := t.TempDir()
	copyFile(t, op.pk, filepath.Join(swapped, filepath.Base(p.pk)))
	if _, err := LoadProvingKey(keys, swapped); err == nil {
		t.Fatal("another circuit's proving key accepted")
	}
	// A flipped byte.
	flipped := t.TempDir()
	copyFile(t, p.pk, filepath.Join(flipped, filepath.Base(p.pk)))
	flipByte(t, filepath.Join(flipped, filepath.Base(p.pk)), middle)
	if _, err := LoadProvingKey(keys, flipped); err == nil {
		t.Fatal("changed proving key accepted")
	}
	// The other circuit's manifest with this circuit's verifying key:
	// the key read pairs with another verifying key.
	mixed := &Keys{VK: keys.VK, Manifest: other.Manifest}
	if _, err := LoadProvingKey(mixed, otherDir); err == nil {
		t.Fatal("proving key of another verifying key accepted")
	}
	// A manifest naming a path rather than a circuit hash: refused when
	// parsed, and by LoadProvingKey when the keys are built by hand.
	var text bytes.Buffer
	named := *keys.Manifest
	named.Circuit = "../" + named.Circuit[3:]
	if _, err := named.writeTo(&text); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseManifest(text.Bytes()); err == nil {
		t.Fatal("a manifest naming a path parsed")
	}
	bad := *keys.Manifest
	bad.Circuit = "../" + bad.Circuit[3:]
	if _, err := LoadProvingKey(&Keys{VK: keys.VK, Manifest: &bad}, dir); err == nil {
		t.Fatal("a manifest's circuit name outside the hash format accepted")
	}
	if _, err := LoadProvingKey(&Keys{Manifest: keys.Manifest}, dir); err == nil {
		t.Fatal("keys without a verifying key accepted")
	}
}
