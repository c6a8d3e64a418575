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

// TestDigest checks the gadget against statement.Digest on BN254 (the
// final circuits' field) for values of every size up to r − 1, and that a
// changed value or digest is rejected.
func TestDigest(t *testing.T) {
	r := ecc.BN254.ScalarField()
	rMinus1 := new(big.Int).Sub(r, big.NewInt(1))
	id := new(big.Int).Lsh(big.NewInt(0x5eed), 234)
	in, _ := new(big.Int).SetString("1234567890123456789012345678901234567890123456789012345678901234567", 10)
	assign := func(m, i, o *big.Int) *statementDigestCircuit {
		d, err := native.Digest(m, i, o)
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
		{"r-1", rMinus1, rMinus1, rMinus1},
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

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

const constraintsFile = "testdata/constraints.csv"

// TestDigestConstraints checks the gadget's size in R1CS over BN254
// against the snapshot (most of it is the fixed cost of gnark's byte
// lookup tables, shared with any other user of std/math/uints in the same
// circuit).
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

type turnDigestCircuit struct {
	ModelID, StateIn, InputDigest, OutputDigest, StateOut frontend.Variable
	Digest                                                frontend.Variable `gnark:",public"`
}

func (c *turnDigestCircuit) Define(api frontend.API) error {
	d, err := TurnDigest(api, c.ModelID, c.StateIn, c.InputDigest, c.OutputDigest, c.StateOut)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

// TestTurnDigest checks the gadget against statement.Turn.Digest on BN254
// (the golden turn 1…5 of the native test, values up to r − 1, the empty
// state in), and that a changed state in, state out or digest, and the
// states swapped, are rejected.
func TestTurnDigest(t *testing.T) {
	r := ecc.BN254.ScalarField()
	rMinus1 := new(big.Int).Sub(r, big.NewInt(1))
	assign := func(v [5]*big.Int) *turnDigestCircuit {
		turn := native.Turn{ModelID: v[0], StateIn: v[1], InputDigest: v[2], OutputDigest: v[3], StateOut: v[4]}
		d, err := turn.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return &turnDigestCircuit{ModelID: v[0], StateIn: v[1], InputDigest: v[2], OutputDigest: v[3], StateOut: v[4], Digest: d}
	}
	golden, _ := new(big.Int).SetString("1f88c1044a05e5340ed20466276500f6d45ca5603913b9091e957161734e1635", 16)
	// The test engine, not a compile: the gadget's size is
	// TestDigestConstraints' (the same words, two more).
	for i, v := range [][5]*big.Int{
		{big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(4), big.NewInt(5)},
		{big.NewInt(7), native.EmptyState, big.NewInt(8), big.NewInt(9), rMinus1},
	} {
		honest := assign(v)
		if i == 0 && honest.Digest.(*big.Int).Cmp(golden) != 0 {
			t.Fatalf("turn 1…5: digest %#x, golden %#x", honest.Digest, golden)
		}
		otherIn, otherOut, swapped, wrong := *honest, *honest, *honest, *honest
		otherIn.StateIn = new(big.Int).Add(v[1], big.NewInt(1))
		otherOut.StateOut = new(big.Int).Sub(v[4], big.NewInt(1))
		swapped.StateIn, swapped.StateOut = v[4], v[1]
		wrong.Digest = new(big.Int).Add(honest.Digest.(*big.Int), big.NewInt(1))
		if err := test.IsSolved(&turnDigestCircuit{}, honest, r); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		for name, bad := range map[string]*turnDigestCircuit{"another state in": &otherIn, "another state out": &otherOut, "the states swapped": &swapped, "another digest": &wrong} {
			if test.IsSolved(&turnDigestCircuit{}, bad, r) == nil {
				t.Errorf("turn %d: %s accepted", i, name)
			}
		}
	}
}
