package pcs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/sumcheck"
)

// Claim states fⱼ(Point) = Value for the MLE fⱼ of commitment
// j = Commitment. All claims on one commitment have points of the same
// number of variables, the commitment's.
type Claim struct {
	Commitment int          `json:"commitment"`
	Point      []fr.Element `json:"point"`
	Value      fr.Element   `json:"value"`
}

// GroupProof is a grouped opening: it reduces a group of claims on
// several committed MLEs to one opening, a degree-2 sum-check over the
// largest number of variables, then a HyperKZG opening of a linear
// combination of the MLEs at the sum-check's point. (The verifier's group
// part, [VerifyGroup], is named for the curve group: it completes every
// opening, grouped or not.)
type GroupProof struct {
	SumCheck sumcheck.Proof[fr.Element]
	Opening  Proof
}

// groupShape checks the claims against nbCommitments commitments and
// returns every commitment's number of variables and the largest.
func groupShape(nbCommitments int, claims []Claim) ([]int, int, error) {
	targets, vars := make([]int, len(claims)), make([]int, len(claims))
	for k, c := range claims {
		targets[k], vars[k] = c.Commitment, len(c.Point)
	}
	return GroupShape(nbCommitments, targets, vars)
}

// GroupShape checks the shape of a grouped opening — claim k on commitment
// targets[k] at a point of vars[k] variables, every commitment claimed,
// its claims of one length — and returns every commitment's number of
// variables and the largest (the opening's). The in-circuit verifier
// checks its claims with it too.
func GroupShape(nbCommitments int, targets, vars []int) ([]int, int, error) {
	if len(targets) == 0 || len(vars) != len(targets) {
		return nil, 0, fmt.Errorf("pcs: group: no claim")
	}
	if nbCommitments < 1 || nbCommitments > len(targets) {
		return nil, 0, fmt.Errorf("pcs: group: %d commitments for %d claims (every commitment needs a claim)", nbCommitments, len(targets))
	}
	nbVars := make([]int, nbCommitments)
	for i := range nbVars {
		nbVars[i] = -1
	}
	n := 0
	for k, j := range targets {
		if j < 0 || j >= nbCommitments {
			return nil, 0, fmt.Errorf("pcs: group: claim %d is on commitment %d, outside [0, %d)", k, j, nbCommitments)
		}
		m := vars[k]
		if m < 1 || m > MaxNbVars {
			return nil, 0, fmt.Errorf("pcs: group: claim %d has a point of %d variables, want 1 to %d", k, m, MaxNbVars)
		}
		if v := nbVars[j]; v >= 0 && v != m {
			return nil, 0, fmt.Errorf("pcs: group: claim %d has %d variables, an earlier claim on commitment %d has %d", k, m, j, v)
		}
		nbVars[j] = m
		n = max(n, m)
	}
	for j, v := range nbVars {
		if v < 0 {
			return nil, 0, fmt.Errorf("pcs: group: no claim on commitment %d", j)
		}
	}
	return nbVars, n, nil
}

// bindGroup absorbs the claimed values and draws α; it returns the powers
// αᵏ (one per claim) and the combined sum Σₖ αᵏ vₖ. Its label, "pcs/batch",
// is part of the protocol: the circuits and the golden vectors absorb it.
func bindGroup(t *Transcript, claims []Claim) ([]fr.Element, fr.Element) {
	t.Label("pcs/batch")
	values := make([]fr.Element, len(claims))
	for k := range claims {
		values[k] = claims[k].Value
	}
	t.Absorb(values...)
	alpha := t.Challenge()
	powers := make([]fr.Element, len(claims))
	var sum, s fr.Element
	for k := range claims {
		if k == 0 {
			powers[k].SetOne()
		} else {
			powers[k].Mul(&powers[k-1], &alpha)
		}
		s.Mul(&powers[k], &values[k])
		sum.Add(&sum, &s)
	}
	return powers, sum
}

