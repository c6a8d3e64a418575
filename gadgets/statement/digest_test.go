package statement

import (
	"encoding/csv"
	"flag"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	native "github.com/veriformer/veriformer/statement"
)

type statementDigestCircuit struct {
	ModelID, InputDigest, OutputDigest frontend.Variable
	Digest                             frontend.Variable `gnark:",public"`
}

func (c *statementDigestCircuit) Define(api frontend.API) error {
	d, err := Digest(api, c.ModelID, c.InputDigest, c.OutputDigest)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

// TestDigest checks the gadget against statement.Statement.Digest (the
// digest of the list of the one request) on BN254, the final circuits'
// field, for digests of every size up to r − 1 and model ids up to
// 2^250 − 1, and that a changed value,
// another digest or the digest with the bits truncation drops are
// rejected.
func TestDigest(t *testing.T) {
	r := ecc.BN254.ScalarField()
	rMinus1 := new(big.Int).Sub(r, big.NewInt(1))
	id := new(big.Int).Lsh(big.NewInt(0x5eed), 234)
	largestID := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), native.ModelIDBits), big.NewInt(1))
	in, _ := new(big.Int).SetString("1234567890123456789012345678901234567890123456789012345678901234567", 10)
	assign := func(m, i, o *big.Int) *statementDigestCircuit {
		d, err := native.Statement{ModelID: m, InputDigest: i, OutputDigest: o}.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return &statementDigestCircuit{ModelID: m, InputDigest: i, OutputDigest: o, Digest: d}
	}
	// One compile for every case: each holds valid and invalid
	// assignments of the same circuit.
	opts := []test.TestingOption{test.WithCurves(ecc.BN254), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks(), test.NoProverChecks()}
	for _, tc := range []struct {
		name    string
		m, i, o *big.Int
	}{
		{"typical", id, in, big.NewInt(42)},
		{"zero", new(big.Int), new(big.Int), new(big.Int)},
		{"r-1", largestID, rMinus1, rMinus1},
	} {
		honest := assign(tc.m, tc.i, tc.o)
		wrongDigest := *honest
		wrongDigest.Digest = new(big.Int).Add(honest.Digest.(*big.Int), big.NewInt(1))
		changedInput := *honest
		changedInput.InputDigest = new(big.Int).Add(tc.i, big.NewInt(1))
		// The digest of the honest values with the bits truncation drops.
		untruncated := *honest
		untruncated.Digest = new(big.Int).Add(honest.Digest.(*big.Int), new(big.Int).Lsh(big.NewInt(1), native.DigestBits))
		opts = append(opts, test.WithValidAssignment(honest),
			test.WithInvalidAssignment(&wrongDigest), test.WithInvalidAssignment(&changedInput), test.WithInvalidAssignment(&untruncated))
	}
	test.NewAssert(t).CheckCircuit(&statementDigestCircuit{}, opts...)
}

var update = flag.Bool("update", false, "rewrite the constraint-count snapshots in testdata")

const constraintsFile = "testdata/constraints.csv"

// TestDigestConstraints checks the gadget's size in R1CS over BN254
// against the snapshot.
func TestDigestConstraints(t *testing.T) {
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &statementDigestCircuit{})
	if err != nil {
		t.Fatal(err)
	}
	got := ccs.GetNbConstraints()
	t.Logf("statement digest: %d R1CS constraints", got)
	if *update {
		content := fmt.Sprintf("circuit,constraints\nstatement digest (BN254 R1CS),%d\n", got)
		if err := os.WriteFile(constraintsFile, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(constraintsFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDigestConstraints -update)", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || len(rows[1]) != 2 {
		t.Fatalf("%s: %d rows, want a header and one row", constraintsFile, len(rows))
	}
	want, err := strconv.Atoi(rows[1][1])
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("statement digest: %d constraints, snapshot says %d (run with -update if intended)", got, want)
	}
}
