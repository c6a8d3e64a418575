package sumcheck_test

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/sumcheck"
	nativetranscript "github.com/veriformer/veriformer/transcript"
)

// productCircuit checks a proof of Σ_x f(x)·g(x) = Sum and the values of
// f and g at the final point.
type productCircuit struct {
	Sum    frontend.Variable
	Proof  sumcheck.Proof
	Values [2]frontend.Variable
}

func (c *productCircuit) Define(api frontend.API) error {
	t, err := transcript.New(api, "example")
	if err != nil {
		return err
	}
	instances := []sumcheck.Instance{{Terms: []sumcheck.Term{{Coefficient: 1, Factors: []int{0, 1}}}, Sum: c.Sum}}
	final, err := sumcheck.VerifyBatch(api, t, instances, c.Proof)
	if err != nil {
		return err
	}
	return sumcheck.AssertEvaluations(api, final, instances, c.Values[:])
}

// Prove Σ_x f(x)·g(x) natively and verify it in a circuit.
func ExampleVerifyBatch() {
	f, g := make([]fr.Element, 8), make([]fr.Element, 8)
	for i := range f {
		f[i] = field.FromInt64[fr.Element](int64(i))
		g[i] = field.FromInt64[fr.Element](int64(10 - i))
	}
	terms := []native.Term[fr.Element]{{Coefficient: field.One[fr.Element](), Factors: []int{0, 1}}}
	sum := field.InnerProduct(f, g)
	proof, opening, err := native.Prove(nativetranscript.New[fr.Element]("example"), [][]fr.Element{f, g}, terms, sum)
	if err != nil {
		fmt.Println(err)
		return
	}

	circuit := &productCircuit{Proof: sumcheck.PlaceholderProof(3, 2)}
	assignment := &productCircuit{
		Sum:    sum.String(),
		Proof:  sumcheck.ValueOfProof(&proof),
		Values: [2]frontend.Variable{opening.Evaluations[0].String(), opening.Evaluations[1].String()},
	}
	err = test.IsSolved(circuit, assignment, fr.Modulus())
	fmt.Println("accepted:", err == nil)
	// Output: accepted: true
}
