package lookup

import (
	"fmt"
	"sync"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// CommittedProof is a LogUp proof over a [table.Set] whose multiplicities
// are a committed MLE: instead of the multiplicities, it carries their
// MLE's value at the table tree's leaf point, which a later opening of the
// commitment proves.
type CommittedProof[E field.Scalar] struct {
	Witness FractionProof[E]
	Table   FractionProof[E]
	// MultiplicityEval is m(ρₜ), the multiplicities' MLE at the leaf
	// point of the table tree.
	MultiplicityEval E
	// ColumnEvals[c] is column c of the lookups (c = 0 the table id) at
	// the leaf point of the witness tree.
	ColumnEvals []E
	// TableEvals are the tables' dense columns ([DenseColumns] order), each
	// at its table's coordinates of the table tree's leaf point, with
	// [WithTableClaims] (empty without).
	TableEvals []E
}

// CommittedClaims are the claims a committed LogUp proof outputs: one per
// lookup column (the id column first) on its zero-padded MLE, and one on
// the committed multiplicities' MLE over the set's NbVars variables.
type CommittedClaims[E field.Scalar] struct {
	Columns        []poly.Claim[E]
	Multiplicities poly.Claim[E]
	// Tables are the claims on the tables' dense columns' MLEs (over each
	// table's own variables, [DenseColumns] order), with
	// [WithTableClaims].
	Tables []poly.Claim[E]
}

// CommittedOption configures [ProveCommitted] and [VerifyCommitted]; the
// prover and the verifier must be given the same options.
type CommittedOption func(*committedConfig)

type committedConfig struct {
	tableClaims bool
}

// WithTableClaims leaves the tables' dense columns ([DenseColumns]: a
// column a table gives by its values, as a function table's outputs) to
// the caller. The prover sends each one's MLE at its table's coordinates
// of the table tree's leaf point (the last kₜ; CommittedProof.TableEvals,
// absorbed after the column evaluations); the verifier uses them in the
// leaf check and returns them as claims (CommittedClaims.Tables) instead
// of evaluating each column in O(2ᵏₜ). The caller must prove those
// claims, e.g. by opening a fixed commitment to each table's column,
// which does not depend on the rest of the set: a circuit cannot afford
// the dense evaluations.
func WithTableClaims() CommittedOption {
	return func(c *committedConfig) { c.tableClaims = true }
}

// TableClaims reports whether opts ask for [WithTableClaims]: the
// in-circuit verifier takes the same options.
func TableClaims(opts ...CommittedOption) bool {
	return committedOptions(opts).tableClaims
}

func committedOptions(opts []CommittedOption) committedConfig {
	var cfg committedConfig
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

// DenseColumn names column Column (≥ 1, a column of the combined table)
// of table Table of a set, given by its values.
type DenseColumn struct {
	Table, Column int
}

// DenseColumns returns the dense columns of the set's tables, by table
// then column.
func DenseColumns(s *table.Set) []DenseColumn {
	var out []DenseColumn
	for t := range s.Tables {
		for c, col := range s.Tables[t].Columns {
			if col.Values != nil {
				out = append(out, DenseColumn{Table: t, Column: c + 1})
			}
		}
	}
	return out
}

// tableLocal is table t's coordinates of a point of the set: its last kₜ.
func tableLocal[E field.Scalar](s *table.Set, t int, point []E) []E {
	return point[s.NbVars-s.Tables[t].NbVars:]
}

// SetMultiplicities counts, for each row of the combined table, the tuples
// of lk equal to it; lk.Columns[0] holds the table ids. It fails if a tuple
// is not a row.
func SetMultiplicities(s *table.Set, lk *Lookups) ([]uint64, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := checkLookups(lk, s.NbColumns()); err != nil {
		return nil, err
	}
	m, err := countRows(1<<s.NbVars, lk, s.Row)
	if err != nil {
		return nil, fmt.Errorf("lookup: %w", err)
	}
	return m, nil
}

// checkLookups checks the lookups' shape and column count and returns
// nothing else.
func checkLookups(lk *Lookups, nbColumns int) error {
	if _, _, err := ShapeVars(lk.Shape); err != nil {
		return err
	}
	if len(lk.Columns) != nbColumns {
		return fmt.Errorf("lookup: %d columns looked up in a table of %d columns", len(lk.Columns), nbColumns)
	}
	count := 1
	for _, d := range lk.Shape {
		count *= d
	}
	for c, col := range lk.Columns {
		if len(col) != count {
			return fmt.Errorf("lookup: column %d has %d entries for shape %v", c, len(col), lk.Shape)
		}
	}
	return nil
}

// committedChallenges absorbs the label, the commitment digest and draws β
// and α.
func committedChallenges[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], s *table.Set, digest []E) (beta, alpha E) {
	tr.Label("lookup/committed/" + s.Name)
	tr.Absorb(digest...)
	beta = tr.Challenge()
	alpha = tr.Challenge()
	return beta, alpha
}

// ProveCommitted proves that every tuple of lk (lk.Columns[0] the table
// ids, then the columns of the set) is a row of the combined table of s,
// with multiplicities m that the caller has committed to and whose
// commitment digest it passes: the digest is absorbed before β and α are
// drawn. The lookups must be bound to the transcript before the call (the
// package documentation, "Transcript order and binding"). An honest m is
// [SetMultiplicities]; an m that does not count the lookups makes the
// proof fail to verify.
func ProveCommitted[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], digest []E, s *table.Set, lk *Lookups, m []uint64, opts ...CommittedOption) (*CommittedProof[E], *CommittedClaims[E], error) {
	cfg := committedOptions(opts)
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	if err := checkLookups(lk, s.NbColumns()); err != nil {
		return nil, nil, err
	}
	if len(m) != 1<<s.NbVars {
		return nil, nil, fmt.Errorf("lookup: %d multiplicities for a set of %d rows", len(m), 1<<s.NbVars)
	}
	beta, alpha := committedChallenges(tr, s, digest)
	wp, wq, total := witnessLeaves[E, P](lk, &beta, &alpha)
	n := witnessVars(total)
	proof := &CommittedProof[E]{}
	var rho, rhoT []E
	var err error
	var again func() (halves[E], halves[E])
	if n >= regenerateVars {
		again = func() (halves[E], halves[E]) {
			p, q, _ := witnessLeaves[E, P](lk, &beta, &alpha)
			return p, q
		}
	}
	if proof.Witness, rho, err = proveFraction(tr, wp, wq, again); err != nil {
		return nil, nil, err
	}
	tp, tq := newHalves[E](len(m)), newHalves[E](len(m))
	parallel.Execute(len(m), parallelChunk, func(start, end int) {
		values := make([]E, s.NbColumns())
		var x E
		for y := start; y < end; y++ {
			P(&x).SetUint64(m[y])
			tp.set(y, &x)
			for c := range values {
				P(&values[c]).SetInt64(s.Value(c, y))
			}
			t := fold[E, P](&beta, values)
			P(&x).Sub(&alpha, &t)
			tq.set(y, &x)
		}
	})
	if proof.Table, rhoT, err = proveFraction(tr, tp, tq, nil); err != nil {
		return nil, nil, err
	}
	// The tree folded its leaves: the multiplicities are read again.
	proof.MultiplicityEval = evaluateCounts[E, P](m, rhoT)
	tail := rho[n-total:]
	proof.ColumnEvals = columnEvals[E, P](lk, tail)
	tr.Absorb(proof.MultiplicityEval)
	tr.Absorb(proof.ColumnEvals...)
	claims := &CommittedClaims[E]{
		Columns:        columnClaims(tail, proof.ColumnEvals),
		Multiplicities: poly.Claim[E]{Point: rhoT, Value: proof.MultiplicityEval},
	}
	if cfg.tableClaims {
		for _, d := range DenseColumns(s) {
			local := tableLocal(s, d.Table, rhoT)
			v := EvaluateColumn[E, P](&s.Tables[d.Table], d.Column-1, local)
			proof.TableEvals = append(proof.TableEvals, v)
			claims.Tables = append(claims.Tables, poly.Claim[E]{Point: local, Value: v})
		}
		tr.Absorb(proof.TableEvals...)
	}
	return proof, claims, nil
}

