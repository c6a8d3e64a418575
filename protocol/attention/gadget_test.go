package attention_test

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/attention"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gtranscript "github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/attention"
)

// The circuit half of the twin tests. gadgets/attention imports package
// attention, so it is written here, in the external test package, and
// installed for the internal tests (honest runs, tamper tests) at init.
func init() {
	*attention.SolveInCircuit = func(run any) error {
		switch r := run.(type) {
		case *attention.CircuitRun[bn254fr.Element]:
			return solve(r)
		case *attention.CircuitRun[bls12377fr.Element]:
			return solve(r)
		}
		return errors.New("attention test: run over an unknown field")
	}
}

// layerCircuit replays a run in a circuit: the claims on O and S_M are
// drawn from the in-circuit transcript as the native test draws them, both
// halves are verified, and the input claims and final state must match the
// native run.
type layerCircuit struct {
	cfg                attention.Config `gnark:"-"`
	domain             string           `gnark:"-"`
	outVars, scoreVars int              `gnark:"-"`
	OutValues          []frontend.Variable
	MaskedValues       []frontend.Variable
	OutProof           gadget.OutputProof
	ScoresProof        gadget.ScoresProof
	// Expected claims (points and values) and transcript state.
	Probs, PaddedValues, Query, Keys, Values []frontend.Variable
	Final                                    frontend.Variable
}

