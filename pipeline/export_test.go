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
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
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
	_, vk, err := groth16.Setup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "export")
	id := new(big.Int).Lsh(big.NewInt(0xabcdef), 200)
	contracts, err := Export(ctx, vk, id, dir)
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
		if _, err := Export(ctx, vk, bad, t.TempDir()); err == nil {
			t.Errorf("Export accepts the model id %v", bad)
		}
	}
}