// witnessLeaves returns the leaves of the witness tree (p = 1, q = α − Σ
// βᶜ w_c on the valid entries; p = 0, q = 1 in the padding), as halves,
// and the number of variables of the padded shape. When the lookups fill the
// cube (no padding: a committed segment's lookups), every p is 1 and wp
// is nil, which [proveFraction] reads as all ones. The lookups must have
// been checked.
func witnessLeaves[E field.Scalar, P field.Ptr[E]](lk *Lookups, beta, alpha *E) (wp, wq halves[E], total int) {
	dims, total, _ := ShapeVars(lk.Shape)
	count := len(lk.Columns[0])
	n := witnessVars(total)
	wq = newHalves[E](1 << n)
	if count < 1<<n {
		wp = newHalves[E](1 << n)
	}
	for _, h := range wq {
		parallel.Execute(len(h), parallelChunk, func(start, end int) {
			for i := start; i < end; i++ {
				P(&h[i]).SetOne()
			}
		})
	}
	// Most entries are small (limbs, table ids, function keys): βᶜ·v is
	// read from a table of the multiples of βᶜ for |v| < smallValues, so
	// that such an entry costs additions only, once there are enough
	// lookups to pay for the tables.
	var multiples [][]E
	if count >= multiplesThreshold {
		multiples = smallMultiples[E, P](beta, len(lk.Columns))
	}
	// Entries go to distinct padded indices: the workers never share one.
	parallel.Execute(count, parallelChunk, func(start, end int) {
		values := make([]E, len(lk.Columns))
		var w E
		for i := start; i < end; i++ {
			at := padIndex(lk.Shape, dims, i)
			small := multiples != nil
			P(&w).SetZero()
			for c := 0; small && c < len(values); c++ {
				v := lk.Columns[c][i]
				if v <= -smallValues || v >= smallValues {
					small = false
					break
				}
				P(&w).Add(&w, &multiples[c][v+smallValues])
			}
			if !small {
				for c := range values {
					P(&values[c]).SetInt64(lk.Columns[c][i])
				}
				w = fold[E, P](beta, values)
			}
			if wp[0] != nil {
				P(&wp[at&1][at>>1]).SetOne()
			}
			P(&wq[at&1][at>>1]).Sub(alpha, &w)
		}
	})
	return wp, wq, total
}