// OpenGroupParts proves claims on the MLEs tables[0], tables[1], …
// (committed in that order, each in [Parts](nⱼ, m) parts by
// [CommitParts]) with one sum-check over n = maxⱼ nⱼ variables and one
// HyperKZG opening over k = min(n, m) variables. The sum-check ends at a
// point r* and the claim Σⱼ Aⱼ(r*)·f̃ⱼ(r*) = v (f̃ⱼ zero-extended to n
// variables); with r* = (u, w), w the last k coordinates, each f̃ⱼ(r*)
// is a combination of its parts' values at w:
//
//	nⱼ ≤ k:  f̃ⱼ(r*) = ∏_{i<n−k} (1 − r*ᵢ) · f̃ⱼ⁽ᵏ⁾(w)     (fⱼ zero-extended to k variables)
//	nⱼ > k:  f̃ⱼ(r*) = ∏_{i<oⱼ} (1 − r*ᵢ) · Σ_p eq(r*[oⱼ : n−k], p)·fⱼ,ₚ(w),   oⱼ = n − nⱼ
//
// so the opening is of g = Σⱼ,ₚ cⱼ,ₚ·fⱼ,ₚ at w with value v, and its
// commitment Σⱼ,ₚ cⱼ,ₚ·[fⱼ,ₚ]₁. The opening's multi-scalar
// multiplications run over 2^k points, not over the stacked length:
// with k = m < n, the prover's cost of the opening falls by 2^(n−m)
// while the verifier's group part takes one point per part. With m ≥ n
// (m = [MaxNbVars]: every MLE committed whole) the proof is the same for
// every m.
//
// The commitments and the claims' points must already be bound to the
// transcript; the values are absorbed. With [Generate], the tables it
// names are read from their generators (the caller passes nil in their
// place).
func OpenGroupParts(t *Transcript, srs *SRS, tables [][]fr.Element, claims []Claim, m int, opts ...GroupOption) (*GroupProof, error) {
	nbVars, n, err := groupShape(len(tables), claims)
	if err != nil {
		return nil, err
	}
	var o groupOptions
	for _, opt := range opts {
		opt(&o)
	}
	for j, g := range o.generated {
		switch {
		case j < 0 || j >= len(tables):
			return nil, fmt.Errorf("pcs: group: generated table %d, of %d", j, len(tables))
		case tables[j] != nil:
			return nil, fmt.Errorf("pcs: group: table %d is both given and generated", j)
		case g.Fill == nil:
			return nil, fmt.Errorf("pcs: group: generated table %d has no Fill", j)
		}
		size := 1 << nbVars[j]
		if want := size / granule; g.Zero != nil && (want < 2 || len(g.Zero) != want) {
			return nil, fmt.Errorf("pcs: group: generated table %d has %d zero flags for %d entries", j, len(g.Zero), size)
		}
	}
	if m < 1 {
		return nil, fmt.Errorf("pcs: group: an opening of %d variables", m)
	}
	for j, table := range tables {
		if _, ok := o.generated[j]; ok {
			continue
		}
		if len(table) != 1<<nbVars[j] {
			return nil, fmt.Errorf("pcs: group: table %d has %d entries, its claims have %d variables", j, len(table), nbVars[j])
		}
	}
	k := min(n, m)
	if 1<<k > srs.Size() {
		return nil, fmt.Errorf("pcs: group: %d variables need 2^%d powers, the srs has %d", k, k, srs.Size())
	}
	powers, sum := bindGroup(t, claims)
	cols, zeros := groupColumns(tables, nbVars, o.generated)
	terms := groupTerms(cols, zeros, claims, nbVars, n, powers)
	var got fr.Element
	for j := range terms {
		got.Add(&got, &terms[j].ip)
	}
	if !got.Equal(&sum) {
		return nil, fmt.Errorf("pcs: group: the claimed values do not hold")
	}
	scProof, point, evaluations := proveGroupSum(t, terms, n, sum)
	terms = nil
	var value, s fr.Element
	for i := range evaluations {
		s.Mul(&evaluations[i][0], &evaluations[i][1])
		value.Add(&value, &s)
	}
	combination := combinations(len(tables), claims, powers, nbVars, point)

	// g = Σⱼ,ₚ cⱼ,ₚ·fⱼ,ₚ over k variables, opened at the last k
	// coordinates of r* with value Σⱼ Aⱼ(r*)·f̃ⱼ(r*).
	g := hugepage.Make[fr.Element](1 << k)
	for j := range tables {
		scales := partScales(point, n, nbVars[j], k, &combination[j])
		size := cols[j].n / len(scales)
		for p := range scales {
			var zero []bool // the part's zero granules
			if zeros[j] != nil && size >= granule {
				zero = zeros[j][p*size/granule : (p+1)*size/granule]
			}
			addScaledZero(g[:size], &cols[j], p*size, zero, &scales[p]) // the padding adds nothing
		}
	}
	proof, err := open(t, srs, g, point[n-k:], value)
	if err != nil {
		return nil, err
	}
	return &GroupProof{SumCheck: scProof, Opening: *proof}, nil
}

// GroupOption configures [OpenGroupParts].
type GroupOption func(*groupOptions)

type groupOptions struct {
	generated map[int]sumcheck.Generator[fr.Element]
}

// Generate declares the tables of the given indices as generated: the
// caller passes nil in their place, and the opening calls the
// generator's Fill (from several goroutines, on disjoint spans) for the
// entries it reads: the claims' inner products, the first round of the
// grouping sum-check, its first fold, and g. Such a table never exists
// at full size in the opening: its first fold, of half its size, is the
// first the prover stores. Each entry is generated three or four times;
// for a table the caller holds in a smaller type (integers), that is
// memory saved for some time. A later call adds to the earlier ones'
// tables.
func Generate(tables map[int]sumcheck.Generator[fr.Element]) GroupOption {
	return func(o *groupOptions) {
		if o.generated == nil {
			o.generated = map[int]sumcheck.Generator[fr.Element]{}
		}
		for j, g := range tables {
			o.generated[j] = g
		}
	}
}

// VerifyGroupFieldParts is the field part of the verifier of
// [OpenGroupParts] for claims on nbCommitments commitments, each in
// [Parts](nⱼ, m) parts: it replays the grouping of the claims and the
// sum-check, computes the parts' coefficients cⱼ,ₚ, and runs the field
// part of the opening over min(n, m) variables. It returns the scalars
// [VerifyGroup] needs: GroupCheck.Commitments holds one scalar per part,
// commitment by commitment, parts in order.
func VerifyGroupFieldParts(t *Transcript, nbCommitments int, claims []Claim, proof *GroupProof, m int) (*GroupCheck, error) {
	nbVars, n, err := groupShape(nbCommitments, claims)
	if err != nil {
		return nil, err
	}
	if m < 1 {
		return nil, fmt.Errorf("pcs: group: an opening of %d variables", m)
	}
	k := min(n, m)
	powers, sum := bindGroup(t, claims)
	point, final, err := sumcheck.Verify(t, sum, 2, n, proof.SumCheck)
	if err != nil {
		return nil, fmt.Errorf("%w: group: %w", ErrRejected, err)
	}
	combination := combinations(nbCommitments, claims, powers, nbVars, point)
	var scalars []fr.Element
	for j := range combination {
		scalars = append(scalars, partScales(point, n, nbVars[j], k, &combination[j])...)
	}
	return verifyField(t, point[n-k:], final, &proof.Opening, scalars)
}
