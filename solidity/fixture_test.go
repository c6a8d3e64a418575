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
	"github.com/consensys/gnark/backend/groth16/bn254/mpcsetup"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	cs "github.com/consensys/gnark/constraint/bn254"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/veriformer/veriformer/statement"
)

var (
	updateGolden = flag.Bool("update", false, "rewrite the exported Solidity golden files in testdata from the stored keys")
	updateKeys   = flag.Bool("update-keys", false, "run a new Groth16 setup for the test circuits and rewrite the keys in testdata")
)

// statementCircuit has the public input of every final proof, the
// statement digest, and ties it to three private values: Digest = X + A·B.
// With rangeCheck set, A and B are also range checked to 64 bits through
// gnark's commitment-based range checker, so the Groth16 proof carries a
// Pedersen commitment, as the real circuits' proofs do. (The real circuits
// compute the digest with SHA-256; the contracts only see the public
// input.)
type statementCircuit struct {
	Digest  frontend.Variable `gnark:",public"`
	X, A, B frontend.Variable

	rangeCheck bool `gnark:"-"`
}

func (c *statementCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Add(c.X, api.Mul(c.A, c.B)), c.Digest)
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
	// ceremony: keys from gnark's MPC ceremony (one contribution to each
	// phase) instead of groth16.Setup; there the commitment key's G2 point
	// is γ, and the merged verifier needs one pair less.
	ceremony bool
	template Template

	ccs       constraint.ConstraintSystem
	pk        groth16.ProvingKey
	vk        groth16.VerifyingKey
	proof     groth16.Proof
	list      List
	contracts *Contracts
}

func (v *variant) keyPath(kind string) string {
	return filepath.Join("testdata", v.name+"."+kind)
}

func (v *variant) goldenPath() string {
	return filepath.Join("testdata", v.name+"_verifier.sol.golden")
}

// fixture is shared by the tests of the package: the variants compiled,
// keyed, proven and their contracts compiled once. gnarkCommitment and
// gnarkCeremony are the same circuits, keys and proofs as commitment and
// ceremony with gnark's unmodified verifier.
type fixture struct {
	plain, commitment, ceremony, gnarkCommitment, gnarkCeremony *variant
}

func (f *fixture) variants() []*variant {
	return []*variant{f.plain, f.commitment, f.ceremony, f.gnarkCommitment, f.gnarkCeremony}
}

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
		ceremony:   &variant{name: "ceremony", rangeCheck: true, ceremony: true},
	}
	sources := map[string]string{RegistryFile: RegistrySource}
	for _, v := range []*variant{f.plain, f.commitment, f.ceremony} {
		if err := v.setUp(); err != nil {
			return nil, fmt.Errorf("%s: %w", v.name, err)
		}
	}
	same := func(v *variant, name string) *variant {
		w := *v
		w.name, w.template = name, Gnark
		return &w
	}
	f.gnarkCommitment = same(f.commitment, "gnark_commitment")
	f.gnarkCeremony = same(f.ceremony, "gnark_ceremony")
	for _, v := range f.variants() {
		var source bytes.Buffer
		if err := ExportVerifierTemplate(v.vk, &source, v.template); err != nil {
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
// and proves a fixed list of one request.
func (v *variant) setUp() error {
	var err error
	v.ccs, err = frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &statementCircuit{rangeCheck: v.rangeCheck})
	if err != nil {
		return fmt.Errorf("compile circuit: %w", err)
	}
	if *updateKeys {
		if v.ceremony {
			v.pk, v.vk, err = ceremonyKeys(v.ccs)
		} else {
			v.pk, v.vk, err = groth16.Setup(v.ccs)
		}
		if err != nil {
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
	v.list = List{ModelID: modelID, Leaves: []Leaf{statement.RequestLeaf(inputDigest, big.NewInt(0x0ca7))}}
	digest, err := v.list.Digest()
	if err != nil {
		return err
	}
	var full witness.Witness
	if v.proof, full, err = v.proveDigest(digest); err != nil {
		return err
	}
	public, err := full.Public()
	if err != nil {
		return fmt.Errorf("public witness: %w", err)
	}
	if err := groth16.Verify(v.proof, v.vk, public, VerifierOptions()...); err != nil {
		return fmt.Errorf("the keys in testdata do not match the circuit (run go test -run TestExportGolden -update-keys -update): %w", err)
	}
	return CheckWitness(public, v.list)
}

// proveDigest proves the variant's circuit for the public input digest,
// with fixed A and B and X = digest − A·B.
func (v *variant) proveDigest(digest *big.Int) (groth16.Proof, witness.Witness, error) {
	a, b := big.NewInt(0x1234_5678_9abc), big.NewInt(0x7ead_beef)
	var x, av, bv fr.Element
	x.SetBigInt(digest)
	av.SetBigInt(a)
	bv.SetBigInt(b)
	av.Mul(&av, &bv)
	x.Sub(&x, &av)
	full, err := frontend.NewWitness(&statementCircuit{Digest: digest, X: x.BigInt(new(big.Int)), A: a, B: b}, ecc.BN254.ScalarField())
	if err != nil {
		return nil, nil, fmt.Errorf("witness: %w", err)
	}
	proof, err := groth16.Prove(v.ccs, v.pk, full, ProverOptions()...)
	if err != nil {
		return nil, nil, fmt.Errorf("prove: %w", err)
	}
	return proof, full, nil
}

// ceremonyKeys runs gnark's MPC ceremony for ccs with one contribution to
// each phase (test keys: the contributor's randomness is not kept, but
// nothing more than a test needs is claimed for them).
func ceremonyKeys(ccs constraint.ConstraintSystem) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	r1cs, ok := ccs.(*cs.R1CS)
	if !ok {
		return nil, nil, fmt.Errorf("ceremony: constraint system is %T", ccs)
	}
	n := max(2, ecc.NextPowerOfTwo(uint64(ccs.GetNbConstraints())))
	beacon := []byte("veriformer solidity test beacon")
	phase1 := mpcsetup.NewPhase1(n)
	phase1.Contribute()
	commons := phase1.Seal(beacon)
	var phase2 mpcsetup.Phase2
	evaluations := phase2.Initialize(r1cs, &commons)
	phase2.Contribute()
	pk, vk := phase2.Seal(&commons, &evaluations, beacon)
	return pk, vk, nil
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
