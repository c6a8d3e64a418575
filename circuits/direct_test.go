package circuits

import (
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

type fixture struct {
	layout         *Layout
	st             statement.Statement
	prompt, output []int
	proof          *inference.Proof[bn254fr.Element]
}

func newFixture(t testing.TB, prompt []int, n int) *fixture {
	t.Helper()
	m := model.Default()
	output, tr, err := inference.Generate(m, prompt, n)
	if err != nil {
		t.Fatal(err)
	}
	st, err := statement.New[bn254fr.Element](m, prompt, output)
	if err != nil {
		t.Fatal(err)
	}
	proof, err := inference.Prove[bn254fr.Element](m, st, prompt, output, tr)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := NewLayout(m, len(prompt), n)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{layout: layout, st: st, prompt: prompt, output: output, proof: proof}
}

func TestDirectSolved(t *testing.T) {
	f := newFixture(t, []int{'H', 'i'}, 2)
	assignment, err := f.layout.Assign(f.st, f.prompt, f.output, f.proof)
	if err != nil {
		t.Fatal(err)
	}
	placeholder, err := f.layout.Placeholder()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := test.IsSolved(placeholder, assignment, ecc.BN254.ScalarField()); err != nil {
		t.Fatalf("honest assignment: %v", err)
	}
	t.Logf("solved in %v", time.Since(start))
}

func TestDirectConstraints(t *testing.T) {
	f := newFixture(t, []int{'H', 'i'}, 2)
	placeholder, err := f.layout.Placeholder()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, placeholder)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d R1CS constraints, compiled in %v", cs.GetNbConstraints(), time.Since(start))
}
