package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	glinear "github.com/veriformer/veriformer/gadgets/linear"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
)

// PlaceholderProjections sizes the projection proofs of a segment.
func PlaceholderProjections(s *native.Shape) []glinear.Proof {
	out := make([]glinear.Proof, len(s.Groups))
	for k := range s.Groups {
		out[k] = glinear.PlaceholderProof(s.Groups[k].Config())
	}
	return out
}

// ValueOfProjections returns the assignment of native projection proofs.
func ValueOfProjections(ps []*linear.Proof[fr.Element]) []glinear.Proof {
	out := make([]glinear.Proof, len(ps))
	for k, p := range ps {
		out[k] = glinear.ValueOfProof(p)
	}
	return out
}

// verifyProjections is native Shape.VerifyProjections in circuit: per
// projection group the linear-layer proof (gadgets/linear) from the
// accumulator claims, its weight and bias claims checked against the
// model's weights as circuit constants (the group's weights share the
// column table); it returns the claims on the groups' inputs.
func verifyProjections(api frontend.API, t *transcript.Transcript, s *native.Shape, points [][]frontend.Variable, acc []frontend.Variable, proofs []glinear.Proof) ([]gpoly.Claim, error) {
	if len(proofs) != len(s.Groups) {
		return nil, fmt.Errorf("committed: %d projection proofs for %d groups", len(proofs), len(s.Groups))
	}
	t.Label("committed/projections")
	inputs := make([]gpoly.Claim, len(s.Groups))
	for k, g := range s.Groups {
		cfg := g.Config()
		out := make([]gpoly.Claim, len(g.MatMuls))
		for j, mm := range g.MatMuls {
			q := s.Index[&mm.Requant]
			out[j] = gpoly.Claim{Point: points[q], Value: acc[q]}
		}
		c, err := glinear.Verify(api, t, cfg, proofs[k], out)
		if err != nil {
			return nil, fmt.Errorf("committed: projections of %s: %w", g.X.Name, err)
		}
		inVars := npoly.Log2Ceil(cfg.In)
		col := c.Weights[0].Point
		cols, err := glinear.NewColumns(api, cfg.In, col[len(col)-inVars:])
		if err != nil {
			return nil, err
		}
		for j, mm := range g.MatMuls {
			p := c.Weights[j].Point
			v, err := cols.EvaluateWeight(api, mm.Weight.Data, mm.Weight.Shape[0], p[:len(p)-inVars])
			if err != nil {
				return nil, fmt.Errorf("committed: weights of %s: %w", mm.Name, err)
			}
			api.AssertIsEqual(v, c.Weights[j].Value)
			if mm.Bias != nil {
				b, err := glinear.EvaluateBias(api, mm.Bias, c.Biases[j].Point)
				if err != nil {
					return nil, fmt.Errorf("committed: bias of %s: %w", mm.Name, err)
				}
				api.AssertIsEqual(b, c.Biases[j].Value)
			}
		}
		inputs[k] = c.Input
	}
	return inputs, nil
}
