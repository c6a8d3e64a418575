package poly

import (
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
)

// FoldColumns returns t[v] = Σ_c eq[c]·M[v, c] for the rows × cols integer
// matrix M (row-major), zero up to the next power of two of rows: with eq
// the eq table of a column point, the MLE of M with its column coordinates
// bound. rows·cols multiplications, rows spread over cores, without
// materialising the padded field table.
//
// The integers enter the inner products without their conversion to
// Montgomery form (one multiplication each): the limbs of m (or of p − |m|)
// are read as the Montgomery form of m·R⁻¹, so scaling eq by R once makes
// each product m·eq[c] exact.
func FoldColumns[E field.Scalar, P field.Ptr[E]](m []int64, rows, cols int, eq []E) []E {
	r := field.MontgomeryR[E, P]()
	scaled := make([]E, cols)
	field.ScalarMul(scaled, eq[:cols], &r)
	out := hugepage.Make[E](NextPowerOfTwo(rows))
	parallel.Execute(rows, 256, func(start, end int) {
		buf := make([]E, cols)
		for v := start; v < end; v++ {
			field.SetMontgomeryLimbs(buf, m[v*cols:(v+1)*cols])
			out[v] = field.InnerProduct(buf, scaled)
		}
	})
	return out
}
