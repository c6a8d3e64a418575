package sumcheck

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
)

// callCircuit runs errorCases[name] in Define and returns its error (a
// name rather than a function, which the test engine cannot clone); the
// empty name is a control that returns no error.
type callCircuit struct {
	X frontend.Variable

	name string `gnark:"-"`
}

func (c *callCircuit) Define(api frontend.API) error {
	t, err := transcript.New(api, "errors")
	if err != nil {
		return err
	}
	if c.name == "" {
		return nil
	}
	return errorCases[c.name](api, t)
}

var square = []Term{{Coefficient: 1, Factors: []int{0, 0}}}

// errorCases are calls on malformed input; each must return an error.
var errorCases = map[string]func(api frontend.API, t *transcript.Transcript) error{
	"degree 0": func(api frontend.API, t *transcript.Transcript) error {
		_, _, err := Verify(api, t, 1, 0, PlaceholderProof(1, 0))
		return err
	},
	"short round": func(api frontend.API, t *transcript.Transcript) error {
		_, _, err := Verify(api, t, 1, 2, PlaceholderProof(1, 1))
		return err
	},
	"no instance": func(api frontend.API, t *transcript.Transcript) error {
		_, err := VerifyBatch(api, t, nil, PlaceholderProof(1, 2))
		return err
	},
	"no term": func(api frontend.API, t *transcript.Transcript) error {
		_, err := VerifyBatch(api, t, []Instance{{Sum: 1}}, PlaceholderProof(1, 2))
		return err
	},
	"no factor": func(api frontend.API, t *transcript.Transcript) error {
		_, err := VerifyBatch(api, t, []Instance{{Terms: []Term{{Coefficient: 1}}, Sum: 1}}, PlaceholderProof(1, 2))
		return err
	},
	"negative offset": func(api frontend.API, t *transcript.Transcript) error {
		_, err := VerifyBatch(api, t, []Instance{{Terms: square, Sum: 1, Offset: -1}}, PlaceholderProof(1, 2))
		return err
	},
	"offset beyond the variables": func(api frontend.API, t *transcript.Transcript) error {
		_, err := VerifyBatch(api, t, []Instance{{Terms: square, Sum: 1, Offset: 2}}, PlaceholderProof(1, 2))
		return err
	},
	"factor out of range": func(api frontend.API, t *transcript.Transcript) error {
		_, err := EvaluateTerms(api, square, nil)
		return err
	},
	"weights mismatch": func(api frontend.API, t *transcript.Transcript) error {
		return AssertEvaluations(api, FinalClaim{}, []Instance{{Terms: square, Sum: 1}}, []frontend.Variable{1})
	},
	"missing values": func(api frontend.API, t *transcript.Transcript) error {
		return AssertEvaluations(api, FinalClaim{Weights: []frontend.Variable{1}, Value: 1}, []Instance{{Terms: square, Sum: 1}}, nil)
	},
	"no claim": func(api frontend.API, t *transcript.Transcript) error {
		_, err := VerifySamePoly(api, t, nil, PlaceholderSamePolyProof(1))
		return err
	},
	"points of different sizes": func(api frontend.API, t *transcript.Transcript) error {
		claims := []poly.Claim{{Point: []frontend.Variable{1}, Value: 1}, {Point: []frontend.Variable{1, 2}, Value: 1}}
		_, err := VerifySamePoly(api, t, claims, PlaceholderSamePolyProof(1))
		return err
	},
	"rounds mismatch": func(api frontend.API, t *transcript.Transcript) error {
		claims := []poly.Claim{{Point: []frontend.Variable{1}, Value: 1}}
		_, err := VerifySamePoly(api, t, claims, PlaceholderSamePolyProof(2))
		return err
	},
}

func TestInputErrors(t *testing.T) {
	if err := test.IsSolved(&callCircuit{}, &callCircuit{X: 0}, ecc.BN254.ScalarField()); err != nil {
		t.Fatalf("control: %v", err)
	}
	for name := range errorCases {
		if err := test.IsSolved(&callCircuit{name: name}, &callCircuit{X: 0, name: name}, ecc.BN254.ScalarField()); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
