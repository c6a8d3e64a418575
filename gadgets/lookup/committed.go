package lookup

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
)

// CommittedProof is the in-circuit form of a LogUp proof over a table set
// with committed multiplicities.
type CommittedProof struct {
	Witness          FractionProof
	Table            FractionProof
	MultiplicityEval frontend.Variable
	ColumnEvals      []frontend.Variable
	// TableEvals are the tables' dense columns at their coordinates of
	// the table point, with native.WithTableClaims.
	TableEvals []frontend.Variable
}

// CommittedClaims are the claims [VerifyCommitted] outputs: the lookup
// columns' (id column first) and the committed multiplicities'.
type CommittedClaims struct {
	Columns        []poly.Claim
	Multiplicities poly.Claim
	// Tables are the claims on the tables' dense columns
	// (native.DenseColumns order), with native.WithTableClaims.
	Tables []poly.Claim
}

// PlaceholderCommittedProof sizes a committed proof of lookups into s from
// a tensor of the given shape.
func PlaceholderCommittedProof(s *table.Set, shape []int, opts ...native.CommittedOption) (CommittedProof, error) {
	if err := s.Validate(); err != nil {
		return CommittedProof{}, err
	}
	_, total, err := native.ShapeVars(shape)
	if err != nil {
		return CommittedProof{}, err
	}
	p := CommittedProof{
		Witness:     placeholderFraction(max(total, 1)),
		Table:       placeholderFraction(s.NbVars),
		ColumnEvals: make([]frontend.Variable, s.NbColumns()),
	}
	if native.TableClaims(opts...) {
		p.TableEvals = make([]frontend.Variable, len(native.DenseColumns(s)))
	}
	return p, nil
}

// ValueOfCommittedProof returns the assignment of a native committed proof.
func ValueOfCommittedProof[E field.Scalar](p *native.CommittedProof[E]) CommittedProof {
	return CommittedProof{
		Witness:          valueOfFraction(&p.Witness),
		Table:            valueOfFraction(&p.Table),
		MultiplicityEval: poly.ValuesOf([]E{p.MultiplicityEval})[0],
		ColumnEvals:      poly.ValuesOf(p.ColumnEvals),
		TableEvals:       poly.ValuesOf(p.TableEvals),
	}
}

