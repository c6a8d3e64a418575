package nonlinear_test

import (
	"flag"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/gadgets/nonlinear"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/model"
)

var updateCounts = flag.Bool("update", false, "rewrite the constraint-count snapshot")

// TestConstraintCounts compiles each check on the default model's shapes
// (a 3-token prompt) and compares with testdata/constraints.csv. The
// softmax and activation counts include their 2¹⁶-entry tables.
func TestConstraintCounts(t *testing.T) {
	tr := prompt(t)
	l := &tr.Layers[0]
	a := &l.Attention
	cube := a.Scores.Out.Shape
	nm := &l.AttnNorm
	logits := tr.Logits()
	vocab := logits.Shape[1]
	rows := []struct {
		name    string
		circuit frontend.Circuit
	}{
		{"softmax/heads=4,rows=3", &softmaxCircuit{shape: nonlinear.SoftmaxShape{Heads: cube[0], Rows: cube[1], Start: a.Start}, exp: a.ExpLow.Table,
			Scores: vars(a.Scores.Out.Data), RowMax: vars(a.RowMax.Data), High: vars(a.ExpHigh.In.Data), Probs: vars(a.Probs.Data), ProbRem: vars(a.ProbRem.Data)}},
		{"layernorm/rows=3,n=64", &normCircuit{spec: normSpecOf(nm, true, l.Input.Min, l.Input.Max), T: nonlinear.NormTensors{
			Input: vars(nm.Input.Data), Mean: vars(nm.Mean.Data), MeanRem: vars(nm.MeanRem.Data), Exponent: vars(nm.Exponent.Data),
			Small: vars(nm.RSqrt.In.Data), SmallRem: vars(nm.RSqrtRem.Data), RSqrt: vars(nm.RSqrt.Out.Data), Out: vars(nm.Out.Data), Rem: vars(nm.Rem.Data)}}},
		{"gelu/rows=3,n=256", &activationCircuit{table: l.Activation.Table, In: vars(l.Activation.In.Data), Out: vars(l.Activation.Out.Data)}},
		{"residual+argmax/rows=3,n=64,vocab=256", &residualCircuit{lo: l.Mid.Min, hi: l.Mid.Max, logitBits: model.LogitBits,
			A: vars(l.Input.Data), B: vars(l.O.Out.Data), Sum: vars(l.Mid.Data), Logits: vars(logits.Data[:vocab]), Next: 0}},
	}
	records := [][]string{{"gadget", "params", "nb_constraints"}}
	for _, r := range rows {
		cs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, r.circuit)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d R1CS constraints", r.name, cs.GetNbConstraints())
		records = append(records, []string{"nonlinear", r.name, strconv.Itoa(cs.GetNbConstraints())})
	}
	snapshot.CheckCSV(t, "testdata/constraints.csv", records, *updateCounts)
}
