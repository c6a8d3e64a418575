package attention

import (
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/attention"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gtranscript "github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/poly"
)

// layerCircuit replays a run in a circuit: the claims on O and S_M are
// drawn from the in-circuit transcript as the native test draws them, both
// halves are verified, and the input claims and final state must match the
// native run.
type layerCircuit struct {
	shape        gadget.Shape
	OutValues    []frontend.Variable
	MaskedValues []frontend.Variable
	OutProof     gadget.OutputProof
	ScoresProof  gadget.ScoresProof
	// Expected claims (points and values) and transcript state.
	Probs, PaddedValues, Query, Keys, Values []frontend.Variable
	Final                                    frontend.Variable
}

func (c *layerCircuit) Define(api frontend.API) error {
	tr, err := gtranscript.New(api, testDomain)
	if err != nil {
		return err
	}
	d, err := Config{Heads: c.shape.Heads, KVHeads: c.shape.KVHeads, HeadDim: c.shape.HeadDim, QueryRows: c.shape.QueryRows, KeyRows: c.shape.KeyRows, Start: c.shape.Start}.dims()
	if err != nil {
		return err
	}
	draw := func(values []frontend.Variable, nbVars int) []gpoly.Claim {
		claims := make([]gpoly.Claim, len(values))
		for i := range values {
			claims[i] = gpoly.Claim{Point: tr.Challenges(nbVars), Value: values[i]}
			tr.Absorb(values[i])
		}
		return claims
	}
	outClaims, err := gadget.VerifyOutput(api, tr, c.shape, c.OutProof, draw(c.OutValues, d.rowVars+d.queryColVars))
	if err != nil {
		return err
	}
	in, err := gadget.VerifyScores(api, tr, c.shape, c.ScoresProof, draw(c.MaskedValues, d.scoreVars()), outClaims.PaddedValues)
	if err != nil {
		return err
	}
	for i, claim := range []gpoly.Claim{outClaims.Probs, outClaims.PaddedValues, in.Query, in.Keys, in.Values} {
		want := [][]frontend.Variable{c.Probs, c.PaddedValues, c.Query, c.Keys, c.Values}[i]
		for k, x := range append(claim.Point, claim.Value) {
			api.AssertIsEqual(x, want[k])
		}
	}
	api.AssertIsEqual(tr.State(), c.Final)
	return nil
}

func claimVector[E field.Scalar](c poly.Claim[E]) []frontend.Variable {
	out := make([]frontend.Variable, 0, len(c.Point)+1)
	for i := range c.Point {
		out = append(out, bigOf(&c.Point[i]))
	}
	return append(out, bigOf(&c.Value))
}

func claimValues[E field.Scalar](claims []poly.Claim[E]) []frontend.Variable {
	out := make([]frontend.Variable, len(claims))
	for i := range claims {
		out[i] = bigOf(&claims[i].Value)
	}
	return out
}

// circuits returns the placeholder circuit and the assignment of a run.
func circuits[E field.Scalar](s *run[E]) (*layerCircuit, *layerCircuit) {
	shape := s.cfg.Shape()
	placeholder := &layerCircuit{
		shape:        shape,
		OutValues:    make([]frontend.Variable, len(s.out)),
		MaskedValues: make([]frontend.Variable, len(s.masked)),
		OutProof:     gadget.PlaceholderOutputProof(shape),
		ScoresProof:  gadget.PlaceholderScoresProof(shape),
	}
	assignment := &layerCircuit{
		shape:        shape,
		OutValues:    claimValues(s.out),
		MaskedValues: claimValues(s.masked),
		OutProof:     s.outProof.Assignment(),
		ScoresProof:  s.scoresProof.Assignment(),
		Probs:        claimVector(s.outClaims.Probs),
		PaddedValues: claimVector(s.outClaims.PaddedValues),
		Query:        claimVector(s.inClaims.Query),
		Keys:         claimVector(s.inClaims.Keys),
		Values:       claimVector(s.inClaims.Values),
		Final:        bigOf(&s.final),
	}
	placeholder.Probs = make([]frontend.Variable, len(assignment.Probs))
	placeholder.PaddedValues = make([]frontend.Variable, len(assignment.PaddedValues))
	placeholder.Query = make([]frontend.Variable, len(assignment.Query))
	placeholder.Keys = make([]frontend.Variable, len(assignment.Keys))
	placeholder.Values = make([]frontend.Variable, len(assignment.Values))
	return placeholder, assignment
}

// solve runs the gadget on a run with gnark's test engine.
func solve[E field.Scalar](s *run[E]) error {
	placeholder, assignment := circuits(s)
	return test.IsSolved(placeholder, assignment, field.Modulus[E]())
}
