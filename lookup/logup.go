package lookup

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// MultiplicityBits bounds multiplicities: each is < 2³².
const MultiplicityBits = 32

// Lookups are the tuples looked up in a table: Columns[c][i] is entry c of
// tuple i, one column per table column. The tuples fill a tensor of the
// given shape (row-major, unpadded); the protocol's claims are on each
// column's MLE over the shape padded dimension by dimension to powers of
// two, with zeros in the padding.
type Lookups struct {
	Shape   []int
	Columns [][]int64
}

// Proof is a LogUp proof that every tuple of a [Lookups] is a row of a
// [Table].
type Proof[E field.Scalar] struct {
	// Multiplicities[i] counts the tuples equal to row i. They are
	// opened in full: the verifier binds them to the transcript before
	// drawing α and evaluates their MLE itself.
	Multiplicities []uint64
	Witness        FractionProof[E]
	Table          FractionProof[E]
	// ColumnEvals[c] is column c of the lookups at the leaf point ρ of
	// the witness tree: the claims the protocol outputs.
	ColumnEvals []E
}

// ShapeVars returns the number of variables of each padded dimension and
// their total (poly.TensorVars), at most 30.
func ShapeVars(shape []int) (dims []int, total int, err error) {
	if dims, total, err = poly.TensorVars(shape); err != nil {
		return nil, 0, fmt.Errorf("lookup: %w", err)
	}
	if total > 30 {
		return nil, 0, fmt.Errorf("lookup: shape %v has 2^%d padded entries", shape, total)
	}
	return dims, total, nil
}

// witnessVars is the number of variables of the witness tree: the padded
// shape, and at least one.
func witnessVars(total int) int { return max(total, 1) }

// Selector returns the MLE at point of the indicator of the valid (unpadded)
// entries of the shape: Πᵢ Prefix(ρᵢ, shapeᵢ) over the blocks of the point.
func Selector[E field.Scalar, P field.Ptr[E]](shape []int, point []E) E {
	dims, total, _ := ShapeVars(shape)
	res := field.One[E, P]()
	// A witness tree of one variable over a 1-entry shape: the extra
	// (most significant) variable must be 0.
	off := len(point) - total
	for k := range off {
		var t E
		P(&t).SetOne()
		P(&t).Sub(&t, &point[k])
		P(&res).Mul(&res, &t)
	}
	for i, v := range dims {
		s := poly.Prefix[E, P](point[off:off+v], shape[i])
		P(&res).Mul(&res, &s)
		off += v
	}
	return res
}

// padIndex maps a row-major index of the shape to its index in the padded
// layout.
func padIndex(shape, dims []int, i int) int {
	idx := 0
	for d := len(shape) - 1; d >= 0; d-- {
		coord := i % shape[d]
		i /= shape[d]
		idx |= coord << shiftOf(dims, d)
	}
	return idx
}

func shiftOf(dims []int, d int) int {
	s := 0
	for _, v := range dims[d+1:] {
		s += v
	}
	return s
}

// PackedMultiplicities packs multiplicities into field elements, ⌊(b−1)/32⌋
// per element (7 for both fields), little end first: the transcript absorbs
// these elements.
func PackedMultiplicities[E field.Scalar, P field.Ptr[E]](m []uint64) []E {
	per := PackingFactor[E]()
	out := make([]E, (len(m)+per-1)/per)
	var shift, t E
	P(&shift).SetUint64(1 << 32)
	for i := range out {
		for j := min(len(m), (i+1)*per) - 1; j >= i*per; j-- {
			P(&out[i]).Mul(&out[i], &shift)
			P(&t).SetUint64(m[j])
			P(&out[i]).Add(&out[i], &t)
		}
	}
	return out
}

// PackingFactor is the number of 32-bit multiplicities per field element.
func PackingFactor[E field.Scalar]() int {
	return (field.Bits[E]() - 1) / MultiplicityBits
}

// challenges binds the multiplicities and draws the column-folding β and
// the LogUp point α.
func challenges[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], tbl *table.Table, m []uint64) (beta, alpha E) {
	tr.Label("lookup/" + tbl.Name)
	tr.Absorb(PackedMultiplicities[E, P](m)...)
	if len(tbl.Columns) > 1 {
		beta = tr.Challenge()
	}
	alpha = tr.Challenge()
	return beta, alpha
}

