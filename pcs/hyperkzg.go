package pcs

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/kzg"

	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// Transcript is the Fiat–Shamir transcript over BLS12-377 Fr that the
// prover and the field part of the verifier share.
type Transcript = transcript.Transcript[fr.Element, *fr.Element]

// Commitment is the commitment to an MLE: the KZG commitment [F(τ)]₁ of
// the univariate polynomial whose coefficients are the MLE's table.
type Commitment = bls12377.G1Affine

// MaxNbVars bounds the number of variables of a committed MLE (and so
// every length a verifier or a decoder accepts).
const MaxNbVars = 40

// ErrRejected is wrapped by every error a verifier returns on a proof that
// does not check (as opposed to a malformed statement).
var ErrRejected = errors.New("pcs: proof rejected")

// Proof is a HyperKZG evaluation proof of an MLE of n variables:
// Folds[i−1] = [Fᵢ]₁ for i = 1, …, n−1; Evaluations[i] = (Fᵢ(β), Fᵢ(−β),
// Fᵢ(β²)) for i = 0, …, n−1; Quotient = W = [h]₁, the commitment to the
// quotient h = (B − I)/Z of the batched polynomial B by the cubic Z that
// vanishes on β, −β, β² (I the quadratic that interpolates B there). See
// the package documentation.
type Proof struct {
	Folds       []bls12377.G1Affine
	Evaluations [][3]fr.Element
	Quotient    bls12377.G1Affine
}

// GroupCheck is the output of the field part of the verifier and the input
// of its group part: the scalars of the pairing check
//
//	e(L₀, [1]₂) · e(Quotient[1]·W, [τ]₂ + [τ²]₂) · e(−W, [τ³]₂) = 1,
//	L₀ = Σⱼ Commitments[j]·Cⱼ + Σᵢ Folds[i]·[F_{i+1}]₁ + Quotient[0]·W + Σₖ Generator[k]·[τᵏ]₁,
//
// where Cⱼ are the commitments, [Fᵢ]₁ the proof's folds, W its quotient
// and [τᵏ]₁ (k = 0, 1, 2) the [VerifyingKey]'s G1 points.
type GroupCheck struct {
	Commitments []fr.Element  `json:"commitments"`
	Folds       []fr.Element  `json:"folds"`
	Quotient    [2]fr.Element `json:"quotient"`
	Generator   [3]fr.Element `json:"generator"`
}

// multiExpConfig lets MultiExp use every core.
var multiExpConfig = ecc.MultiExpConfig{}

// Commit returns the commitment to the MLE whose table of 2ⁿ evaluations
// (n ≥ 1, X₁ the most significant bit of the index, as in package poly) is
// table: the KZG commitment of F(Y) = Σᵢ table[i]·Yⁱ.
func Commit(srs *SRS, table []fr.Element) (Commitment, error) {
	if _, err := tableVars(table); err != nil {
		return Commitment{}, err
	}
	if len(table) > srs.Size() {
		return Commitment{}, fmt.Errorf("pcs: commit: table of %d entries, the srs has %d powers", len(table), srs.Size())
	}
	return commit(srs, table, 0)
}

// commit is Commit on the given number of cores (0: every core; 1: the
// calling goroutine alone) for a table already checked.
func commit(srs *SRS, table []fr.Element, cores int) (Commitment, error) {
	if c, ok, err := commitSparse(srs, table, cores); ok || err != nil {
		return c, err
	}
	c, err := commitDense(srs, table, cores)
	if err != nil {
		return Commitment{}, fmt.Errorf("pcs: commit: %w", err)
	}
	return c, nil
}

// execute runs work over [0, n) as parallel.Execute does on every core
// (cores ≠ 1), or on the calling goroutine (cores = 1).
func execute(cores, n, minChunk int, work func(start, end int)) {
	if cores != 1 {
		parallel.Execute(n, minChunk, work)
		return
	}
	if n > 0 {
		work(0, n)
	}
}

