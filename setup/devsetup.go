package setup

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	csbls12377 "github.com/consensys/gnark/constraint/bls12-377"
	csbn254 "github.com/consensys/gnark/constraint/bn254"
	csbw6761 "github.com/consensys/gnark/constraint/bw6-761"

	"github.com/veriformer/veriformer/internal/comb"
)

// DevelopmentKeys returns development Groth16 keys of ccs, made in this
// process and not cached (the package documentation, "Development
// keys"): for tests and benchmarks that need real keys of a circuit
// they compile themselves, such as the tests of package recursion.
// Whoever calls it can forge proofs.
func DevelopmentKeys(ccs constraint.ConstraintSystem) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	return developmentSetup(ccs)
}

// developmentSetup returns Groth16 keys of ccs from toxic waste drawn in
// this process: the keys groth16.Setup makes, of the same layout (the
// points of A and B at infinity left out and marked, Z's points in
// bit-reversed order, K split between the public inputs and
// commitments, the private wires and each commitment's Pedersen basis),
// but with every point a product of the generator computed by a
// fixed-base comb (internal/comb) rather than by a double-and-add of its
// own: five to ten times faster on the sizes of this project. The
// Pedersen keys' G2 point is [γ]₂ on every curve, as a ceremony gives
// ([commitOnGamma]).
func developmentSetup(ccs constraint.ConstraintSystem) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	switch r := ccs.(type) {
	case *csbn254.R1CS:
		return setupBN254(r)
	case *csbls12377.R1CS:
		return setupBLS12377(r)
	case *csbw6761.R1CS:
		return setupBW6761(r)
	}
	return nil, nil, fmt.Errorf("setup: development keys for a %T: want an R1CS over BN254, BLS12-377 or BW6-761", ccs)
}

// element is a pointer to a scalar field element of gnark-crypto (the
// fr.Element of every curve).
type element[E any] interface {
	*E
	Mul(*E, *E) *E
	Add(*E, *E) *E
	Sub(*E, *E) *E
	Double(*E) *E
	Inverse(*E) *E
	Set(*E) *E
	SetOne() *E
	SetUint64(uint64) *E
	SetRandom() (*E, error)
	IsZero() bool
	Exp(E, *big.Int) *E
}

// toxic is the secret of a development setup.
type toxic[E any] struct {
	t, alpha, beta, gamma, delta, gammaInv, deltaInv E
}

// scalarKeys are the exponents of a Groth16 key pair's points over the
// generators, in the key's layout.
type scalarKeys[E any] struct {
	tw toxic[E]
	// A and B without the wires whose point is at infinity, marked in
	// InfinityA and InfinityB.
	A, B                 []E
	InfinityA, InfinityB []bool
	// Z are the N powers tᶦ·Z(t)/δ, in natural order (their points are
	// put in bit-reversed order and the last dropped).
	Z []E
	// VK are the public inputs' and commitments', PK the private wires',
	// Commitments each commitment's private committed wires'.
	VK, PK      []E
	Commitments [][]E
}

// domainOf is what the setup reads of an FFT domain of N points.
type domainOf[E any] struct {
	N              int
	generator, inv E // ω and 1/N
}

