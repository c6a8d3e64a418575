package sumcheck

import (
	"errors"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"testing"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

const testDomain = "veriformer/sumcheck/test"

func newTestRand(t testing.TB) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// bruteSum returns Σ_x Σ_k c_k ∏ⱼ f_j(x) by direct evaluation on the cube
// of the terms' tables (which all have the size of the first factor).
func bruteSum[E field.Scalar, P field.Ptr[E]](tables [][]E, terms []Term[E]) E {
	var sum E
	size := len(tables[terms[0].Factors[0]])
	values := make([]E, len(tables))
	for x := range size {
		for j := range tables {
			if len(tables[j]) == size {
				values[j] = tables[j][x]
			}
		}
		v, err := EvaluateTerms[E, P](terms, values)
		if err != nil {
			panic(err)
		}
		P(&sum).Add(&sum, &v)
	}
	return sum
}

// randomBatch returns tables and 1 to 3 instances over nbVars variables:
// instance 0 has offset 0 and a term of degree exactly degree, the others
// random offsets (when withOffsets) and terms of degree 1 to degree;
// instances with the same offset share tables.
func randomBatch[E field.Scalar, P field.Ptr[E]](rng *rand.Rand, nbVars, degree int, withOffsets bool) ([][]E, []Instance[E]) {
	var tables [][]E
	groups := map[int][]int{} // offset → table indices
	instances := make([]Instance[E], 1+rng.IntN(3))
	for k := range instances {
		offset := 0
		if k > 0 && withOffsets {
			offset = rng.IntN(nbVars + 1)
		}
		if groups[offset] == nil {
			for range 1 + rng.IntN(3) {
				groups[offset] = append(groups[offset], len(tables))
				tables = append(tables, field.RandomVector[E, P](rng, 1<<(nbVars-offset)))
			}
		}
		group := groups[offset]
		terms := make([]Term[E], 1+rng.IntN(3))
		for i := range terms {
			d := degree
			if k > 0 || i > 0 {
				d = 1 + rng.IntN(degree)
			}
			factors := make([]int, d)
			for f := range factors {
				factors[f] = group[rng.IntN(len(group))]
			}
			terms[i] = Term[E]{Coefficient: field.Random[E, P](rng), Factors: factors}
		}
		instances[k] = Instance[E]{Terms: terms, Sum: bruteSum[E, P](tables, terms), Offset: offset}
	}
	return tables, instances
}

func TestProveVerifyRandom(t *testing.T) {
	t.Run("bn254", testProveVerifyRandom[bn254fr.Element])
	t.Run("bls12-377", testProveVerifyRandom[bls12377fr.Element])
}

func testProveVerifyRandom[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := newTestRand(t)
	for iter := range 64 {
		nbVars := rng.IntN(8)
		degree := 1 + iter%8
		tables, instances := randomBatch[E, P](rng, nbVars, degree, iter%3 != 0)
		originals := make([][]E, len(tables))
		for j := range tables {
			originals[j] = append([]E(nil), tables[j]...)
		}
		statement := field.RandomVector[E, P](rng, 2)
		proof, opening, err := ProveBatch(transcript.New[E, P](testDomain, statement...), tables, instances)
		if err != nil {
			t.Fatalf("iteration %d: prove: %v", iter, err)
		}
		for j := range tables {
			for x := range tables[j] {
				if tables[j][x] != originals[j][x] {
					t.Fatalf("iteration %d: prover changed table %d", iter, j)
				}
			}
			tableVars := bits.TrailingZeros(uint(len(tables[j])))
			want := poly.Evaluate[E, P](tables[j], opening.Point[nbVars-tableVars:])
			if opening.Evaluations[j] != want {
				t.Fatalf("iteration %d: evaluation %d is not the table at the point", iter, j)
			}
		}
		final, err := VerifyBatch(transcript.New[E, P](testDomain, statement...), instances, nbVars, proof)
		if err != nil {
			t.Fatalf("iteration %d (n=%d, d=%d): verify: %v", iter, nbVars, degree, err)
		}
		if len(final.Point) != nbVars {
			t.Fatalf("iteration %d: point has %d coordinates", iter, len(final.Point))
		}
		for i := range final.Point {
			if final.Point[i] != opening.Point[i] {
				t.Fatalf("iteration %d: prover and verifier points differ at %d", iter, i)
			}
		}
		if err := CheckEvaluations[E, P](&final, instances, opening.Evaluations); err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		// A wrong sum must be caught by the rounds or the final check.
		one := field.One[E, P]()
		for k := range instances {
			wrong := append([]Instance[E](nil), instances...)
			P(&wrong[k].Sum).Add(&wrong[k].Sum, &one)
			if err := rejects(transcript.New[E, P](testDomain, statement...), wrong, nbVars, proof, opening.Evaluations); err != nil {
				t.Fatalf("iteration %d: wrong sum %d (offset %d): %v", iter, k, instances[k].Offset, err)
			}
		}
	}
}

// rejects returns nil when the verifier rejects the proof of instances
// with the given factor values, an error describing the acceptance
// otherwise.
func rejects[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], instances []Instance[E], nbVars int, proof Proof[E], values []E) error {
	final, err := VerifyBatch(t, instances, nbVars, proof)
	if err != nil {
		if !errors.Is(err, ErrRejected) {
			return err
		}
		return nil
	}
	if err := CheckEvaluations[E, P](&final, instances, values); err == nil {
		return errors.New("accepted")
	} else if !errors.Is(err, ErrRejected) {
		return err
	}
	return nil
}

