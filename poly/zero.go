package poly

import (
	"unsafe"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
)

// Granule is the number of entries of a table per flag of [ZeroGranules]:
// the provers that skip the zero blocks of their tables (package
// sumcheck's eq prover, package pcs's grouping sum-check) track them at
// this grain.
const Granule = 256

// ZeroGranules returns, for each granule of Granule entries of table,
// whether it is all zero (nil for a table shorter than two granules),
// scanned on every core.
func ZeroGranules[E field.Scalar](table []E) []bool {
	g := len(table) / Granule
	if g < 2 {
		return nil
	}
	z := make([]bool, g)
	parallel.Execute(g, 64, func(start, end int) {
		for k := start; k < end; k++ {
			z[k] = allZero(table[k*Granule : (k+1)*Granule])
		}
	})
	return z
}

// allZero reports whether every element of s is zero, reading its words.
func allZero[E field.Scalar](s []E) bool {
	if len(s) == 0 {
		return true
	}
	var zero E
	for _, x := range unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)/8)) {
		if x != 0 {
			return false
		}
	}
	return true
}
