package lookup

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
)

// Lookups are the tuples looked up in a table: Columns[c][i] is entry c of
// tuple i, one column per table column. The tuples fill a tensor of the
// given shape (row-major, unpadded); the protocol's claims are on each
// column's MLE over the shape padded dimension by dimension to powers of
// two, with zeros in the padding.
type Lookups struct {
	Shape   []int
	Columns [][]int64
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

// fold returns Σ_c βᶜ·v_c.
func fold[E field.Scalar, P field.Ptr[E]](beta *E, values []E) E {
	var res E
	for c := len(values) - 1; c >= 0; c-- {
		P(&res).Mul(&res, beta)
		P(&res).Add(&res, &values[c])
	}
	return res
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

func columnClaims[E field.Scalar](point, values []E) []poly.Claim[E] {
	claims := make([]poly.Claim[E], len(values))
	for c := range values {
		claims[c] = poly.Claim[E]{Point: append([]E(nil), point...), Value: values[c]}
	}
	return claims
}