// newScalarKeys draws the toxic waste and computes the exponents of
// every point of the keys of r (coefficients: r's coefficient table).
func newScalarKeys[E any, PE element[E]](r *constraint.System, it constraint.R1CIterator, coefficients []E, d domainOf[E]) (*scalarKeys[E], error) {
	var k scalarKeys[E]
	tw := &k.tw
	for _, x := range []*E{&tw.t, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta} {
		for PE(x).IsZero() {
			if _, err := PE(x).SetRandom(); err != nil {
				return nil, fmt.Errorf("setup: toxic waste: %w", err)
			}
		}
	}
	PE(&tw.gammaInv).Inverse(&tw.gamma)
	PE(&tw.deltaInv).Inverse(&tw.delta)

	nbPublic := r.GetNbPublicVariables()
	nbWires := r.NbInternalVariables + nbPublic + r.GetNbSecretVariables()
	nbConstraints := r.GetNbConstraints()

	// Lagrange polynomials of the domain at t: L₀ = (tᴺ − 1)/(N·(t − 1)),
	// Lⱼ₊₁ = ω·Lⱼ·(t − ωʲ)/(t − ωʲ⁺¹).
	diffs := make([]E, nbConstraints+1)
	var wj E
	PE(&wj).SetOne()
	for j := range diffs {
		PE(&diffs[j]).Sub(&tw.t, &wj)
		PE(&wj).Mul(&wj, &d.generator)
	}
	inverses := batchInvert[E, PE](diffs)
	var one, tN, L E
	PE(&one).SetOne()
	PE(&tN).Exp(tw.t, big.NewInt(int64(d.N)))
	PE(&L).Sub(&tN, &one)
	PE(&L).Mul(&L, &inverses[0])
	PE(&L).Mul(&L, &d.inv)

	A, B, C := make([]E, nbWires), make([]E, nbWires), make([]E, nbWires)
	accumulate := func(into []E, terms constraint.LinearExpression) {
		for _, term := range terms {
			res := &into[term.WireID()]
			var x E
			switch id := term.CoeffID(); id {
			case constraint.CoeffIdZero:
				continue
			case constraint.CoeffIdOne:
				PE(res).Add(res, &L)
				continue
			case constraint.CoeffIdMinusOne:
				PE(res).Sub(res, &L)
				continue
			case constraint.CoeffIdTwo:
				PE(&x).Double(&L)
			default:
				PE(&x).Mul(&coefficients[id], &L)
			}
			PE(res).Add(res, &x)
		}
	}
	j := 0
	for c := it.Next(); c != nil; c = it.Next() {
		accumulate(A, c.L)
		accumulate(B, c.R)
		accumulate(C, c.O)
		PE(&L).Mul(&L, &d.generator)
		PE(&L).Mul(&L, &diffs[j])
		PE(&L).Mul(&L, &inverses[j+1])
		j++
	}
	if j != nbConstraints {
		return nil, fmt.Errorf("setup: %d constraints iterated, the system has %d", j, nbConstraints)
	}

	// K: (β·Aᵢ + α·Bᵢ + Cᵢ)/γ for the public inputs, the commitments and
	// the private wires a commitment holds, /δ for the other wires.
	info, ok := r.CommitmentInfo.(constraint.Groth16Commitments)
	if !ok {
		return nil, fmt.Errorf("setup: commitments of type %T, not Groth16's", r.CommitmentInfo)
	}
	commitmentWires := info.CommitmentIndexes()
	privateCommitted := info.GetPrivateCommitted()
	owner := make([]int32, nbWires)
	for i := range owner {
		owner[i] = -1
	}
	k.Commitments = make([][]E, len(info))
	for c, wires := range privateCommitted {
		for _, w := range wires {
			owner[w] = int32(c)
		}
		k.Commitments[c] = make([]E, 0, len(wires))
	}
	isCommitment := make([]bool, nbWires)
	for _, w := range commitmentWires {
		isCommitment[w] = true
	}
	for i := range nbWires {
		var x, y E
		PE(&x).Mul(&A[i], &tw.beta)
		PE(&y).Mul(&B[i], &tw.alpha)
		PE(&x).Add(&x, &y)
		PE(&x).Add(&x, &C[i])
		switch {
		case i < nbPublic || isCommitment[i]:
			PE(&x).Mul(&x, &tw.gammaInv)
			k.VK = append(k.VK, x)
		case owner[i] >= 0:
			PE(&x).Mul(&x, &tw.gammaInv)
			k.Commitments[owner[i]] = append(k.Commitments[owner[i]], x)
		default:
			PE(&x).Mul(&x, &tw.deltaInv)
			k.PK = append(k.PK, x)
		}
	}

	// Z: tᶦ·(tᴺ − 1)/δ.
	k.Z = make([]E, d.N)
	var z E
	PE(&z).Sub(&tN, &one)
	PE(&z).Mul(&z, &tw.deltaInv)
	for i := range k.Z {
		k.Z[i] = z
		PE(&z).Mul(&z, &tw.t)
	}

	k.A, k.InfinityA = dropZeros[E, PE](A)
	k.B, k.InfinityB = dropZeros[E, PE](B)
	return &k, nil
}

// dropZeros returns the non-zero values of xs in order and marks the
// zero ones.
func dropZeros[E any, PE element[E]](xs []E) ([]E, []bool) {
	zero := make([]bool, len(xs))
	n := 0
	for i := range xs {
		if PE(&xs[i]).IsZero() {
			zero[i] = true
			continue
		}
		xs[n] = xs[i]
		n++
	}
	return xs[:n], zero
}

// count returns the number of true values.
func count(marks []bool) uint64 {
	n := uint64(0)
	for _, m := range marks {
		if m {
			n++
		}
	}
	return n
}