// regenerateVars is the witness tree's size (in variables) from which
// ProveCommitted drops its leaves while it proves the upper layers and
// generates them again for the last (proveFraction's again): at 2²⁶
// leaves (GPT-2 small's LM-head segment at 64 rows) they are 2 GB, and
// the tree's upper layers 4 GB more; generating them again costs one
// more pass over the lookups. A test lowers it.
var regenerateVars = 25

// smallValues bounds the entries whose βᶜ-multiples witnessLeaves reads
// from a table: |v| < smallValues.
const smallValues = 1 << 16

// multiplesThreshold is the number of lookups from which witnessLeaves
// builds the tables of small multiples (one addition per table entry,
// 2·smallValues per column): measured, 2¹⁶ lookups were 6–15% slower
// with them, 2²⁰ lookups went from 0.54–0.60 s to 0.44–0.55 s (package
// doc).
const multiplesThreshold = 1 << 18

// smallMultiples returns, per column c < nbColumns, the table of v·βᶜ
// at index v + smallValues for −smallValues ≤ v < smallValues.
func smallMultiples[E field.Scalar, P field.Ptr[E]](beta *E, nbColumns int) [][]E {
	out := make([][]E, nbColumns)
	var power E
	P(&power).SetOne()
	for c := range out {
		t := make([]E, 2*smallValues)
		// t[smallValues] = 0; upwards by +βᶜ, downwards by −βᶜ.
		for v := smallValues + 1; v < len(t); v++ {
			P(&t[v]).Add(&t[v-1], &power)
		}
		for v := smallValues - 1; v >= 0; v-- {
			P(&t[v]).Sub(&t[v+1], &power)
		}
		out[c] = t
		P(&power).Mul(&power, beta)
	}
	return out
}