// fold returns Σ_c βᶜ·v_c.
func fold[E field.Scalar, P field.Ptr[E]](beta *E, values []E) E {
	var res E
	for c := len(values) - 1; c >= 0; c-- {
		P(&res).Mul(&res, beta)
		P(&res).Add(&res, &values[c])
	}
	return res
}

// Prove proves that every tuple of lk is a row of tbl. The caller must
// have bound the lookups to the transcript (they are tensors whose claims
// are reduced elsewhere, or advice absorbed before) before calling. It
// returns one claim per column on the padded column MLE.
func Prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], tbl *table.Table, lk *Lookups) (*Proof[E], []poly.Claim[E], error) {
	if err := tbl.Validate(); err != nil {
		return nil, nil, err
	}
	dims, total, err := ShapeVars(lk.Shape)
	if err != nil {
		return nil, nil, err
	}
	if len(lk.Columns) != len(tbl.Columns) {
		return nil, nil, fmt.Errorf("lookup: %d columns looked up in tbl %q of %d columns", len(lk.Columns), tbl.Name, len(tbl.Columns))
	}
	count := 1
	for _, d := range lk.Shape {
		count *= d
	}
	for c, col := range lk.Columns {
		if len(col) != count {
			return nil, nil, fmt.Errorf("lookup: column %d has %d entries for shape %v", c, len(col), lk.Shape)
		}
	}
	m, err := Multiplicities(tbl, lk)
	if err != nil {
		return nil, nil, err
	}
	return prove(tr, tbl, lk, dims, total, count, m)
}

// Multiplicities counts, for each row of tbl, the tuples of lk equal to
// it; it fails if a tuple is not in the table.
func Multiplicities(tbl *table.Table, lk *Lookups) ([]uint64, error) {
	return countRows(1<<tbl.NbVars, lk, tbl.Row)
}

// countChunk is the number of lookups a core counts at a time.
const countChunk = 1 << 16

