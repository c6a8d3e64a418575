package poly

import "github.com/consensys/gnark/frontend"

// Eq returns β(a, b) = Πₖ (aₖbₖ + (1−aₖ)(1−bₖ)) for points of equal length.
// Each factor is 1 − aₖ − bₖ + 2aₖbₖ: one multiplication for aₖbₖ and one
// for the running product, so 2n − 1 constraints (fewer where an input is
// constant).
func Eq(api frontend.API, a, b []frontend.Variable) frontend.Variable {
	if len(a) != len(b) {
		panic("poly: Eq of points of different lengths") // circuit-shape bug, caught at compile time
	}
	var res frontend.Variable = 1
	for k := range a {
		ab := api.Mul(a[k], b[k])
		factor := api.Sub(api.Add(api.Mul(ab, 2), 1), api.Add(a[k], b[k]))
		res = api.Mul(res, factor)
	}
	return res
}

// EvaluateDense evaluates the MLE with the given (small) table at point by
// folding X₁ first: len(table) − 1 multiplications. Constant tables fold
// into cheaper linear combinations.
func EvaluateDense(api frontend.API, table []frontend.Variable, point []frontend.Variable) frontend.Variable {
	if len(table) != 1<<len(point) {
		panic("poly: EvaluateDense: table size is not 2^len(point)") // circuit-shape bug
	}
	cur := table
	for _, r := range point {
		half := len(cur) / 2
		next := make([]frontend.Variable, half)
		for i := range half {
			next[i] = api.Add(cur[i], api.Mul(r, api.Sub(cur[i+half], cur[i])))
		}
		cur = next
	}
	return cur[0]
}
