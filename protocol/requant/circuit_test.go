package requant_test

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/requant"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/requant"
)

// The circuit half of the twin tests: gadgets/requant imports this package,
// so it runs from the external test package.

type circuit struct {
	spec     requant.Spec `gnark:"-"`
	idx      []int        `gnark:"-"`
	Out, Rem []frontend.Variable
	Point    []frontend.Variable
	Acc      frontend.Variable `gnark:",public"`
}

func (c *circuit) Define(api frontend.API) error {
	acc, err := gadget.EvaluateAcc(api, &c.spec, c.Out, c.Rem, c.idx, c.Point)
	if err != nil {
		return err
	}
	api.AssertIsEqual(acc, c.Acc)
	return nil
}

// TestCircuit: the circuit accepts the honest tensors with the native
// accumulator value, and rejects a changed output and a wrong value.
func TestCircuit(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	shape := []int{3, 5}
	s, _, out, rem := requant.Instance(t, rng, shape, true)
	idx, _ := poly.PaddedIndices(shape)
	_, total, _ := poly.TensorVars(shape)
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377} {
		var accValue string
		var point []string
		if curve == ecc.BN254 {
			accValue, point = nativeAcc[bn254fr.Element](t, rng, &s, out, rem, total)
		} else {
			accValue, point = nativeAcc[bls12377fr.Element](t, rng, &s, out, rem, total)
		}
		assign := func(out, rem []int64, acc string) *circuit {
			c := &circuit{spec: s, idx: idx, Acc: acc}
			for i := range out {
				c.Out = append(c.Out, out[i])
				c.Rem = append(c.Rem, rem[i])
			}
			for _, p := range point {
				c.Point = append(c.Point, p)
			}
			return c
		}
		bigOut := append([]int64(nil), out...)
		bigOut[0] = 1 << 16
		placeholder := &circuit{spec: s, idx: idx, Out: make([]frontend.Variable, len(out)), Rem: make([]frontend.Variable, len(out)), Point: make([]frontend.Variable, total)}
		test.NewAssert(t).CheckCircuit(placeholder,
			test.WithValidAssignment(assign(out, rem, accValue)),
			test.WithInvalidAssignment(assign(bigOut, rem, accValue)),
			test.WithInvalidAssignment(assign(out, rem, "1")),
			test.WithCurves(curve), test.WithBackends(backend.GROTH16), test.NoFuzzing(), test.NoSerializationChecks())
	}
}

func nativeAcc[E field.Scalar, P field.Ptr[E]](t *testing.T, rng *rand.Rand, s *requant.Spec, out, rem []int64, total int) (string, []string) {
	point := field.RandomVector[E, P](rng, total)
	v, err := requant.EvaluateAcc[E, P](s, out, rem, point)
	if err != nil {
		t.Fatal(err)
	}
	ps := make([]string, len(point))
	for i := range point {
		ps[i] = P(&point[i]).String()
	}
	return P(&v).String(), ps
}
