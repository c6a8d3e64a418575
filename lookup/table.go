package lookup

import (
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/poly"
)

// EvaluateColumn returns the MLE of column c at point (len(point) = NbVars):
// for an affine column Offset + Σₖ 2^(k_max−k)·rₖ in O(k), otherwise the
// dense evaluation in O(2ᵏ).
func EvaluateColumn[E field.Scalar, P field.Ptr[E]](t *table.Table, c int, point []E) E {
	col := &t.Columns[c]
	if col.Values == nil {
		// MLE of i ↦ Offset + i: Offset + Σₖ 2^(n−k) rₖ (X₁ is the top bit).
		res := field.FromInt64[E, P](col.Offset)
		var w, term E
		P(&w).SetOne()
		for k := len(point) - 1; k >= 0; k-- {
			P(&term).Mul(&point[k], &w)
			P(&res).Add(&res, &term)
			P(&w).Double(&w)
		}
		return res
	}
	values := make([]E, len(col.Values))
	for i, v := range col.Values {
		P(&values[i]).SetInt64(v)
	}
	return poly.Evaluate[E, P](values, point)
}
