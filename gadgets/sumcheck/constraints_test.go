package sumcheck

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/internal/snapshot"
)

var update = flag.Bool("update", false, "rewrite testdata/constraints.csv")

// verifyCircuit is a bare one-instance verification, to count constraints.
type verifyCircuit struct {
	Claim frontend.Variable
	Proof Proof
	Final frontend.Variable

	degree int `gnark:"-"`
}

func (c *verifyCircuit) Define(api frontend.API) error {
	t, err := transcript.New(api, "count")
	if err != nil {
		return err
	}
	_, final, err := Verify(api, t, c.Claim, c.degree, c.Proof)
	if err != nil {
		return err
	}
	api.AssertIsEqual(final, c.Final)
	return nil
}

// countedCircuits are the rows of testdata/constraints.csv.
func countedCircuits() []struct {
	name    string
	circuit frontend.Circuit
} {
	var rows []struct {
		name    string
		circuit frontend.Circuit
	}
	for degree := 1; degree <= 4; degree++ {
		for _, nbVars := range []int{1, 9} {
			rows = append(rows, struct {
				name    string
				circuit frontend.Circuit
			}{
				fmt.Sprintf("verify/degree=%d/nbVars=%d", degree, nbVars),
				&verifyCircuit{Proof: PlaceholderProof(nbVars, degree), degree: degree},
			})
		}
	}
	for _, shape := range [][2]int{{2, 8}, {3, 8}} {
		c := &samePolyCircuit{
			Statement: make([]frontend.Variable, 2),
			Claims:    make([]poly.Claim, shape[0]),
			Proof:     PlaceholderSamePolyProof(shape[1]),
			domain:    "count",
		}
		for i := range c.Claims {
			c.Claims[i].Point = make([]frontend.Variable, shape[1])
		}
		rows = append(rows, struct {
			name    string
			circuit frontend.Circuit
		}{fmt.Sprintf("samepoly/nbClaims=%d/nbVars=%d", shape[0], shape[1]), c})
	}
	return rows
}

// TestConstraints compiles the verifier to R1CS on BN254 and compares the
// constraint counts with testdata/constraints.csv (rewrite with -update).
// The per-round cost of a degree-d round is the difference of the nbVars=9
// and nbVars=1 rows divided by 8.
func TestConstraints(t *testing.T) {
	rows := [][]string{{"circuit", "constraints"}}
	counts := map[string]int{}
	for _, row := range countedCircuits() {
		cs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, row.circuit)
		if err != nil {
			t.Fatalf("%s: %v", row.name, err)
		}
		counts[row.name] = cs.GetNbConstraints()
		rows = append(rows, []string{row.name, strconv.Itoa(cs.GetNbConstraints())})
	}
	for degree := 1; degree <= 4; degree++ {
		perRound := (counts[fmt.Sprintf("verify/degree=%d/nbVars=9", degree)] - counts[fmt.Sprintf("verify/degree=%d/nbVars=1", degree)]) / 8
		t.Logf("degree %d: %d R1CS constraints per round", degree, perRound)
		if degree == 2 && perRound > 800 {
			t.Errorf("a degree-2 round costs %d constraints, more than 800", perRound)
		}
	}
	snapshot.CheckCSV(t, filepath.Join("testdata", "constraints.csv"), rows, *update)
}
