package pcs

import (
	"math/big"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/internal/parallel"
)

// vecChunk is the least number of entries a worker takes in the prover's
// element-wise loops.
const vecChunk = 1 << 13

// addScaled sets dst[i] += a·src[i], on every core.
func addScaled(dst, src []fr.Element, a *fr.Element) {
	parallel.Execute(len(src), vecChunk, func(start, end int) {
		var t fr.Element
		for i := start; i < end; i++ {
			t.Mul(&src[i], a)
			dst[i].Add(&dst[i], &t)
		}
	})
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

// dot returns Σ a[i]·b[i] on the calling goroutine.
func dot(a, b []fr.Element) fr.Element {
	var sum, t fr.Element
	for i := range a {
		t.Mul(&a[i], &b[i])
		sum.Add(&sum, &t)
	}
	return sum
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
func innerProductZero(a, b []fr.Element, zeroA, zeroB []bool) fr.Element {
	if zeroA == nil && zeroB == nil {
		return innerProduct(a, b)
	}
	var mu sync.Mutex
	var sum fr.Element
	parallel.Execute(len(a)/granule, vecChunk/granule, func(start, end int) {
		var part fr.Element
		for q := start; q < end; q++ {
			if (zeroA != nil && zeroA[q]) || (zeroB != nil && zeroB[q]) {
				continue
			}
			d := dot(a[q*granule:(q+1)*granule], b[q*granule:(q+1)*granule])
			part.Add(&part, &d)
		}
		mu.Lock()
		sum.Add(&sum, &part)
		mu.Unlock()
	})
	return sum
}