// commitDense returns the KZG commitment Σᵢ p[i]·[τⁱ]₁ as one
// multi-scalar multiplication over p without its trailing zeros (the
// identity if p is all zeros). A segment's batched polynomial, its folds
// and its quotient are zero past the stacked tensors' last entry (about
// half of the padded length in a GPT-2 block): gnark-crypto's
// multiplication skips zero digits, but still splits and sorts every
// scalar and sizes its windows for the whole length. cores is commit's.
func commitDense(srs *SRS, p []fr.Element, cores int) (Commitment, error) {
	m := len(p)
	for m > 0 && p[m-1].IsZero() {
		m--
	}
	if m == 0 {
		return Commitment{}, nil
	}
	if cores > 0 {
		return kzg.Commit(p[:m], srs.Pk, cores)
	}
	return kzg.Commit(p[:m], srs.Pk)
}

// commitSparse commits to a table with zeros or small negative integers
// as a multi-scalar multiplication over its non-zero entries only, each
// entry p − v of a negative integer −v (v < 2⁶³) as v·(−[τⁱ]₁): zero
// entries cost nothing, and small scalars cost about a fifth of
// full-size ones. ok is false when the table has neither (fewer than an
// eighth of zeros and no negative integer): nothing is computed, and a
// dense multiplication is cheaper than the gathering. cores is commit's.
func commitSparse(srs *SRS, table []fr.Element, cores int) (Commitment, bool, error) {
	// The table is scanned and gathered in chunks on every core: the
	// counts of the first pass give each chunk its place in the second.
	const chunks = 64
	size := (len(table) + chunks - 1) / chunks
	nonZero := make([]int, chunks)
	negative := make([]bool, chunks)
	execute(cores, chunks, 1, func(start, end int) {
		for c := start; c < end; c++ {
			for i := c * size; i < min((c+1)*size, len(table)); i++ {
				switch {
				case table[i].IsZero():
				case smallNegative(&table[i]):
					negative[c] = true
					nonZero[c]++
				default:
					nonZero[c]++
				}
			}
		}
	})
	total, anyNegative := 0, false
	offsets := make([]int, chunks)
	for c := range nonZero {
		offsets[c] = total
		total += nonZero[c]
		anyNegative = anyNegative || negative[c]
	}
	if len(table)-total < len(table)/8 && !anyNegative {
		return Commitment{}, false, nil
	}
	scalars := hugepage.Make[fr.Element](total)
	points := hugepage.Make[bls12377.G1Affine](total)
	execute(cores, chunks, 1, func(start, end int) {
		for c := start; c < end; c++ {
			k := offsets[c]
			for i := c * size; i < min((c+1)*size, len(table)); i++ {
				switch {
				case table[i].IsZero():
					continue
				case negative[c] && smallNegative(&table[i]):
					scalars[k].Neg(&table[i])
					points[k].Neg(&srs.Pk.G1[i])
				default:
					scalars[k], points[k] = table[i], srs.Pk.G1[i]
				}
				k++
			}
		}
	})
	var c bls12377.G1Affine
	if total == 0 {
		return c, true, nil
	}
	if values, ok := smallValues(scalars, cores); ok {
		sum := multiExpSmall(points, values, cores)
		c.FromJacobian(&sum)
		return c, true, nil
	}
	if _, err := c.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: cores}); err != nil {
		return Commitment{}, true, fmt.Errorf("pcs: commit: %w", err)
	}
	return c, true, nil
}

// smallNegative reports whether x is p − v for an integer 0 < v < 2⁶³
// (and x itself is not below 2⁶³).
func smallNegative(x *fr.Element) bool {
	if x.IsUint64() && x.Uint64() < 1<<63 {
		return false
	}
	var neg fr.Element
	neg.Neg(x)
	return neg.IsUint64() && neg.Uint64() < 1<<63
}

// tableVars returns n for a table of 2ⁿ entries, 1 ≤ n ≤ MaxNbVars.
func tableVars(table []fr.Element) (int, error) {
	return sizeVars(len(table))
}

// sizeVars is tableVars for a table of size entries.
func sizeVars(size int) (int, error) {
	n, err := poly.NbVars(size)
	if err != nil {
		return 0, fmt.Errorf("pcs: %w", err)
	}
	if n < 1 || n > MaxNbVars {
		return 0, fmt.Errorf("pcs: table of 2^%d entries, want 2^1 to 2^%d", n, MaxNbVars)
	}
	return n, nil
}