func (c *layerCircuit) Define(api frontend.API) error {
	tr, err := gtranscript.New(api, c.domain)
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
	outClaims, err := gadget.VerifyOutput(api, tr, c.cfg, c.OutProof, draw(c.OutValues, c.outVars))
	if err != nil {
		return err
	}
	in, err := gadget.VerifyScores(api, tr, c.cfg, c.ScoresProof, draw(c.MaskedValues, c.scoreVars), outClaims.PaddedValues)
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

// claimVector lays a claim out as its point followed by its value.
func claimVector[E field.Scalar](c poly.Claim[E]) []frontend.Variable {
	return append(gpoly.ValuesOf(c.Point), field.BigInt(&c.Value))
}

func claimValues[E field.Scalar](claims []poly.Claim[E]) []frontend.Variable {
	out := make([]frontend.Variable, len(claims))
	for i := range claims {
		out[i] = field.BigInt(&claims[i].Value)
	}
	return out
}

// circuits returns the placeholder circuit and the assignment of a run.
func circuits[E field.Scalar](s *attention.CircuitRun[E]) (*layerCircuit, *layerCircuit) {
	fixed := layerCircuit{cfg: s.Config, domain: s.TestDomain, outVars: s.OutVars, scoreVars: s.ScoreVars}
	placeholder, assignment := fixed, fixed
	placeholder.OutValues = make([]frontend.Variable, len(s.Out))
	placeholder.MaskedValues = make([]frontend.Variable, len(s.Masked))
	placeholder.OutProof = gadget.PlaceholderOutputProof(s.Config)
	placeholder.ScoresProof = gadget.PlaceholderScoresProof(s.Config)
	assignment.OutValues = claimValues(s.Out)
	assignment.MaskedValues = claimValues(s.Masked)
	assignment.OutProof = gadget.ValueOfOutputProof(s.OutProof)
	assignment.ScoresProof = gadget.ValueOfScoresProof(s.ScoresProof)
	assignment.Probs = claimVector(s.OutClaims.Probs)
	assignment.PaddedValues = claimVector(s.OutClaims.PaddedValues)
	assignment.Query = claimVector(s.InClaims.Query)
	assignment.Keys = claimVector(s.InClaims.Keys)
	assignment.Values = claimVector(s.InClaims.Values)
	assignment.Final = field.BigInt(&s.Final)
	placeholder.Probs = make([]frontend.Variable, len(assignment.Probs))
	placeholder.PaddedValues = make([]frontend.Variable, len(assignment.PaddedValues))
	placeholder.Query = make([]frontend.Variable, len(assignment.Query))
	placeholder.Keys = make([]frontend.Variable, len(assignment.Keys))
	placeholder.Values = make([]frontend.Variable, len(assignment.Values))
	return &placeholder, &assignment
}

// solve runs the gadget on a run with gnark's test engine.
func solve[E field.Scalar](s *attention.CircuitRun[E]) error {
	placeholder, assignment := circuits(s)
	return test.IsSolved(placeholder, assignment, field.Modulus[E]())
}

// shapeCircuit calls the gadget on an empty proof: only the shape checks
// matter.
type shapeCircuit struct {
	cfg attention.Config `gnark:"-"`
	X   frontend.Variable
}

func (c *shapeCircuit) Define(api frontend.API) error {
	tr, err := gtranscript.New(api, "x")
	if err != nil {
		return err
	}
	_, err = gadget.VerifyOutput(api, tr, c.cfg, gadget.PlaceholderOutputProof(c.cfg), nil)
	if err != nil && strings.Contains(err.Error(), "claims on the output") {
		return nil // the shape passed validation
	}
	return err
}

// TestConfigValidationGadget checks that the gadget rejects the invalid
// shapes with an error and accepts the valid test shapes.
func TestConfigValidationGadget(t *testing.T) {
	type E = bn254fr.Element
	for name, cfg := range attention.InvalidConfigs() {
		if err := test.IsSolved(&shapeCircuit{cfg: cfg}, &shapeCircuit{cfg: cfg, X: 0}, field.Modulus[E]()); err == nil {
			t.Errorf("%s: gadget accepted the shape", name)
		}
	}
	for i, cfg := range attention.TestConfigs() {
		if err := test.IsSolved(&shapeCircuit{cfg: cfg}, &shapeCircuit{cfg: cfg, X: 0}, field.Modulus[E]()); err != nil && strings.Contains(err.Error(), "attention: ") {
			t.Errorf("config %d: gadget rejected a valid shape: %v", i, err)
		}
	}
}

// TestMalformedGadget checks that the gadget reports a proof of the wrong
// size as an error.
func TestMalformedGadget(t *testing.T) {
	type E = bn254fr.Element
	cfg := attention.Config{Heads: 3, HeadDim: 10, QueryRows: 5, KeyRows: 5, MaskValue: -9}
	r := attention.HonestRun[E](t, cfg, rand.New(rand.NewPCG(5, 5)))
	placeholder, assignment := circuits(r)
	if err := test.IsSolved(placeholder, assignment, field.Modulus[E]()); err != nil {
		t.Fatalf("honest run rejected: %v", err)
	}
	placeholder.OutProof.Mix.Rounds = placeholder.OutProof.Mix.Rounds[1:]
	assignment.OutProof.Mix.Rounds = assignment.OutProof.Mix.Rounds[1:]
	if err := test.IsSolved(placeholder, assignment, field.Modulus[E]()); err == nil {
		t.Error("gadget accepted a proof with a missing round")
	}
}

// maskCircuit checks the gadget's zeroifier at a point against the native
// value.
type maskCircuit struct {
	cfg   attention.Config `gnark:"-"`
	Point []frontend.Variable
	Want  frontend.Variable
}

func (c *maskCircuit) Define(api frontend.API) error {
	z, err := gadget.Zeroifier(api, c.cfg, c.Point)
	if err != nil {
		return err
	}
	api.AssertIsEqual(z, c.Want)
	return nil
}

// TestZeroifierGadget checks the in-circuit zeroifier against the native
// closed form on the shifted causal shapes.
func TestZeroifierGadget(t *testing.T) {
	type E = bls12377fr.Element
	rng := rand.New(rand.NewPCG(8, 8))
	for _, cfg := range []attention.Config{
		{Heads: 1, HeadDim: 1, QueryRows: 3, KeyRows: 7, Start: 4},
		{Heads: 1, HeadDim: 1, QueryRows: 5, KeyRows: 16, Start: 2},
		{Heads: 1, HeadDim: 1, QueryRows: 4, KeyRows: 64, Start: 60},
		{Heads: 1, HeadDim: 1, QueryRows: 1, KeyRows: 9, Start: 5},
		{Heads: 1, HeadDim: 1, QueryRows: 6, KeyRows: 6},
	} {
		d, err := cfg.Dims()
		if err != nil {
			t.Fatal(err)
		}
		point := field.RandomVector[E](rng, d.RowVars+d.KeyVars)
		want, err := attention.Zeroifier[E](cfg, point)
		if err != nil {
			t.Fatal(err)
		}
		assignment := &maskCircuit{cfg: cfg, Point: gpoly.ValuesOf(point), Want: want.BigInt(new(big.Int))}
		placeholder := &maskCircuit{cfg: cfg, Point: make([]frontend.Variable, len(point))}
		if err := test.IsSolved(placeholder, assignment, field.Modulus[E]()); err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		wrong := *assignment
		wrong.Want = new(big.Int).Add(want.BigInt(new(big.Int)), big.NewInt(1))
		if err := test.IsSolved(placeholder, &wrong, field.Modulus[E]()); err == nil {
			t.Fatalf("%+v: wrong value accepted", cfg)
		}
	}
}