// VerifyCommitted checks a committed LogUp proof that the tuples of a
// tensor of the given shape are rows of the combined table of s, in the
// native verifier's transcript order (label, digest, β, α, trees,
// multiplicity evaluation, column evaluations), and returns the claims on
// the lookup columns and on the committed multiplicities.
//
// Cost (R1CS): for a witness of 2ⁿ entries and a set of 2ᵏ rows, the two
// trees take Σ_{j<n} (3j + 1) + Σ_{j<k} (3j + 1) multiplications plus
// transcript work ((3j + 6) absorbs or challenges per layer); the set's
// columns cost about T·k multiplications (T tables) when affine, plus the
// dense columns' evaluations; nothing is proportional to the table size
// otherwise.
func VerifyCommitted(api frontend.API, tr *transcript.Transcript, digest []frontend.Variable, s *table.Set, shape []int, proof CommittedProof, opts ...native.CommittedOption) (CommittedClaims, error) {
	tableClaims := native.TableClaims(opts...)
	if err := s.Validate(); err != nil {
		return CommittedClaims{}, err
	}
	_, total, err := native.ShapeVars(shape)
	if err != nil {
		return CommittedClaims{}, err
	}
	if len(proof.ColumnEvals) != s.NbColumns() {
		return CommittedClaims{}, fmt.Errorf("lookup: designd for another table set")
	}
	var dense []native.DenseColumn
	if tableClaims {
		dense = native.DenseColumns(s)
	}
	if len(proof.TableEvals) != len(dense) {
		return CommittedClaims{}, fmt.Errorf("lookup: %d table evaluations for %d dense columns left as claims", len(proof.TableEvals), len(dense))
	}
	tr.Label("lookup/committed/" + s.Name)
	tr.Absorb(digest...)
	beta := tr.Challenge()
	alpha := tr.Challenge()

	n := max(total, 1)
	wl, err := verifyFraction(api, tr, n, &proof.Witness)
	if err != nil {
		return CommittedClaims{}, fmt.Errorf("lookup: witness tree: %w", err)
	}
	tl, err := verifyFraction(api, tr, s.NbVars, &proof.Table)
	if err != nil {
		return CommittedClaims{}, fmt.Errorf("lookup: table tree: %w", err)
	}
	tr.Absorb(proof.MultiplicityEval)
	tr.Absorb(proof.ColumnEvals...)
	if tableClaims {
		tr.Absorb(proof.TableEvals...)
	}

	assertWitnessLeaf(api, shape, n, total, &wl, beta, alpha, proof.ColumnEvals)
	api.AssertIsEqual(tl.pValue, proof.MultiplicityEval)
	given := map[native.DenseColumn]frontend.Variable{}
	var tables []poly.Claim
	for k, d := range dense {
		given[d] = proof.TableEvals[k]
		local := tl.point[s.NbVars-s.Tables[d.Table].NbVars:]
		tables = append(tables, poly.Claim{Point: local, Value: proof.TableEvals[k]})
	}
	tv := make([]frontend.Variable, s.NbColumns())
	for c := range tv {
		tv[c] = evaluateSetColumn(api, s, c, tl.point, given)
	}
	api.AssertIsEqual(tl.qValue, api.Sub(alpha, fold(api, beta, tv)))
	assertRoots(api, &wl, &tl)

	out := CommittedClaims{Columns: make([]poly.Claim, len(proof.ColumnEvals))}
	for c := range out.Columns {
		out.Columns[c] = poly.Claim{Point: wl.point[n-total:], Value: proof.ColumnEvals[c]}
	}
	out.Multiplicities = poly.Claim{Point: tl.point, Value: proof.MultiplicityEval}
	out.Tables = tables
	return out, nil
}

// assertWitnessLeaf constrains the witness tree's leaf values to the shape
// selector and the column evaluations.
func assertWitnessLeaf(api frontend.API, shape []int, n, total int, wl *leaf, beta, alpha frontend.Variable, columnEvals []frontend.Variable) {
	sel := selector(api, shape, wl.point, n-total)
	api.AssertIsEqual(wl.pValue, sel)
	var z frontend.Variable = 1
	for k := range n - total {
		z = api.Mul(z, api.Sub(1, wl.point[k]))
	}
	w := fold(api, beta, columnEvals)
	q := api.Sub(api.Add(1, api.Mul(sel, api.Sub(alpha, 1))), api.Mul(z, w))
	api.AssertIsEqual(wl.qValue, q)
}

// assertRoots constrains P_w·Q_t = P_t·Q_w with nonzero denominators.
func assertRoots(api frontend.API, wl, tl *leaf) {
	api.AssertIsDifferent(wl.q, 0)
	api.AssertIsDifferent(tl.q, 0)
	api.AssertIsEqual(api.Mul(wl.p, tl.q), api.Mul(tl.p, wl.q))
}

// evaluateSetColumn is the native closed form of a set's column c: Σₜ
// indₜ·vₜ, with the tables' columns in given taken from it.
func evaluateSetColumn(api frontend.API, s *table.Set, c int, point []frontend.Variable, given map[native.DenseColumn]frontend.Variable) frontend.Variable {
	var res frontend.Variable = 0
	for t := range s.Tables {
		tbl := &s.Tables[t]
		var v frontend.Variable
		switch g, ok := given[native.DenseColumn{Table: t, Column: c}]; {
		case c == 0:
			v = t + 1
		case ok:
			v = g
		case c-1 < len(tbl.Columns):
			v = evaluateColumn(api, tbl, c-1, point[s.NbVars-tbl.NbVars:])
		default:
			continue
		}
		ind := poly.EqIndex(api, point[:s.NbVars-tbl.NbVars], s.Offsets[t]>>tbl.NbVars)
		res = api.Add(res, api.Mul(ind, v))
	}
	return res
}