// open runs the HyperKZG prover for table at point with value = table(point).
func open(t *Transcript, srs *SRS, table []fr.Element, point []fr.Element, value fr.Element) (*Proof, error) {
	n := len(point)
	if len(table) > srs.Size() {
		return nil, fmt.Errorf("pcs: open: table of %d entries, the srs has %d powers", len(table), srs.Size())
	}
	t.Label("pcs/hyperkzg")
	t.Absorb(value)

	// F₀ = table; F_{i+1}(Y) = F_i,even(Y) + r·(F_i,odd(Y) − F_i,even(Y)),
	// r = point[n−1−i]: fold i binds the least significant variable left.
	folds := make([][]fr.Element, n)
	folds[0] = table
	proof := &Proof{Folds: make([]bls12377.G1Affine, n-1), Evaluations: make([][3]fr.Element, n)}
	for i := 0; i+1 < n; i++ {
		folds[i+1] = foldEvenOdd(folds[i], &point[n-1-i])
		c, err := commitDense(srs, folds[i+1], 0)
		if err != nil {
			return nil, fmt.Errorf("pcs: open: fold %d: %w", i+1, err)
		}
		proof.Folds[i] = c
	}
	t.Absorb(Digest(proof.Folds))
	beta := t.Challenge()
	if degenerate(&beta) {
		return nil, fmt.Errorf("pcs: open: challenge β ∈ {0, 1, −1}")
	}
	var u [3]fr.Element
	u[0] = beta
	u[1].Neg(&beta)
	u[2].Square(&beta)
	for i := range folds {
		for j := range u {
			proof.Evaluations[i][j] = horner(folds[i], &u[j])
		}
		t.Absorb(proof.Evaluations[i][:]...)
	}
	q := t.Challenge()

	// B = Σᵢ qⁱ Fᵢ and its values bⱼ = Σᵢ qⁱ Fᵢ(uⱼ). The buffer has room
	// for B − I, of degree 2 at least.
	batched := hugepage.Make[fr.Element](max(len(table), 4))
	copy(batched, table)
	var qi fr.Element
	qi.SetOne()
	for i := 1; i < n; i++ {
		qi.Mul(&qi, &q)
		f := folds[i]
		parallel.Execute(len(f), 1<<12, func(start, end int) {
			var s fr.Element
			for k := start; k < end; k++ {
				s.Mul(&f[k], &qi)
				batched[k].Add(&batched[k], &s)
			}
		})
	}
	folds = nil
	b := batchedValues(proof.Evaluations, &q)

	// W = [h]₁, h = (B − I)/Z with Z(Y) = (Y − β)(Y + β)(Y − β²): I agrees
	// with B on Z's roots, so the three divisions are exact.
	interp, err := interpolation(&beta, &b)
	if err != nil {
		return nil, fmt.Errorf("pcs: open: %w", err)
	}
	for k := range interp {
		batched[k].Sub(&batched[k], &interp[k])
	}
	h := batched
	for j := range u {
		h = divideByLinear(h, &u[j])
	}
	w, err := commitDense(srs, h, 0)
	if err != nil {
		return nil, fmt.Errorf("pcs: open: quotient: %w", err)
	}
	proof.Quotient = w
	t.Absorb(Digest([]bls12377.G1Affine{w}))
	return proof, nil
}

// batchedValues returns bⱼ = Σᵢ qⁱ·evaluations[i][j].
func batchedValues(evaluations [][3]fr.Element, q *fr.Element) [3]fr.Element {
	var b [3]fr.Element
	for i := len(evaluations) - 1; i >= 0; i-- {
		for j := range b {
			b[j].Mul(&b[j], q).Add(&b[j], &evaluations[i][j])
		}
	}
	return b
}

