package attention

import (
	"errors"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
)

// CircuitRun is what the circuit half of the twin tests reads from a run:
// the claims drawn on O and S_M, both proofs, the claims the prover left
// and the final transcript state.
type CircuitRun[E field.Scalar] struct {
	Config             Config
	Out, Masked        []poly.Claim[E]
	OutProof           *OutputProof[E]
	ScoresProof        *ScoresProof[E]
	OutClaims          OutputClaims[E]
	InClaims           InputClaims[E]
	Final              E
	TestDomain         string
	OutVars, ScoreVars int
}

func (s *run[E]) circuitRun() *CircuitRun[E] {
	d, _ := s.cfg.Dims()
	return &CircuitRun[E]{
		Config: s.cfg, Out: s.out, Masked: s.masked,
		OutProof: s.outProof, ScoresProof: s.scoresProof,
		OutClaims: s.outClaims, InClaims: s.inClaims, Final: s.final,
		TestDomain: testDomain, OutVars: d.RowVars + d.QueryColVars, ScoreVars: d.ScoreVars(),
	}
}

// solveInCircuit runs the in-circuit verifier (gadgets/attention) on a
// *CircuitRun with gnark's test engine. gadgets/attention imports this
// package, so the circuit half of the twin tests lives in the external test
// package (gadget_test.go), whose init sets it.
var solveInCircuit func(run any) error

// solve runs the gadget on a run.
func solve[E field.Scalar](s *run[E]) error {
	if solveInCircuit == nil {
		return errors.New("attention test: no in-circuit verifier installed")
	}
	return solveInCircuit(s.circuitRun())
}
