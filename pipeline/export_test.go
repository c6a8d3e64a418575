package pipeline

import (
	"bytes"
	"context"
	"encoding/hex"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/setup"
)

// statementCircuit has the one public input of every final circuit, the
// statement digest.
type statementCircuit struct {
	Digest frontend.Variable `gnark:",public"`
	Secret frontend.Variable
}

func (c *statementCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.Secret, c.Secret), c.Digest)
	return nil
}

// TestExport writes the contracts of a small circuit's key and checks the
// files: sources, ABIs, creation code equal to the compiled contracts, and
// deployment instructions naming the model id.
func TestExport(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &statementCircuit{})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := setup.LoadOrSetupVK(ccs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "export")
	id := new(big.Int).Lsh(big.NewInt(0xabcdef), 200)
	contracts, err := Export(ctx, keys, id, dir)
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for name, want := range map[string][]byte{
		"Verifier.bin":          contracts.Verifier.Bytecode,
		"InferenceRegistry.bin": contracts.Registry.Bytecode,
	} {
		got, err := hex.DecodeString(strings.TrimSpace(string(read(name))))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not the compiled creation code", name)
		}
	}
	if string(read("Verifier.sol")) != contracts.VerifierSource {
		t.Error("Verifier.sol is not the exported source")
	}
	for _, name := range []string{"Verifier.abi.json", "InferenceRegistry.abi.json"} {
		if !bytes.Contains(read(name), []byte(`"type":"function"`)) {
			t.Errorf("%s has no functions", name)
		}
	}
	if !bytes.Contains(read("deploy.md"), []byte("0x"+id.Text(16))) {
		t.Error("deploy.md does not name the model id")
	}
	for _, bad := range []*big.Int{nil, big.NewInt(-1), new(big.Int).Lsh(big.NewInt(1), 250)} {
		if _, err := Export(ctx, keys, bad, t.TempDir()); err == nil {
			t.Errorf("Export accepts the model id %v", bad)
		}
	}
}

// otherStatementCircuit has the same public inputs as statementCircuit and
// another relation.
type otherStatementCircuit struct {
	ModelID, InputDigest, OutputDigest frontend.Variable `gnark:",public"`
	Secret                             frontend.Variable
}

func (c *otherStatementCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.Secret, c.Secret, c.Secret), api.Add(c.ModelID, c.InputDigest, c.OutputDigest))
	return nil
}

// TestExportRefusesSwappedKey checks that export never deploys a verifying
// key other than the one set up for the circuit: not another circuit's key
// put in the cache under this circuit's name, nor one handed to Export.
func TestExportRefusesSwappedKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	compile := func(c frontend.Circuit) constraint.ConstraintSystem {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
		if err != nil {
			t.Fatal(err)
		}
		return ccs
	}
	ccs, otherCCS := compile(&statementCircuit{}), compile(&otherStatementCircuit{})
	cache := t.TempDir()
	keys, err := setup.LoadOrSetupVK(ccs, cache)
	if err != nil {
		t.Fatal(err)
	}
	other, err := setup.LoadOrSetupVK(otherCCS, cache)
	if err != nil {
		t.Fatal(err)
	}
	id := big.NewInt(1)

	// Handed the other circuit's key with this circuit's manifest.
	swapped := *keys
	swapped.VK = other.VK
	out := filepath.Join(t.TempDir(), "export")
	if _, err := Export(ctx, &swapped, id, out); err == nil {
		t.Fatal("Export accepts another circuit's verifying key")
	} else {
		t.Log(err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a refused export wrote files")
	}

	// The other circuit's key file copied over this circuit's in the cache.
	hash, err := setup.CircuitHash(ccs)
	if err != nil {
		t.Fatal(err)
	}
	otherHash, err := setup.CircuitHash(otherCCS)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(cache, otherHash+".vk"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache, hash+".vk"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.LoadOrSetupVK(ccs, cache); err == nil {
		t.Fatal("the swapped verifying key is loaded for export")
	} else {
		t.Log(err)
	}
}