// columnEvals returns the MLEs of the lookups' zero-padded columns at
// point (one eq table, the columns read as integers: no field copy of
// them).
func columnEvals[E field.Scalar, P field.Ptr[E]](lk *Lookups, point []E) []E {
	dims, _, _ := ShapeVars(lk.Shape)
	eq := poly.EqTable[E, P](point)
	out := make([]E, len(lk.Columns))
	count := len(lk.Columns[0])
	var mu sync.Mutex
	parallel.Execute(count, parallelChunk, func(start, end int) {
		part := make([]E, len(out))
		// Most entries are small: with enough lookups, eq is summed per
		// value (buckets[c][v + smallValues]), and each value multiplies
		// its sum once.
		var buckets [][]E
		if count >= multiplesThreshold {
			buckets = make([][]E, len(out))
			for c := range buckets {
				buckets[c] = make([]E, 2*smallValues)
			}
		}
		var v E
		for i := start; i < end; i++ {
			at := padIndex(lk.Shape, dims, i)
			for c := range part {
				x := lk.Columns[c][i]
				switch {
				case x == 0:
				case buckets != nil && x > -smallValues && x < smallValues:
					b := &buckets[c][x+smallValues]
					P(b).Add(b, &eq[at])
				default:
					P(&v).SetInt64(x)
					P(&v).Mul(&v, &eq[at])
					P(&part[c]).Add(&part[c], &v)
				}
			}
		}
		for c := range buckets {
			for k := range buckets[c] {
				if b := &buckets[c][k]; !P(b).IsZero() {
					P(&v).SetInt64(int64(k - smallValues))
					P(&v).Mul(&v, b)
					P(&part[c]).Add(&part[c], &v)
				}
			}
		}
		mu.Lock()
		for c := range out {
			P(&out[c]).Add(&out[c], &part[c])
		}
		mu.Unlock()
	})
	return out
}

// VerifyCommitted checks a committed LogUp proof that the tuples of a
// tensor of the given shape are rows of the combined table of s, after
// absorbing the multiplicities' commitment digest, and returns the claims
// the caller must reduce: the lookup columns' and the multiplicities'
// (to be proven by an opening of the commitment whose digest was given).
// Cost: O(n² + k²) for the two trees and O(T·k) for the set's columns
// when they are affine (dense columns O(2ᵏₜ) each).
func VerifyCommitted[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], digest []E, s *table.Set, shape []int, proof *CommittedProof[E], opts ...CommittedOption) (*CommittedClaims[E], error) {
	cfg := committedOptions(opts)
	if err := s.Validate(); err != nil {
		return nil, err
	}
	_, total, err := ShapeVars(shape)
	if err != nil {
		return nil, err
	}
	if len(proof.ColumnEvals) != s.NbColumns() {
		return nil, fmt.Errorf("lookup: %d column evaluations for %d columns", len(proof.ColumnEvals), s.NbColumns())
	}
	var dense []DenseColumn
	if cfg.tableClaims {
		dense = DenseColumns(s)
	}
	if len(proof.TableEvals) != len(dense) {
		return nil, fmt.Errorf("lookup: %d table evaluations for %d dense columns left as claims", len(proof.TableEvals), len(dense))
	}
	beta, alpha := committedChallenges(tr, s, digest)
	n := witnessVars(total)
	wl, err := verifyFraction(tr, n, &proof.Witness)
	if err != nil {
		return nil, fmt.Errorf("lookup: witness tree: %w", err)
	}
	tl, err := verifyFraction(tr, s.NbVars, &proof.Table)
	if err != nil {
		return nil, fmt.Errorf("lookup: table tree: %w", err)
	}
	tr.Absorb(proof.MultiplicityEval)
	tr.Absorb(proof.ColumnEvals...)
	if cfg.tableClaims {
		tr.Absorb(proof.TableEvals...)
	}
	if err := checkWitnessLeaf[E, P](shape, n, total, &wl, &beta, &alpha, proof.ColumnEvals); err != nil {
		return nil, err
	}
	if !P(&tl.PValue).Equal(&proof.MultiplicityEval) {
		return nil, fmt.Errorf("lookup: table numerators do not match the multiplicities' evaluation")
	}
	given := map[DenseColumn]*E{}
	var tables []poly.Claim[E]
	for k, d := range dense {
		given[d] = &proof.TableEvals[k]
		tables = append(tables, poly.Claim[E]{Point: tableLocal(s, d.Table, tl.Point), Value: proof.TableEvals[k]})
	}
	tv := make([]E, s.NbColumns())
	for c := range tv {
		tv[c] = evaluateSetColumn[E, P](s, c, tl.Point, given)
	}
	tf := fold[E, P](&beta, tv)
	var q E
	P(&q).Sub(&alpha, &tf)
	if !P(&tl.QValue).Equal(&q) {
		return nil, fmt.Errorf("lookup: table denominators do not match the set %q", s.Name)
	}
	if err := checkRoots[E, P](&wl, &tl); err != nil {
		return nil, fmt.Errorf("lookup: set %q: %w", s.Name, err)
	}
	return &CommittedClaims[E]{
		Columns:        columnClaims(wl.Point[n-total:], proof.ColumnEvals),
		Multiplicities: poly.Claim[E]{Point: tl.Point, Value: proof.MultiplicityEval},
		Tables:         tables,
	}, nil
}

