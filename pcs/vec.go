package pcs

import (
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
)

// vecChunk is the least number of entries a worker takes in the prover's
// element-wise loops.
const vecChunk = 1 << 13

// column is an MLE's table as the grouped opening reads it: stored (t), or
// generated over n entries by fill (a sumcheck.Generator's), which the
// opening calls for the spans it reads.
type column struct {
	t    []fr.Element
	fill func(dst []fr.Element, start int)
	n    int
}

// stored is the column of a table held in memory.
func stored(t []fr.Element) column { return column{t: t, n: len(t)} }

// span returns entries [start, end) of c: a slice of its table, or *buf
// (grown as needed) filled by its generator.
func (c *column) span(buf *[]fr.Element, start, end int) []fr.Element {
	if c.fill == nil {
		return c.t[start:end]
	}
	if cap(*buf) < end-start {
		*buf = make([]fr.Element, end-start)
	}
	b := (*buf)[:end-start]
	c.fill(b, start)
	return b
}

// spanSize is the span in which the kernels read a column of n entries:
// a granule (the unit of the zero flags), or n when smaller.
func spanSize(n int) int { return min(n, granule) }

// addScaled sets dst[i] += a·src[i], on every core.
func addScaled(dst, src []fr.Element, a *fr.Element) {
	parallel.Execute(len(src), vecChunk, func(start, end int) {
		var scratch []fr.Element
		for c := start; c < end; c += vecChunk {
			e := min(c+vecChunk, end)
			addScaledSpan(dst[c:e], src[c:e], a, &scratch)
		}
	})
}

// addScaledSpan sets dst[i] += a·src[i] on the calling goroutine with
// the vector kernels (a product into *scratch, then a sum: two passes of
// the vectorized kernels are faster than one of element products).
func addScaledSpan(dst, src []fr.Element, a *fr.Element, scratch *[]fr.Element) {
	if cap(*scratch) < len(src) {
		*scratch = make([]fr.Element, len(src))
	}
	t := (*scratch)[:len(src)]
	field.ScalarMul(t, src, a)
	field.Add(dst, dst, t)
}

// innerProductAt returns Σ a[i]·f[off+i] over a's entries, on every
// core.
func innerProductAt(a []fr.Element, f *column, off int) fr.Element {
	if f.fill == nil {
		return innerProduct(a, f.t[off:off+len(a)])
	}
	u := spanSize(len(a))
	return sumOfSpans(len(a), u, func(q int, buf *[]fr.Element) fr.Element {
		return dot(a[q*u:(q+1)*u], f.span(buf, off+q*u, off+(q+1)*u))
	})
}

// sumOfSpans returns Σ_q term(q) over the spans q of u entries of n
// (u divides n), on every core; term may read a column's span into buf,
// a buffer of the calling worker.
func sumOfSpans(n, u int, term func(q int, buf *[]fr.Element) fr.Element) fr.Element {
	var mu sync.Mutex
	var sum fr.Element
	parallel.Execute(n/u, vecChunk/u, func(start, end int) {
		var part fr.Element
		var buf []fr.Element
		for q := start; q < end; q++ {
			d := term(q, &buf)
			part.Add(&part, &d)
		}
		mu.Lock()
		sum.Add(&sum, &part)
		mu.Unlock()
	})
	return sum
}

// innerProduct returns Σ a[i]·b[i], on every core.
func innerProduct(a, b []fr.Element) fr.Element {
	var mu sync.Mutex
	var sum fr.Element
	parallel.Execute(len(a), vecChunk, func(start, end int) {
		part := dot(a[start:end], b[start:end])
		mu.Lock()
		sum.Add(&sum, &part)
		mu.Unlock()
	})
	return sum
}

// dot returns Σ a[i]·b[i] on the calling goroutine (the vector
// kernel).
func dot(a, b []fr.Element) fr.Element {
	return field.InnerProduct(a, b)
}

// horner returns Σᵢ f[i]·xⁱ: each worker evaluates its chunk by Horner's
// rule and scales it by x^start.
func horner(f []fr.Element, x *fr.Element) fr.Element {
	var mu sync.Mutex
	var res fr.Element
	parallel.Execute(len(f), vecChunk, func(start, end int) {
		var part fr.Element
		for i := end - 1; i >= start; i-- {
			part.Mul(&part, x).Add(&part, &f[i])
		}
		var shift fr.Element
		shift.Exp(*x, new(big.Int).SetInt64(int64(start)))
		part.Mul(&part, &shift)
		mu.Lock()
		res.Add(&res, &part)
		mu.Unlock()
	})
	return res
}

// innerProductZero is innerProduct skipping the granules where a or b is
// zero (zeroA, zeroB: their zero granules, nil when not tracked).
func innerProductZero(a []fr.Element, b *column, zeroA, zeroB []bool) fr.Element {
	if zeroA == nil && zeroB == nil {
		return innerProductAt(a, b, 0)
	}
	return sumOfSpans(len(a), granule, func(q int, buf *[]fr.Element) fr.Element {
		if (zeroA != nil && zeroA[q]) || (zeroB != nil && zeroB[q]) {
			return fr.Element{}
		}
		return dot(a[q*granule:(q+1)*granule], b.span(buf, q*granule, (q+1)*granule))
	})
}