// interpolation returns the coefficients (I₀, I₁, I₂) of the polynomial
// of degree 2 with I(β) = b₀, I(−β) = b₁, I(β²) = b₂:
//
//	I₁ = (b₀ − b₁)/(2β),  I₂ = (b₂ − E − I₁·β²)/(β⁴ − β²),  I₀ = E − I₂·β²,
//
// E = (b₀ + b₁)/2. It refuses β ∈ {0, 1, −1}, where the points are not
// distinct.
func interpolation(beta *fr.Element, b *[3]fr.Element) ([3]fr.Element, error) {
	var out [3]fr.Element
	if degenerate(beta) {
		return out, errors.New("challenge β ∈ {0, 1, −1}")
	}
	var twoBeta, beta2, den, e, t fr.Element
	twoBeta.Double(beta)
	beta2.Square(beta)
	den.Square(&beta2).Sub(&den, &beta2) // β⁴ − β², not zero
	twoBeta.Inverse(&twoBeta)
	den.Inverse(&den)
	e.Add(&b[0], &b[1]).Halve()
	out[1].Sub(&b[0], &b[1]).Mul(&out[1], &twoBeta)
	t.Mul(&out[1], &beta2)
	out[2].Sub(&b[2], &e).Sub(&out[2], &t).Mul(&out[2], &den)
	t.Mul(&out[2], &beta2)
	out[0].Sub(&e, &t)
	return out, nil
}

// foldEvenOdd returns g with g[m] = f[2m] + r·(f[2m+1] − f[2m]).
func foldEvenOdd(f []fr.Element, r *fr.Element) []fr.Element {
	g := hugepage.Make[fr.Element](len(f) / 2)
	parallel.Execute(len(g), 1<<12, func(start, end int) {
		var d fr.Element
		for m := start; m < end; m++ {
			d.Sub(&f[2*m+1], &f[2*m])
			d.Mul(&d, r)
			g[m].Add(&f[2*m], &d)
		}
	})
	return g
}

// divideByLinear overwrites f with the coefficients of (f(Y) − f(a))/(Y − a)
// (synthetic division) and returns them, len(f)−1 entries.
func divideByLinear(f []fr.Element, a *fr.Element) []fr.Element {
	var t fr.Element
	for i := len(f) - 2; i >= 0; i-- {
		t.Mul(&f[i+1], a)
		f[i].Add(&f[i], &t)
	}
	return f[1:]
}

