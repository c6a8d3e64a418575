package transcript

import (
	"math/big"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/test"

	native "github.com/veriformer/veriformer/transcript"
)

// vectorCircuit replays a golden vector: statement and absorbed elements
// are private witnesses, the expected challenges and final state public.
type vectorCircuit struct {
	domain     string   `gnark:"-"`
	labels     []string `gnark:"-"`
	Statement  []frontend.Variable
	Absorb     [][]frontend.Variable
	Challenges [][]frontend.Variable `gnark:",public"`
	Final      frontend.Variable     `gnark:",public"`
}

func (c *vectorCircuit) Define(api frontend.API) error {
	tr, err := New(api, c.domain, c.Statement...)
	if err != nil {
		return err
	}
	for i := range c.Absorb {
		if c.labels[i] != "" {
			tr.Label(c.labels[i])
		}
		tr.Absorb(c.Absorb[i]...)
		for _, want := range c.Challenges[i] {
			api.AssertIsEqual(tr.Challenge(), want)
		}
	}
	api.AssertIsEqual(tr.State(), c.Final)
	return nil
}

func vars(ss []string) []frontend.Variable {
	out := make([]frontend.Variable, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func circuitsOf(v *native.Vector) (placeholder, assignment *vectorCircuit) {
	placeholder = &vectorCircuit{domain: v.Domain, Statement: make([]frontend.Variable, len(v.Statement))}
	assignment = &vectorCircuit{domain: v.Domain, Statement: vars(v.Statement), Final: v.Final}
	for _, s := range v.Steps {
		placeholder.labels = append(placeholder.labels, s.Label)
		placeholder.Absorb = append(placeholder.Absorb, make([]frontend.Variable, len(s.Absorb)))
		placeholder.Challenges = append(placeholder.Challenges, make([]frontend.Variable, len(s.Challenges)))
		assignment.labels = append(assignment.labels, s.Label)
		assignment.Absorb = append(assignment.Absorb, vars(s.Absorb))
		assignment.Challenges = append(assignment.Challenges, vars(s.Challenges))
	}
	return placeholder, assignment
}

// TestGoldenVectors checks that the circuit derives the native challenges of
// the shared vectors, and that changing any statement element, absorbed
// element or expected challenge makes the circuit unsatisfiable.
func TestGoldenVectors(t *testing.T) {
	vs, err := native.ReadVectors("../../transcript/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	curves := map[string]ecc.ID{"bn254": ecc.BN254, "bls12-377": ecc.BLS12_377}
	for _, v := range vs {
		curve := curves[v.Field]
		t.Run(v.Field, func(t *testing.T) {
			assert := test.NewAssert(t)
			placeholder, valid := circuitsOf(&v)
			opts := []test.TestingOption{
				test.WithValidAssignment(valid),
				test.WithCurves(curve), test.WithBackends(backend.GROTH16),
				test.NoFuzzing(), test.NoSerializationChecks(),
			}
			// One tampered assignment per position.
			tamper := func(s string) string {
				b, _ := new(big.Int).SetString(s, 10)
				return b.Add(b, big.NewInt(1)).String()
			}
			for i := range v.Statement {
				w := v
				w.Statement = append([]string(nil), v.Statement...)
				w.Statement[i] = tamper(w.Statement[i])
				_, bad := circuitsOf(&w)
				bad.Challenges = valid.Challenges
				opts = append(opts, test.WithInvalidAssignment(bad))
			}
			for i := range v.Steps {
				for j := range v.Steps[i].Absorb {
					_, bad := circuitsOf(&v)
					bad.Absorb[i] = append([]frontend.Variable(nil), bad.Absorb[i]...)
					bad.Absorb[i][j] = tamper(v.Steps[i].Absorb[j])
					opts = append(opts, test.WithInvalidAssignment(bad))
				}
				for j := range v.Steps[i].Challenges {
					_, bad := circuitsOf(&v)
					bad.Challenges[i] = append([]frontend.Variable(nil), bad.Challenges[i]...)
					bad.Challenges[i][j] = tamper(v.Steps[i].Challenges[j])
					opts = append(opts, test.WithInvalidAssignment(bad))
				}
			}
			assert.CheckCircuit(placeholder, opts...)
		})
	}
}

type absorbCircuit struct {
	N int
	X []frontend.Variable
}

func (c *absorbCircuit) Define(api frontend.API) error {
	tr, err := Resume(api, c.X[0])
	if err != nil {
		return err
	}
	tr.Absorb(c.X[1:]...)
	api.AssertIsDifferent(tr.State(), 0)
	return nil
}

// TestConstraintCounts pins the cost of one absorb (= one challenge) on both
// curves.
func TestConstraintCounts(t *testing.T) {
	want := map[ecc.ID]int{ecc.BN254: 186, ecc.BLS12_377: 190}
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		count := func(n int) int {
			cs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &absorbCircuit{X: make([]frontend.Variable, n+1)})
			if err != nil {
				t.Fatal(err)
			}
			return cs.GetNbConstraints()
		}
		per := count(11) - count(1)
		if per%10 != 0 {
			t.Fatalf("%s: 10 absorbs cost %d constraints", curve, per)
		}
		t.Logf("%s: %d R1CS constraints per absorb or challenge", curve, per/10)
		if per/10 != want[curve] {
			t.Errorf("%s: %d constraints per absorb, snapshot says %d", curve, per/10, want[curve])
		}
	}
}
