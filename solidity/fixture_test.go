package solidity

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/rangecheck"
)

var (
	updateGolden = flag.Bool("update", false, "rewrite the exported Solidity golden files in testdata from the stored keys")
	updateKeys   = flag.Bool("update-keys", false, "run a new Groth16 setup for the test circuits and rewrite the keys in testdata")
)

// statementCircuit has the public inputs of every final proof, in order, and
// ties them to two private values: outputDigest = modelId·a + inputDigest·b.
// With rangeCheck set, a and b are also range checked to 64 bits through
// gnark's commitment-based range checker, so the Groth16 proof carries a
// Pedersen commitment, as the real circuits' proofs do.
type statementCircuit struct {
	ModelID      frontend.Variable `gnark:",public"`
	InputDigest  frontend.Variable `gnark:",public"`
	OutputDigest frontend.Variable `gnark:",public"`
	A, B         frontend.Variable

	rangeCheck bool
}

func (c *statementCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(api.Mul(c.ModelID, c.A), api.Mul(c.InputDigest, c.B)), c.OutputDigest)
	if c.rangeCheck {
		checker := rangecheck.New(api)
		checker.Check(c.A, 64)
		checker.Check(c.B, 64)
	}
	return nil
}

// variant is one test circuit with its stored keys and an honest proof.
type variant struct {
	name       string
	rangeCheck bool

	ccs       constraint.ConstraintSystem
	pk        groth16.ProvingKey
	vk        groth16.VerifyingKey
	proof     groth16.Proof
	statement Statement
	contracts *Contracts
}

func (v *variant) keyPath(kind string) string {
	return filepath.Join("testdata", v.name+"."+kind)
}

func (v *variant) goldenPath() string {
	return filepath.Join("testdata", v.name+"_verifier.sol.golden")
}

// fixture is shared by the tests of the package: the two variants compiled,
// keyed, proven and their contracts compiled once.
type fixture struct {
	plain, commitment *variant
}

func (f *fixture) variants() []*variant { return []*variant{f.plain, f.commitment} }

var (
	fixtureOnce  sync.Once
	fixtureValue *fixture
	fixtureErr   error
)

func loadFixture(t testing.TB) *fixture {
	t.Helper()
	fixtureOnce.Do(func() { fixtureValue, fixtureErr = buildFixture() })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureValue
}

func buildFixture() (*fixture, error) {
	f := &fixture{
		plain:      &variant{name: "plain"},
		commitment: &variant{name: "commitment", rangeCheck: true},
	}
	sources := map[string]string{RegistryFile: RegistrySource}
	for _, v := range f.variants() {
		if err := v.setUp(); err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		var source bytes.Buffer
		if err := ExportVerifier(v.vk, &source); err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
		sources[v.name+"_"+VerifierFile] = source.String()
	}
	// One solcjs run for all contracts: loading the compiler dominates.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	artifacts, err := Compile(ctx, sources)
	if err != nil {
		return nil, err
	}
	for _, v := range f.variants() {
		file := v.name + "_" + VerifierFile
		if v.contracts, err = ContractsFrom(artifacts, file, sources[file]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// setUp compiles the circuit, loads (or, with -update-keys, makes) the keys
// and proves a fixed statement.
func (v *variant) setUp() error {
	var err error
	v.ccs, err = frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &statementCircuit{rangeCheck: v.rangeCheck})
	if err != nil {
		return fmt.Errorf("compile circuit: %w", err)
	}
	if *updateKeys {
		if v.pk, v.vk, err = groth16.Setup(v.ccs); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		if err := writeKey(v.keyPath("pk"), v.pk); err != nil {
			return err
		}
		if err := writeKey(v.keyPath("vk"), v.vk); err != nil {
			return err
		}
	} else {
		v.pk, v.vk = groth16.NewProvingKey(ecc.BN254), groth16.NewVerifyingKey(ecc.BN254)
		if err := readKey(v.keyPath("pk"), v.pk); err != nil {
			return err
		}
		if err := readKey(v.keyPath("vk"), v.vk); err != nil {
			return err
		}
	}
	// A 250-bit model id, like the hash of verifying keys the real one is.
	modelID := new(big.Int).Lsh(big.NewInt(0x5eed), 234)
	modelID.Add(modelID, big.NewInt(12345))
	inputDigest, _ := new(big.Int).SetString("1234567890123456789012345678901234567890123456789012345678901234567", 10)
	a, b := big.NewInt(0x1234_5678_9abc), big.NewInt(0x7ead_beef)
	var output fr.Element
	var m, x, av, bv fr.Element
	m.SetBigInt(modelID)
	x.SetBigInt(inputDigest)
	av.SetBigInt(a)
	bv.SetBigInt(b)
	output.Mul(&m, &av)
	x.Mul(&x, &bv)
	output.Add(&output, &x)
	v.statement = Statement{ModelID: modelID, InputDigest: inputDigest, OutputDigest: output.BigInt(new(big.Int))}

	full, err := frontend.NewWitness(&statementCircuit{
		ModelID: modelID, InputDigest: inputDigest, OutputDigest: v.statement.OutputDigest, A: a, B: b,
	}, ecc.BN254.ScalarField())
	if err != nil {
		return fmt.Errorf("witness: %w", err)
	}
	v.proof, err = groth16.Prove(v.ccs, v.pk, full, ProverOptions()...)
	if err != nil {
		return fmt.Errorf("prove: %w", err)
	}
	public, err := full.Public()
	if err != nil {
		return fmt.Errorf("public witness: %w", err)
	}
	if err := groth16.Verify(v.proof, v.vk, public, VerifierOptions()...); err != nil {
		return fmt.Errorf("the keys in testdata do not match the circuit (run go test -run TestExportGolden -update-keys -update): %w", err)
	}
	return checkStatementOf(public, v.statement)
}

func checkStatementOf(public witness.Witness, want Statement) error {
	got, err := StatementOf(public)
	if err != nil {
		return err
	}
	for i, word := range got.Words() {
		if word.Cmp(want.Words()[i]) != 0 {
			return fmt.Errorf("StatementOf: word %d is %s, want %s", i, word, want.Words()[i])
		}
	}
	return nil
}

func writeKey(path string, key io.WriterTo) error {
	var buf bytes.Buffer
	if _, err := key.WriteTo(&buf); err != nil {
		return fmt.Errorf("serialize %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func readKey(path string, key io.ReaderFrom) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is missing: run go test -run TestExportGolden -update-keys -update", path)
	}
	if err != nil {
		return err
	}
	if _, err := key.ReadFrom(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
