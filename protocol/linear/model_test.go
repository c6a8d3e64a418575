package linear

import (
	"fmt"
	"math/rand/v2"
	"testing"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/requant"
)

// specOf describes the requantization of a matmul for package requant.
func specOf(mm *model.MatMul) *requant.Spec {
	return &requant.Spec{Shape: mm.Acc.Shape, Multiplier: mm.Multiplier, Shift: mm.Shift, OutLo: mm.Out.Min, OutHi: mm.Out.Max}
}

// proveMatMuls proves a group of matmuls of one pass that share their
// input, from claims that protocol/requant derives from the opened Out and
// Rem at random points (one row point for the group when shared), and
// checks the claims left against the input tensor and the model's weights.
func proveMatMuls(rng *rand.Rand, mms []*model.MatMul, shared bool) error {
	type E = bn254fr.Element
	input := mms[0].Input
	rows, in := input.Shape[0], input.Shape[1]
	cfg := Config{Rows: rows, In: in, SharedRow: shared}
	w := Witness{X: input.Data, Biases: make([][]int64, len(mms))}
	out := make([]poly.Claim[E], len(mms))
	row := field.RandomVector[E](rng, poly.Log2Ceil(rows))
	for k, mm := range mms {
		if &mm.Input.Data[0] != &input.Data[0] {
			return fmt.Errorf("%s does not read the input of %s", mm.Name, mms[0].Name)
		}
		outDim := mm.Weight.Shape[0]
		cfg.Projections = append(cfg.Projections, Projection{Out: outDim, Bias: mm.Bias != nil})
		w.Weights = append(w.Weights, mm.Weight.Data)
		w.Biases[k] = mm.Bias
		spec := specOf(mm)
		if !shared {
			row = field.RandomVector[E](rng, len(row))
		}
		point := poly.Concat(row, field.RandomVector[E](rng, poly.Log2Ceil(outDim)))
		v, err := requant.EvaluateAcc[E](spec, mm.Out.Data, mm.Rem.Data, point)
		if err != nil {
			return fmt.Errorf("%s: %w", mm.Name, err)
		}
		out[k] = poly.Claim[E]{Point: point, Value: v}
	}
	proof, _, err := Prove(newTranscript[E](), cfg, w, out)
	if err != nil {
		return fmt.Errorf("%s: prove: %w", mms[0].Name, err)
	}
	if err := verifyAndCheck[E](cfg, w, proof, out); err != nil {
		return fmt.Errorf("%s: verify: %w", mms[0].Name, err)
	}
	// A claim from a requantized output changed by one is rejected.
	spec := specOf(mms[0])
	changed := append([]int64(nil), mms[0].Out.Data...)
	changed[rng.IntN(len(changed))]++
	bad := append([]poly.Claim[E](nil), out...)
	if bad[0].Value, err = requant.EvaluateAcc[E](spec, changed, mms[0].Rem.Data, out[0].Point); err != nil {
		return err
	}
	if err := verifyAndCheck[E](cfg, w, proof, bad); err == nil {
		return fmt.Errorf("%s: accepted against a changed output", mms[0].Name)
	}
	return nil
}

// TestModelTrace proves the matmuls of a real generation with the default
// model: the prompt pass and a decoding pass, every layer's Q, K, V (one
// batch, shared input and row point), output projection and MLP, and the
// LM head.
func TestModelTrace(t *testing.T) {
	m := model.Default()
	g, err := m.Generate([]int{3, 141, 59, 26, 5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for p, tr := range g.Traces {
		for i := range tr.Layers {
			l := &tr.Layers[i]
			groups := []struct {
				mms    []*model.MatMul
				shared bool
			}{
				{[]*model.MatMul{&l.Q, &l.K, &l.V}, true},
				{[]*model.MatMul{&l.Q, &l.K, &l.V}, false},
				{[]*model.MatMul{&l.O}, true},
				{[]*model.MatMul{&l.Up}, true},
				{[]*model.MatMul{&l.Down}, true},
			}
			for _, grp := range groups {
				if err := proveMatMuls(rng, grp.mms, grp.shared); err != nil {
					t.Fatalf("pass %d layer %d: %v", p, i, err)
				}
			}
		}
		if err := proveMatMuls(rng, []*model.MatMul{&tr.LMHead}, true); err != nil {
			t.Fatalf("pass %d: %v", p, err)
		}
	}
}