// countRows counts, for each of the rows of a table, the tuples of lk that
// rowOf maps to it, on every core: each core takes chunks of the lookups
// in turn and counts into its own table. It fails with the first tuple,
// in lookup order, that rowOf refuses.
func countRows(rows int, lk *Lookups, rowOf func(tuple []int64) (int, error)) ([]uint64, error) {
	n := len(lk.Columns[0])
	chunks := (n + countChunk - 1) / countChunk
	workers := max(min(runtime.GOMAXPROCS(0), chunks), 1)
	counts := make([][]uint64, workers)
	errs := make([]error, chunks)
	var next atomic.Int64
	parallel.Execute(workers, 1, func(start, end int) {
		for w := start; w < end; w++ {
			m := make([]uint64, rows)
			counts[w] = m
			tuple := make([]int64, len(lk.Columns))
			for k := int(next.Add(1) - 1); k < chunks; k = int(next.Add(1) - 1) {
				for i := k * countChunk; i < min((k+1)*countChunk, n); i++ {
					for c := range tuple {
						tuple[c] = lk.Columns[c][i]
					}
					row, err := rowOf(tuple)
					if err != nil {
						errs[k] = fmt.Errorf("tuple %d: %w", i, err)
						break
					}
					m[row]++
				}
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	m := counts[0]
	for _, c := range counts[1:] {
		for i, v := range c {
			m[i] += v
		}
	}
	return m, nil
}

// prove runs the protocol with the given multiplicities (which an honest
// prover computes with [Multiplicities]).
func prove[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], tbl *table.Table, lk *Lookups, dims []int, total, count int, m []uint64) (*Proof[E], []poly.Claim[E], error) {
	var err error
	beta, alpha := challenges(tr, tbl, m)

	wp, wq, _ := witnessLeaves[E, P](lk, &beta, &alpha)
	n := witnessVars(total)
	values := make([]E, len(lk.Columns))
	proof := &Proof[E]{Multiplicities: m}
	var rho []E
	if proof.Witness, rho, err = proveFraction(tr, wp, wq, nil); err != nil {
		return nil, nil, err
	}
	// Table tree: p = m, q = α − Σ βᶜ t_c.
	tp, tq := newHalves[E](len(m)), newHalves[E](len(m))
	var x E
	for i := range m {
		P(&x).SetUint64(m[i])
		tp.set(i, &x)
		for c := range values {
			P(&values[c]).SetInt64(tbl.Value(c, i))
		}
		t := fold[E, P](&beta, values)
		P(&x).Sub(&alpha, &t)
		tq.set(i, &x)
	}
	if proof.Table, _, err = proveFraction(tr, tp, tq, nil); err != nil {
		return nil, nil, err
	}
	tail := rho[n-total:]
	proof.ColumnEvals = columnEvals[E, P](lk, tail)
	tr.Absorb(proof.ColumnEvals...)
	return proof, columnClaims(tail, proof.ColumnEvals), nil
}

func columnClaims[E field.Scalar](point, values []E) []poly.Claim[E] {
	claims := make([]poly.Claim[E], len(values))
	for c := range values {
		claims[c] = poly.Claim[E]{Point: append([]E(nil), point...), Value: values[c]}
	}
	return claims
}

// Verify checks a LogUp proof that the tuples of a tensor of the given
// shape are rows of tbl, and returns the claims on the lookups' columns
// that the caller must reduce further. Cost: O(n²) for a witness of 2ⁿ
// entries and O(k²) + the table's column evaluations (O(k) for affine
// columns, O(2ᵏ) for dense ones) + O(2ᵏ) for the multiplicities.
func Verify[E field.Scalar, P field.Ptr[E]](tr *transcript.Transcript[E, P], tbl *table.Table, shape []int, proof *Proof[E]) ([]poly.Claim[E], error) {
	if err := tbl.Validate(); err != nil {
		return nil, err
	}
	_, total, err := ShapeVars(shape)
	if err != nil {
		return nil, err
	}
	if len(proof.Multiplicities) != 1<<tbl.NbVars {
		return nil, fmt.Errorf("lookup: %d multiplicities for a tbl of %d rows", len(proof.Multiplicities), 1<<tbl.NbVars)
	}
	for i, m := range proof.Multiplicities {
		if m>>MultiplicityBits != 0 {
			return nil, fmt.Errorf("lookup: multiplicity %d is %d, not below 2^%d", i, m, MultiplicityBits)
		}
	}
	if len(proof.ColumnEvals) != len(tbl.Columns) {
		return nil, fmt.Errorf("lookup: %d column evaluations for %d columns", len(proof.ColumnEvals), len(tbl.Columns))
	}
	beta, alpha := challenges(tr, tbl, proof.Multiplicities)

	n := witnessVars(total)
	wl, err := verifyFraction(tr, n, &proof.Witness)
	if err != nil {
		return nil, fmt.Errorf("lookup: witness tree: %w", err)
	}
	tl, err := verifyFraction(tr, tbl.NbVars, &proof.Table)
	if err != nil {
		return nil, fmt.Errorf("lookup: tbl tree: %w", err)
	}
	tr.Absorb(proof.ColumnEvals...)

	if err := checkWitnessLeaf[E, P](shape, n, total, &wl, &beta, &alpha, proof.ColumnEvals); err != nil {
		return nil, err
	}
	// Table leaves: p(ρ') = m(ρ'), q(ρ') = α − Σ βᶜ t_c(ρ').
	mv := make([]E, len(proof.Multiplicities))
	for i, m := range proof.Multiplicities {
		P(&mv[i]).SetUint64(m)
	}
	mEval := poly.Evaluate[E, P](mv, tl.Point)
	if !P(&tl.PValue).Equal(&mEval) {
		return nil, fmt.Errorf("lookup: tbl numerators do not match the multiplicities")
	}
	tv := make([]E, len(tbl.Columns))
	for c := range tv {
		tv[c] = EvaluateColumn[E, P](tbl, c, tl.Point)
	}
	tf := fold[E, P](&beta, tv)
	var q E
	P(&q).Sub(&alpha, &tf)
	if !P(&tl.QValue).Equal(&q) {
		return nil, fmt.Errorf("lookup: tbl denominators do not match the table")
	}
	if err := checkRoots[E, P](&wl, &tl); err != nil {
		return nil, fmt.Errorf("lookup: tbl %q: %w", tbl.Name, err)
	}
	return columnClaims(wl.Point[n-total:], proof.ColumnEvals), nil
}
