package sumcheck

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/sumcheck"
)

// Proof holds the round values of a sum-check proof: Rounds[i] = (pᵢ(0),
// pᵢ(2), …, pᵢ(d)), the same layout as the native proof.
type Proof struct {
	Rounds [][]frontend.Variable
}

// PlaceholderProof returns a proof of nbVars rounds of degree-d round
// polynomials, to size a circuit.
func PlaceholderProof(nbVars, degree int) Proof {
	rounds := make([][]frontend.Variable, nbVars)
	for i := range rounds {
		rounds[i] = make([]frontend.Variable, degree)
	}
	return Proof{Rounds: rounds}
}

// ValueOfProof returns the assignment of a native proof.
func ValueOfProof[E field.Scalar](p *native.Proof[E]) Proof {
	out := make([][]frontend.Variable, len(p.Rounds))
	for i, round := range p.Rounds {
		out[i] = poly.ValuesOf(round)
	}
	return Proof{Rounds: out}
}

// Term is one product c · ∏ⱼ f_{Factors[j]} of a summand; Factors index the
// factor values given to [EvaluateTerms] and [AssertEvaluations].
type Term struct {
	Coefficient frontend.Variable
	Factors     []int
}

// Instance is one claim Σ_{x ∈ {0,1}ⁿ⁻ᵒ} Σ_k Terms[k](x) = Sum, o = Offset:
// in a batch over n variables, an instance with offset o does not depend
// on X₁, …, X_o and its factors are opened at (r_{o+1}, …, rₙ), the last
// n − o coordinates of the final point.
type Instance struct {
	Terms  []Term
	Sum    frontend.Variable
	Offset int
}

// FinalClaim is the verifier's state at the end: Σ_k Weights[k] · g_k(Point)
// must equal Value.
type FinalClaim struct {
	Point   []frontend.Variable
	Value   frontend.Variable
	Weights []frontend.Variable
}

// Degree returns the largest number of factors of a term of the batch.
func Degree(instances []Instance) int {
	d := 0
	for _, inst := range instances {
		for _, term := range inst.Terms {
			d = max(d, len(term.Factors))
		}
	}
	return d
}

// Verify checks the rounds of a one-instance proof of Σ_x g(x) = claim in
// the order of the native verifier: absorb claim, then per round absorb
// the d values and draw the challenge. It returns the point and the value
// g must take there. A degree-d round costs d multiplications besides the
// transcript.
func Verify(api frontend.API, t *transcript.Transcript, claim frontend.Variable, degree int, proof Proof) ([]frontend.Variable, frontend.Variable, error) {
	t.Absorb(claim)
	return verifyRounds(api, t, claim, degree, proof)
}

// VerifyBatch checks a batched proof: it absorbs the instance sums, draws
// λ when there is more than one instance and checks the rounds of
// Σ_k λᵏ·2^{o_k}·H_k (o_k the offset of instance k).
func VerifyBatch(api frontend.API, t *transcript.Transcript, instances []Instance, proof Proof) (FinalClaim, error) {
	if len(instances) == 0 {
		return FinalClaim{}, errors.New("sumcheck: no instance")
	}
	for i, inst := range instances {
		if inst.Offset < 0 || inst.Offset > len(proof.Rounds) {
			return FinalClaim{}, fmt.Errorf("sumcheck: instance %d has offset %d, outside [0, %d]", i, inst.Offset, len(proof.Rounds))
		}
		if len(inst.Terms) == 0 {
			return FinalClaim{}, fmt.Errorf("sumcheck: instance %d has no term", i)
		}
		for k, term := range inst.Terms {
			if len(term.Factors) == 0 {
				return FinalClaim{}, fmt.Errorf("sumcheck: instance %d term %d has no factor", i, k)
			}
		}
	}
	sums := make([]frontend.Variable, len(instances))
	for k := range instances {
		sums[k] = instances[k].Sum
	}
	t.Absorb(sums...)
	weights := []frontend.Variable{1}
	if len(instances) > 1 {
		lambda := t.Challenge()
		for k := 1; k < len(instances); k++ {
			weights = append(weights, api.Mul(weights[k-1], lambda))
		}
	}
	// Σ_k λᵏ·2^{o_k}·H_k: an instance with offset o_k counts 2^{o_k} times.
	var claim frontend.Variable = 0
	for k, inst := range instances {
		scale := new(big.Int).Lsh(big.NewInt(1), uint(inst.Offset))
		claim = api.Add(claim, api.Mul(scale, api.Mul(weights[k], sums[k])))
	}
	point, value, err := verifyRounds(api, t, claim, Degree(instances), proof)
	if err != nil {
		return FinalClaim{}, err
	}
	return FinalClaim{Point: point, Value: value, Weights: weights}, nil
}

