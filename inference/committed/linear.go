package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
)

// ProjectionGroup is the projections of one input: Q, K, V of the
// attention norm's output; O of the context; gate and up of the MLP
// norm's output; down of the activation (or gated product); the LM head
// of the final norm's output.
type ProjectionGroup struct {
	X       *model.Tensor
	MatMuls []*model.MatMul
}

// projectionGroups lists a segment's projection groups in canonical order.
func projectionGroups(tr *model.Trace, seg inference.Segment) []ProjectionGroup {
	var out []ProjectionGroup
	for i := seg.From; i < seg.To; i++ {
		l := &tr.Layers[i]
		out = append(out,
			ProjectionGroup{&l.AttnNorm.Out, []*model.MatMul{&l.Q, &l.K, &l.V}},
			ProjectionGroup{&l.Attention.Context.Out, []*model.MatMul{&l.O}})
		mlp := []*model.MatMul{&l.Up}
		hidden := &l.Activation.Out
		if l.Gate != nil {
			mlp = []*model.MatMul{l.Gate, &l.Up}
			hidden = &l.Product.Out
		}
		out = append(out, ProjectionGroup{&l.MLPNorm.Out, mlp}, ProjectionGroup{hidden, []*model.MatMul{&l.Down}})
	}
	if seg.HasHead(len(tr.Layers)) {
		out = append(out, ProjectionGroup{&tr.FinalNorm.Out, []*model.MatMul{&tr.LMHead}})
	}
	return out
}

// sharedRows maps every projection's requantization but the first of its
// group to the first's: they share the row coordinates of their points.
func sharedRows(groups []ProjectionGroup) map[*model.Requant]*model.Requant {
	out := map[*model.Requant]*model.Requant{}
	for _, g := range groups {
		for _, mm := range g.MatMuls[1:] {
			out[&mm.Requant] = &g.MatMuls[0].Requant
		}
	}
	return out
}

// Config is the linear-layer shape of the group (protocol/linear).
func (g *ProjectionGroup) Config() linear.Config {
	cfg := linear.Config{Rows: g.X.Shape[0], In: g.X.Shape[1], SharedRow: true}
	for _, mm := range g.MatMuls {
		cfg.Projections = append(cfg.Projections, linear.Projection{Out: mm.Weight.Shape[0], Bias: mm.Bias != nil})
	}
	return cfg
}

// proveProjections proves every projection group's accumulator claims and
// returns the proofs and the claims on the groups' inputs.
func proveProjections(t *pcs.Transcript, groups []ProjectionGroup, index map[*model.Requant]int, points [][]fr.Element, acc []fr.Element) ([]*linear.Proof[fr.Element], []poly.Claim[fr.Element], error) {
	t.Label("committed/projections")
	var proofs []*linear.Proof[fr.Element]
	var inputs []poly.Claim[fr.Element]
	for _, g := range groups {
		w := linear.Witness{X: g.X.Data}
		for _, mm := range g.MatMuls {
			w.Weights = append(w.Weights, mm.Weight.Data)
			w.Biases = append(w.Biases, mm.Bias)
		}
		p, c, err := linear.Prove(t, g.Config(), w, groupClaims(g, index, points, acc))
		if err != nil {
			return nil, nil, fmt.Errorf("committed: projections of %s: %w", g.X.Name, err)
		}
		proofs = append(proofs, p)
		inputs = append(inputs, c.Input)
	}
	return proofs, inputs, nil
}

// verifyProjections checks the projection proofs and the claims they leave
// on the model's weights and biases, and returns the claims on the groups'
// inputs.
func verifyProjections(t *pcs.Transcript, groups []ProjectionGroup, index map[*model.Requant]int, points [][]fr.Element, acc []fr.Element, proofs []*linear.Proof[fr.Element]) ([]poly.Claim[fr.Element], error) {
	if len(proofs) != len(groups) {
		return nil, fmt.Errorf("%d projection proofs for %d groups", len(proofs), len(groups))
	}
	t.Label("committed/projections")
	var inputs []poly.Claim[fr.Element]
	for k, g := range groups {
		if proofs[k] == nil {
			return nil, fmt.Errorf("missing projection proof %d", k)
		}
		cfg := g.Config()
		c, err := linear.Verify(t, cfg, proofs[k], groupClaims(g, index, points, acc))
		if err != nil {
			return nil, fmt.Errorf("projections of %s: %w", g.X.Name, err)
		}
		for j, mm := range g.MatMuls {
			v, err := linear.EvaluateWeight[fr.Element](mm.Weight.Data, mm.Weight.Shape[0], cfg.In, c.Weights[j].Point)
			if err != nil {
				return nil, err
			}
			if !v.Equal(&c.Weights[j].Value) {
				return nil, fmt.Errorf("the claim on %s does not match the model's weights", mm.Weight.Name)
			}
			if mm.Bias != nil {
				b, err := linear.EvaluateBias[fr.Element](mm.Bias, c.Biases[j].Point)
				if err != nil {
					return nil, err
				}
				if !b.Equal(&c.Biases[j].Value) {
					return nil, fmt.Errorf("the claim on the bias of %s does not match the model's", mm.Name)
				}
			}
		}
		inputs = append(inputs, c.Input)
	}
	return inputs, nil
}

func groupClaims(g ProjectionGroup, index map[*model.Requant]int, points [][]fr.Element, acc []fr.Element) []poly.Claim[fr.Element] {
	var out []poly.Claim[fr.Element]
	for _, mm := range g.MatMuls {
		q := index[&mm.Requant]
		out = append(out, poly.Claim[fr.Element]{Point: points[q], Value: acc[q]})
	}
	return out
}
