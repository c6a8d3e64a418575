package sumcheck_test

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// Prove and verify Σ_x f(x)·g(x) + 2·f(x) over two variables.
func ExampleProve() {
	f := []fr.Element{field.FromInt64[fr.Element](1), field.FromInt64[fr.Element](2), field.FromInt64[fr.Element](3), field.FromInt64[fr.Element](4)}
	g := []fr.Element{field.FromInt64[fr.Element](5), field.FromInt64[fr.Element](6), field.FromInt64[fr.Element](7), field.FromInt64[fr.Element](8)}
	terms := []sumcheck.Term[fr.Element]{
		{Coefficient: field.FromInt64[fr.Element](1), Factors: []int{0, 1}},
		{Coefficient: field.FromInt64[fr.Element](2), Factors: []int{0}},
	}
	sum := field.FromInt64[fr.Element](1*5 + 2*6 + 3*7 + 4*8 + 2*(1+2+3+4))

	proof, opening, err := sumcheck.Prove(transcript.New[fr.Element]("example"), [][]fr.Element{f, g}, terms, sum)
	if err != nil {
		fmt.Println(err)
		return
	}

	instances := []sumcheck.Instance[fr.Element]{{Terms: terms, Sum: sum}}
	final, err := sumcheck.VerifyBatch(transcript.New[fr.Element]("example"), instances, 2, proof)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The caller sends (and absorbs) the factor values; here, taken from
	// the prover's opening.
	err = sumcheck.CheckEvaluations[fr.Element](&final, instances, opening.Evaluations)
	fmt.Println(len(proof.Rounds), "rounds of", len(proof.Rounds[0]), "values, accepted:", err == nil)
	// Output: 2 rounds of 2 values, accepted: true
}