func TestSamePolyRandom(t *testing.T) {
	t.Run("bn254", testSamePolyRandom[bn254fr.Element])
	t.Run("bls12-377", testSamePolyRandom[bls12377fr.Element])
}

func testSamePolyRandom[E field.Scalar, P field.Ptr[E]](t *testing.T) {
	rng := newTestRand(t)
	for iter := range 20 {
		nbVars := rng.IntN(7)
		nbClaims := 1 + rng.IntN(4)
		table := field.RandomVector[E, P](rng, 1<<nbVars)
		claims := make([]poly.Claim[E], nbClaims)
		for i := range claims {
			claims[i].Point = field.RandomVector[E, P](rng, nbVars)
			claims[i].Value = poly.Evaluate[E, P](table, claims[i].Point)
		}
		proof, claim, err := ProveSamePoly(transcript.New[E, P](testDomain), table, claims)
		if err != nil {
			t.Fatalf("iteration %d: prove: %v", iter, err)
		}
		if got := poly.Evaluate[E, P](table, claim.Point); got != claim.Value || claim.Value != proof.Evaluation {
			t.Fatalf("iteration %d: accumulated evaluation is not the table at the point", iter)
		}
		verified, err := VerifySamePoly(transcript.New[E, P](testDomain), claims, proof)
		if err != nil {
			t.Fatalf("iteration %d: verify: %v", iter, err)
		}
		if !reflect.DeepEqual(verified, claim) {
			t.Fatalf("iteration %d: prover and verifier claims differ", iter)
		}
		one := field.One[E, P]()
		for i := range claims {
			tampered := append([]poly.Claim[E](nil), claims...)
			P(&tampered[i].Value).Add(&tampered[i].Value, &one)
			if _, err := VerifySamePoly(transcript.New[E, P](testDomain), tampered, proof); !errors.Is(err, ErrRejected) {
				t.Fatalf("iteration %d: tampered value %d: got %v", iter, i, err)
			}
		}
	}
}