// checkWitnessLeaf checks p(ρ) = sel(ρ) and q(ρ) = 1 + sel(ρ)(α − 1) −
// z(ρ)·Σ βᶜ w_c(ρ_tail), where z(ρ) = Π over the extra leading variables
// of (1 − ρₖ).
func checkWitnessLeaf[E field.Scalar, P field.Ptr[E]](shape []int, n, total int, wl *fractionLeaf[E], beta, alpha *E, columnEvals []E) error {
	one := field.One[E, P]()
	sel := Selector[E, P](shape, wl.Point)
	if !P(&wl.PValue).Equal(&sel) {
		return fmt.Errorf("lookup: witness numerators do not match the shape")
	}
	z := one
	for k := range n - total {
		var t E
		P(&t).Sub(&one, &wl.Point[k])
		P(&z).Mul(&z, &t)
	}
	w := fold[E, P](beta, columnEvals)
	var q, t E
	P(&q).Sub(alpha, &one)
	P(&q).Mul(&q, &sel)
	P(&q).Add(&q, &one)
	P(&t).Mul(&z, &w)
	P(&q).Sub(&q, &t)
	if !P(&wl.QValue).Equal(&q) {
		return fmt.Errorf("lookup: witness denominators do not match the column evaluations")
	}
	return nil
}

// checkRoots checks Σ 1/(α − w) = Σ m/(α − t), i.e. P_w·Q_t = P_t·Q_w
// with nonzero Q.
func checkRoots[E field.Scalar, P field.Ptr[E]](wl, tl *fractionLeaf[E]) error {
	if P(&wl.Q).IsZero() || P(&tl.Q).IsZero() {
		return fmt.Errorf("a denominator vanishes")
	}
	var lhs, rhs E
	P(&lhs).Mul(&wl.P, &tl.Q)
	P(&rhs).Mul(&tl.P, &wl.Q)
	if !P(&lhs).Equal(&rhs) {
		return fmt.Errorf("the lookups are not all rows of the table")
	}
	return nil
}

// evaluateSetColumn returns the MLE of column c of the combined table of
// s (c = 0 the id column) at point (len(point) = s.NbVars): Σₜ
// indₜ(ρ)·vₜ(ρ) with indₜ the indicator of table t's block (an eq over
// the leading k − kₜ coordinates) and vₜ the id t+1 or the table's own
// column c−1 at the last kₜ coordinates (zero when the table has fewer
// columns), the tables' columns in given taken from it instead of
// evaluated.
func evaluateSetColumn[E field.Scalar, P field.Ptr[E]](s *table.Set, c int, point []E, given map[DenseColumn]*E) E {
	var res E
	for t := range s.Tables {
		tbl := &s.Tables[t]
		var v E
		switch g, ok := given[DenseColumn{Table: t, Column: c}]; {
		case c == 0:
			v = field.FromInt64[E, P](int64(t) + 1)
		case ok:
			v = *g
		case c-1 < len(tbl.Columns):
			v = EvaluateColumn[E, P](tbl, c-1, point[s.NbVars-tbl.NbVars:])
		default:
			continue
		}
		ind := blockIndicator[E, P](s, t, point)
		P(&v).Mul(&v, &ind)
		P(&res).Add(&res, &v)
	}
	return res
}

// blockIndicator is the MLE of the indicator of table t's block: the eq
// polynomial of the block index (offset / 2^kₜ, over k − kₜ bits, most
// significant first) with the leading coordinates of point.
func blockIndicator[E field.Scalar, P field.Ptr[E]](s *table.Set, t int, point []E) E {
	leading := s.NbVars - s.Tables[t].NbVars
	block := s.Offsets[t] >> s.Tables[t].NbVars
	res := field.One[E, P]()
	one := field.One[E, P]()
	for i := range leading {
		var f E
		if block>>(leading-1-i)&1 == 1 {
			f = point[i]
		} else {
			P(&f).Sub(&one, &point[i])
		}
		P(&res).Mul(&res, &f)
	}
	return res
}