// verifyRounds checks the rounds against a claim bound to the transcript.
func verifyRounds(api frontend.API, t *transcript.Transcript, claim frontend.Variable, degree int, proof Proof) ([]frontend.Variable, frontend.Variable, error) {
	if degree < 1 {
		return nil, nil, fmt.Errorf("sumcheck: degree %d < 1", degree)
	}
	basis := monomialBasis(api.Compiler().Field(), degree)
	point := make([]frontend.Variable, len(proof.Rounds))
	values := make([]frontend.Variable, degree+1)
	for i, sent := range proof.Rounds {
		if len(sent) != degree {
			return nil, nil, fmt.Errorf("sumcheck: round %d has %d values, want %d", i, len(sent), degree)
		}
		t.Absorb(sent...)
		r := t.Challenge()
		point[i] = r
		values[0] = sent[0]
		values[1] = api.Sub(claim, sent[0])
		copy(values[2:], sent[1:])
		claim = evaluateAt(api, basis, values, r)
	}
	return point, claim, nil
}

// monomialBasis returns the matrix M with M[k][i] = the coefficient of Xᵏ
// in the Lagrange polynomial Lᵢ(X) = ∏_{j ≠ i} (X − j)/(i − j) on the
// nodes 0, …, d, reduced modulo the circuit field: the coefficients of p
// are constant linear combinations of its values, free in R1CS.
func monomialBasis(modulus *big.Int, degree int) [][]*big.Int {
	m := make([][]*big.Int, degree+1)
	for k := range m {
		m[k] = make([]*big.Int, degree+1)
	}
	for i := 0; i <= degree; i++ {
		// numerator ∏_{j ≠ i} (X − j), coefficients low degree first
		numerator := []*big.Int{big.NewInt(1)}
		denominator := big.NewInt(1)
		for j := 0; j <= degree; j++ {
			if j == i {
				continue
			}
			next := make([]*big.Int, len(numerator)+1)
			for k := range next {
				next[k] = new(big.Int)
			}
			for k, c := range numerator {
				next[k+1].Add(next[k+1], c)
				next[k].Sub(next[k], new(big.Int).Mul(c, big.NewInt(int64(j))))
			}
			numerator = next
			denominator.Mul(denominator, big.NewInt(int64(i-j)))
		}
		inverse := new(big.Int).ModInverse(denominator.Mod(denominator, modulus), modulus)
		for k, c := range numerator {
			m[k][i] = new(big.Int).Mul(c, inverse)
			m[k][i].Mod(m[k][i], modulus)
		}
	}
	return m
}

// evaluateAt returns p(r) from p(0), …, p(d): coefficients by the constant
// matrix, then Horner, one multiplication per degree.
func evaluateAt(api frontend.API, basis [][]*big.Int, values []frontend.Variable, r frontend.Variable) frontend.Variable {
	coefficient := func(k int) frontend.Variable {
		var c frontend.Variable = 0
		for i, v := range values {
			if basis[k][i].Sign() != 0 {
				c = api.Add(c, api.Mul(basis[k][i], v))
			}
		}
		return c
	}
	d := len(values) - 1
	acc := coefficient(d)
	for k := d - 1; k >= 0; k-- {
		acc = api.Add(coefficient(k), api.Mul(r, acc))
	}
	return acc
}

// EvaluateTerms returns Σ_k c_k · ∏ⱼ values[Factors_k[j]].
func EvaluateTerms(api frontend.API, terms []Term, values []frontend.Variable) (frontend.Variable, error) {
	var sum frontend.Variable = 0
	for k, term := range terms {
		prod := term.Coefficient
		for _, j := range term.Factors {
			if j < 0 || j >= len(values) {
				return nil, fmt.Errorf("sumcheck: term %d: factor %d out of range [0, %d)", k, j, len(values))
			}
			prod = api.Mul(prod, values[j])
		}
		sum = api.Add(sum, prod)
	}
	return sum, nil
}

// AssertEvaluations constrains Σ_k Weights[k] · g_k(values) = Value, with
// values[j] the claimed value of factor j at the final point.
func AssertEvaluations(api frontend.API, c FinalClaim, instances []Instance, values []frontend.Variable) error {
	if len(c.Weights) != len(instances) {
		return fmt.Errorf("sumcheck: %d weights for %d instances", len(c.Weights), len(instances))
	}
	var sum frontend.Variable = 0
	for k := range instances {
		g, err := EvaluateTerms(api, instances[k].Terms, values)
		if err != nil {
			return fmt.Errorf("sumcheck: instance %d: %w", k, err)
		}
		sum = api.Add(sum, api.Mul(c.Weights[k], g))
	}
	api.AssertIsEqual(sum, c.Value)
	return nil
}