// batchInvert returns the inverses of xs (none zero) with one inversion.
func batchInvert[E any, PE element[E]](xs []E) []E {
	out := make([]E, len(xs))
	var acc E
	PE(&acc).SetOne()
	for i := range xs {
		out[i] = acc
		PE(&acc).Mul(&acc, &xs[i])
	}
	PE(&acc).Inverse(&acc)
	for i := len(xs) - 1; i >= 0; i-- {
		PE(&out[i]).Mul(&out[i], &acc)
		PE(&acc).Mul(&acc, &xs[i])
	}
	return out
}

// bitReverse permutes a (of a power-of-two length) to bit-reversed order.
func bitReverse[T any](a []T) {
	n := uint(len(a))
	if n < 2 {
		return
	}
	shift := uint(bits.UintSize - bits.TrailingZeros(n))
	for i := uint(0); i < n; i++ {
		if j := bits.Reverse(i) >> shift; j > i {
			a[i], a[j] = a[j], a[i]
		}
	}
}

// g1Exponents returns the exponents of the G1 points of the keys, in
// the order the [g1Points] methods read them: α, β, δ, A, B, Z, the
// verifying key's K, the proving key's K, each commitment's basis.
func (k *scalarKeys[E]) g1Exponents() []E {
	out := make([]E, 0, 3+len(k.A)+len(k.B)+len(k.Z)+len(k.VK)+len(k.PK)+len(k.Commitments)*8)
	out = append(out, k.tw.alpha, k.tw.beta, k.tw.delta)
	out = append(out, k.A...)
	out = append(out, k.B...)
	out = append(out, k.Z...)
	out = append(out, k.VK...)
	out = append(out, k.PK...)
	for _, c := range k.Commitments {
		out = append(out, c...)
	}
	return out
}

// g2Exponents returns the exponents of the G2 points of the keys: B, β,
// δ, γ.
func (k *scalarKeys[E]) g2Exponents() []E {
	return append(append(make([]E, 0, len(k.B)+3), k.B...), k.tw.beta, k.tw.delta, k.tw.gamma)
}

// g1Points cuts the G1 points computed from g1Exponents into the keys'
// lists; Z's points are put in bit-reversed order, the last dropped.
type g1Points[A any] struct {
	Alpha, Beta, Delta A
	A, B, Z, VK, PK    []A
	Commitments        [][]A
}

func cutG1[E, A any](k *scalarKeys[E], points []A) g1Points[A] {
	var p g1Points[A]
	p.Alpha, p.Beta, p.Delta = points[0], points[1], points[2]
	points = points[3:]
	take := func(n int) []A {
		out := points[:n:n]
		points = points[n:]
		return out
	}
	p.A, p.B = take(len(k.A)), take(len(k.B))
	z := take(len(k.Z))
	bitReverse(z)
	p.Z = z[:len(z)-1]
	p.VK, p.PK = take(len(k.VK)), take(len(k.PK))
	for _, c := range k.Commitments {
		p.Commitments = append(p.Commitments, take(len(c)))
	}
	return p
}

// devPoints draws the toxic waste of a development setup of r and
// returns the exponents, the G1 points (cut into the keys' lists) and the
// G2 points (B, then β, δ, γ): the steps every curve shares, over its
// types. The domain has n points, generator ω and 1/n = nInv;
// coefficients is r's coefficient table; generators, nbBits, wordsOf
// (an element's canonical words) and the affine conversions are the
// curve's.
func devPoints[E, G1, G1J, G2, G2J any, PE element[E], PJ1 comb.Jacobian[G1J, G1], PJ2 comb.Jacobian[G2J, G2]](
	r *constraint.System, n uint64, generator, nInv E, coefficients []E,
	generators func() (G1J, G2J, G1, G2), nbBits int, wordsOf func(*E) []uint64,
	g1Affine func([]G1J) []G1, g2Affine func([]G2J) []G2,
) (*scalarKeys[E], g1Points[G1], []G2, error) {
	k, err := newScalarKeys[E, PE](r, r.GetR1CIterator(), coefficients, domainOf[E]{N: int(n), generator: generator, inv: nInv})
	if err != nil {
		return nil, g1Points[G1]{}, nil, err
	}
	var zero E
	words := len(wordsOf(&zero))
	flat := func(xs []E) []uint64 {
		out := make([]uint64, len(xs)*words)
		for i := range xs {
			copy(out[i*words:], wordsOf(&xs[i]))
		}
		return out
	}
	_, _, g1, g2 := generators()
	p := cutG1(k, comb.Multiply[G1J, G1, PJ1](&g1, flat(k.g1Exponents()), words, nbBits, g1Affine))
	g2s := comb.Multiply[G2J, G2, PJ2](&g2, flat(k.g2Exponents()), words, nbBits, g2Affine)
	return k, p, g2s, nil
}