// verifyField checks an opening of Σⱼ combination[j]·fⱼ at point with value,
// fⱼ the MLEs of the commitments.
func verifyField(t *Transcript, point []fr.Element, value fr.Element, proof *Proof, combination []fr.Element) (*GroupCheck, error) {
	n := len(point)
	if len(proof.Folds) != n-1 || len(proof.Evaluations) != n {
		return nil, fmt.Errorf("%w: %d folds and %d evaluation triples for %d variables, want %d and %d",
			ErrRejected, len(proof.Folds), len(proof.Evaluations), n, n-1, n)
	}
	t.Label("pcs/hyperkzg")
	t.Absorb(value)
	t.Absorb(Digest(proof.Folds))
	beta := t.Challenge()
	if degenerate(&beta) {
		return nil, fmt.Errorf("%w: challenge β ∈ {0, 1, −1}", ErrRejected)
	}
	for i := range proof.Evaluations {
		t.Absorb(proof.Evaluations[i][:]...)
	}
	q := t.Challenge()
	t.Absorb(Digest([]bls12377.G1Affine{proof.Quotient}))

	// Fold consistency: F_{i+1}(β²) = (1−r)·(Fᵢ(β)+Fᵢ(−β))/2 + r·(Fᵢ(β)−Fᵢ(−β))/(2β),
	// checked multiplied by 2β; F_n(β²) is the claimed value.
	var lhs, rhs, sum, diff, t1 fr.Element
	for i := range n {
		r := &point[n-1-i]
		e := &proof.Evaluations[i]
		next := &value
		if i+1 < n {
			next = &proof.Evaluations[i+1][2]
		}
		lhs.Double(&beta).Mul(&lhs, next)
		sum.Add(&e[0], &e[1])
		diff.Sub(&e[0], &e[1])
		// β·(1−r)·sum + r·diff = β·sum + r·(diff − β·sum)
		rhs.Mul(&beta, &sum)
		t1.Sub(&diff, &rhs).Mul(&t1, r)
		rhs.Add(&rhs, &t1)
		if !lhs.Equal(&rhs) {
			return nil, fmt.Errorf("%w: fold %d is not consistent with fold %d", ErrRejected, i+1, i)
		}
	}

	// C_B − [I(τ)]₁ = Z(τ)·W with C_B = Σⱼ Aⱼ·Cⱼ + Σᵢ qⁱ·[Fᵢ]₁ and
	// Z(Y) = Y³ − β²(Y² + Y) + β⁴: [I(τ)]₁ and β⁴·W on [1]₂, β²·W on
	// [τ]₂ + [τ²]₂, W on [τ³]₂.
	b := batchedValues(proof.Evaluations, &q)
	interp, err := interpolation(&beta, &b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	check := &GroupCheck{
		Commitments: append([]fr.Element(nil), combination...),
		Folds:       make([]fr.Element, n-1),
	}
	qi := q
	for i := range check.Folds {
		check.Folds[i] = qi
		qi.Mul(&qi, &q)
	}
	var beta2 fr.Element
	beta2.Square(&beta)
	check.Quotient[0].Square(&beta2).Neg(&check.Quotient[0])
	check.Quotient[1] = beta2
	for k := range interp {
		check.Generator[k].Neg(&interp[k])
	}
	return check, nil
}

// degenerate reports whether β ∈ {0, 1, −1}, where the fold consistency
// (β = 0) or the distinctness of β, −β, β² fails.
func degenerate(beta *fr.Element) bool {
	var neg fr.Element
	neg.Neg(beta)
	return beta.IsZero() || beta.IsOne() || neg.IsOne()
}

// VerifyGroup is the group part of the verifier: it checks that every
// commitment, fold and the quotient is in G1 (on the curve, in the
// r-torsion), computes L₀ of [GroupCheck] (one multi-scalar
// multiplication) and Quotient[1]·W, and checks
// e(L₀, [1]₂)·e(Quotient[1]·W, [τ]₂ + [τ²]₂)·e(−W, [τ³]₂) = 1.
func VerifyGroup(vk *VerifyingKey, commitments []Commitment, proof *Proof, check *GroupCheck) error {
	if len(commitments) != len(check.Commitments) || len(proof.Folds) != len(check.Folds) {
		return fmt.Errorf("pcs: verify: %d commitments and %d folds for %d and %d scalars",
			len(commitments), len(proof.Folds), len(check.Commitments), len(check.Folds))
	}
	points := make([]bls12377.G1Affine, 0, len(commitments)+len(proof.Folds)+1+len(vk.G1))
	points = append(points, commitments...)
	points = append(points, proof.Folds...)
	points = append(points, proof.Quotient)
	for i := range points {
		if !points[i].IsInSubGroup() {
			return fmt.Errorf("%w: point %d is not in G1", ErrRejected, i)
		}
	}
	points = append(points, vk.G1[:]...)
	scalars := make([]fr.Element, 0, len(points))
	scalars = append(scalars, check.Commitments...)
	scalars = append(scalars, check.Folds...)
	scalars = append(scalars, check.Quotient[0])
	scalars = append(scalars, check.Generator[:]...)
	var l [3]bls12377.G1Affine
	if _, err := l[0].MultiExp(points, scalars, multiExpConfig); err != nil {
		return fmt.Errorf("pcs: verify: %w", err)
	}
	var s big.Int
	l[1].ScalarMultiplication(&proof.Quotient, check.Quotient[1].BigInt(&s))
	l[2].Neg(&proof.Quotient)
	// gnark-crypto's MillerLoopFixedQ writes into the lines it is given:
	// pass a copy so the key stays intact.
	lines := vk.Lines
	ok, err := bls12377.PairingCheckFixedQ(l[:], lines[:])
	if err != nil {
		return fmt.Errorf("pcs: verify: %w", err)
	}
	if !ok {
		return fmt.Errorf("%w: pairing check failed", ErrRejected)
	}
	return nil
}