func TestInputErrors(t *testing.T) {
	type E = bn254fr.Element
	one := field.One[E]()
	tr := func() *transcript.Transcript[E, *E] { return transcript.New[E](testDomain) }
	square := []Term[E]{{Coefficient: one, Factors: []int{0, 0}}}
	cases := []struct {
		name   string
		tables [][]E
		terms  []Term[E]
	}{
		{"no table", nil, square},
		{"empty table", [][]E{{}}, square},
		{"length 3", [][]E{make([]E, 3)}, square},
		{"lengths differ", [][]E{make([]E, 4), make([]E, 2)}, []Term[E]{{Coefficient: one, Factors: []int{0, 1}}}},
		{"no term", [][]E{make([]E, 4)}, nil},
		{"no factor", [][]E{make([]E, 4)}, []Term[E]{{Coefficient: one}}},
		{"factor out of range", [][]E{make([]E, 4)}, []Term[E]{{Coefficient: one, Factors: []int{1}}}},
		{"negative factor", [][]E{make([]E, 4)}, []Term[E]{{Coefficient: one, Factors: []int{-1}}}},
	}
	for _, c := range cases {
		if _, _, err := Prove(tr(), c.tables, c.terms, one); err == nil {
			t.Errorf("%s: Prove accepted", c.name)
		}
	}
	tables := [][]E{make([]E, 4), make([]E, 2)}
	for _, offset := range []int{-1, 3, 0} {
		instances := []Instance[E]{{Terms: square, Sum: one}, {Terms: []Term[E]{{Coefficient: one, Factors: []int{1}}}, Offset: offset}}
		if _, _, err := ProveBatch(tr(), tables, instances); err == nil {
			t.Errorf("ProveBatch accepted offset %d for a table of 2 entries out of 4", offset)
		}
		if offset != 0 {
			if _, err := VerifyBatch(tr(), instances, 2, Proof[E]{Rounds: make([][]E, 2)}); err == nil || errors.Is(err, ErrRejected) {
				t.Errorf("VerifyBatch with offset %d: %v", offset, err)
			}
		}
	}
	if _, _, err := Verify(tr(), one, 0, 2, Proof[E]{Rounds: make([][]E, 2)}); err == nil {
		t.Error("Verify accepted degree 0")
	}
	if _, _, err := Verify(tr(), one, 2, 3, Proof[E]{Rounds: make([][]E, 2)}); !errors.Is(err, ErrRejected) {
		t.Errorf("Verify with a missing round: %v", err)
	}
	if _, _, err := Verify(tr(), one, 2, 1, Proof[E]{Rounds: [][]E{make([]E, 3)}}); !errors.Is(err, ErrRejected) {
		t.Errorf("Verify with a long round: %v", err)
	}
	if _, _, err := ProveSamePoly(tr(), make([]E, 4), nil); err == nil {
		t.Error("ProveSamePoly accepted no claim")
	}
	if _, _, err := ProveSamePoly(tr(), make([]E, 4), []poly.Claim[E]{{Point: make([]E, 2)}, {Point: make([]E, 1)}}); err == nil {
		t.Error("ProveSamePoly accepted points of different sizes")
	}
	if _, _, err := ProveSamePoly(tr(), make([]E, 8), []poly.Claim[E]{{Point: make([]E, 2)}}); err == nil {
		t.Error("ProveSamePoly accepted a table of the wrong size")
	}
	if _, err := VerifySamePoly(tr(), nil, SamePolyProof[E]{}); err == nil {
		t.Error("VerifySamePoly accepted no claim")
	}
	if _, err := VerifySamePoly(tr(), []poly.Claim[E]{{Point: make([]E, 2)}}, SamePolyProof[E]{}); !errors.Is(err, ErrRejected) {
		t.Errorf("VerifySamePoly with missing rounds: %v", err)
	}
	final := FinalClaim[E]{Weights: []E{one}}
	if err := CheckEvaluations[E](&final, []Instance[E]{{Terms: square}}, nil); err == nil || errors.Is(err, ErrRejected) {
		t.Errorf("CheckEvaluations with missing values: %v", err)
	}
	if err := CheckEvaluations[E](&final, nil, nil); err == nil {
		t.Error("CheckEvaluations accepted a weight count mismatch")
	}
}

func TestInterpolate(t *testing.T) {
	type E = bls12377fr.Element
	rng := newTestRand(t)
	for d := 1; d <= 8; d++ {
		coefficients := field.RandomVector[E](rng, d+1)
		at := func(x *E) E {
			var y E
			for i := d; i >= 0; i-- {
				y.Mul(&y, x)
				y.Add(&y, &coefficients[i])
			}
			return y
		}
		values := make([]E, d+1)
		for i := range values {
			x := field.FromInt64[E](int64(i))
			values[i] = at(&x)
		}
		r := field.Random[E](rng)
		want := at(&r)
		if got := interpolate[E](values, &r, lagrangeWeights[E](d)); got != want {
			t.Fatalf("degree %d: interpolation differs", d)
		}
	}
}
