package poly

import (
	"fmt"
	"math/bits"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
)

// parallelThreshold is the table half-size below which kernels run on the
// calling goroutine: goroutine start-up costs more than the work.
const parallelThreshold = 1 << 13

// NbVars returns n such that size = 2ⁿ, or an error if size is not a power of
// two.
func NbVars(size int) (int, error) {
	if !IsPowerOfTwo(size) {
		return 0, fmt.Errorf("poly: table size %d is not a power of two", size)
	}
	return bits.TrailingZeros(uint(size)), nil
}

// IsPowerOfTwo reports whether n is a positive power of two.
func IsPowerOfTwo(n int) bool { return n > 0 && n&(n-1) == 0 }

// NextPowerOfTwo returns the smallest power of two ≥ n (1 for n ≤ 1).
func NextPowerOfTwo(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// Log2Ceil returns ⌈log₂ n⌉ (0 for n ≤ 1).
func Log2Ceil(n int) int {
	return bits.TrailingZeros(uint(NextPowerOfTwo(n)))
}

// Concat returns the concatenation of the parts (points, mostly) in a new
// slice that aliases none of them. It is generic so that circuit code
// concatenates points of variables with it too.
func Concat[T any](parts ...[]T) []T {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]T, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Fold fixes the first (most significant) variable X₁ of the MLE f to r, in
// place: f[i] ← f[i] + r·(f[i+h] − f[i]) for i < h = len(f)/2, and returns
// f[:h]. The upper half of f is left as scratch. len(f) must be a power of
// two ≥ 2.
func Fold[E field.Scalar, P field.Ptr[E]](f []E, r *E) []E {
	half := len(f) / 2
	return foldHalves(f[:half], f[half:], f[:half], f[half:], r)
}

// FoldInto is [Fold] into dst (len(f)/2 entries, not overlapping f),
// leaving f intact: dst[i] = f[i] + r·(f[i+h] − f[i]). It returns dst.
func FoldInto[E field.Scalar, P field.Ptr[E]](dst, f []E, r *E) []E {
	half := len(f) / 2
	return foldHalves(dst[:half], dst[:half], f[:half], f[half:], r)
}

// foldHalves sets dst = lo + r·(hi − lo) with scratch holding hi − lo
// scaled by r, on both cores; scratch may be dst or hi, dst may be lo.
// It returns dst.
func foldHalves[E field.Scalar](dst, scratch, lo, hi []E, r *E) []E {
	parallel.Execute(len(lo), parallelThreshold, func(start, end int) {
		FoldSpan(dst[start:end], scratch[start:end], lo[start:end], hi[start:end], r)
	})
	return dst
}

// FoldSpan is the kernel of [Fold] on one goroutine: it sets
// dst = lo + r·(hi − lo), with scratch (as long as lo) left holding
// r·(hi − lo); scratch may be dst or hi, dst may be lo. Provers that fold
// in blocks of their own (package sumcheck's) call it on each block.
func FoldSpan[E field.Scalar](dst, scratch, lo, hi []E, r *E) {
	field.Sub(scratch, hi, lo)
	field.ScalarMul(scratch, scratch, r)
	field.Add(dst, lo, scratch)
}

// Evaluate returns f(point) for the MLE whose table is f; len(f) must be
// 2^len(point). f is not modified. O(2ⁿ) field operations.
func Evaluate[E field.Scalar, P field.Ptr[E]](f []E, point []E) E {
	if len(f) != 1<<len(point) {
		panic(fmt.Sprintf("poly: Evaluate: table of %d entries at a point of %d variables", len(f), len(point)))
	}
	if len(point) == 0 {
		return f[0]
	}
	// First fold writes into a fresh half-size buffer so f stays intact.
	buf := FoldInto[E, P](hugepage.Make[E](len(f)/2), f, &point[0])
	for k := 1; k < len(point); k++ {
		buf = Fold[E, P](buf, &point[k])
	}
	return buf[0]
}

// EqTable returns the table of β(point, x) = Πₖ (pₖxₖ + (1−pₖ)(1−xₖ)) over
// x ∈ {0,1}ⁿ, in O(2ⁿ) multiplications.
func EqTable[E field.Scalar, P field.Ptr[E]](point []E) []E {
	var one E
	P(&one).SetOne()
	return EqTableScaled[E, P](point, &one)
}

// EqTableScaled returns scale·β(point, x) for all x ∈ {0,1}ⁿ.
func EqTableScaled[E field.Scalar, P field.Ptr[E]](point []E, scale *E) []E {
	table := hugepage.Make[E](1 << len(point))
	table[0] = *scale
	// Variables enter from the last to the first, each as the new most
	// significant bit: after adding Xₖ the first 2^(n−k+1) entries hold the
	// table over (Xₖ…Xₙ). Entry i splits into i (Xₖ = 0) and i+size (Xₖ = 1),
	// so each step is two vector operations on contiguous halves.
	size := 1
	for k := len(point) - 1; k >= 0; k-- {
		lo, hi := table[:size], table[size:2*size]
		r := &point[k]
		parallel.Execute(size, parallelThreshold, func(start, end int) {
			field.ScalarMul(hi[start:end], lo[start:end], r)
			field.Sub(lo[start:end], lo[start:end], hi[start:end])
		})
		size *= 2
	}
	return table
}

// Eq returns β(a, b) = Πₖ (aₖbₖ + (1−aₖ)(1−bₖ)) for points of equal length.
func Eq[E field.Scalar, P field.Ptr[E]](a, b []E) E {
	if len(a) != len(b) {
		panic(fmt.Sprintf("poly: Eq of points with %d and %d variables", len(a), len(b)))
	}
	var res, t, one E
	P(&res).SetOne()
	P(&one).SetOne()
	for k := range a {
		// aₖbₖ + (1−aₖ)(1−bₖ) = 1 − aₖ − bₖ + 2aₖbₖ
		P(&t).Mul(&a[k], &b[k])
		P(&t).Double(&t)
		P(&t).Sub(&t, &a[k])
		P(&t).Sub(&t, &b[k])
		P(&t).Add(&t, &one)
		P(&res).Mul(&res, &t)
	}
	return res
}
