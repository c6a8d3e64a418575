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

// EqTable returns β(point, x) for all x ∈ {0,1}ⁿ in the package's index
// order, with 2ⁿ − 2 multiplications (the first level is linear).
func EqTable(api frontend.API, point []frontend.Variable) []frontend.Variable {
	table := []frontend.Variable{1}
	// Variables enter from the last, each as the new most significant bit.
	for k := len(point) - 1; k >= 0; k-- {
		size := len(table)
		next := make([]frontend.Variable, 2*size)
		for i := range size {
			hi := api.Mul(table[i], point[k])
			next[i] = api.Sub(table[i], hi)
			next[i+size] = hi
		}
		table = next
	}
	return table
}

// EvaluateTensor returns the MLE at point of a tensor given row-major with
// the given shape and zero-padded dimension by dimension to powers of two
// (poly.TensorVars): the eq table of the point (2ⁿ multiplications) and
// one multiplication per entry.
func EvaluateTensor(api frontend.API, values []frontend.Variable, paddedIndex []int, point []frontend.Variable) frontend.Variable {
	eq := EqTable(api, point)
	terms := make([]frontend.Variable, len(values))
	for i, v := range values {
		terms[i] = api.Mul(eq[paddedIndex[i]], v)
	}
	return Sum(api, terms)
}

// Sum returns the sum of terms as one linear expression (0 for none): no
// constraint until gnark compresses a long expression.
func Sum(api frontend.API, terms []frontend.Variable) frontend.Variable {
	switch len(terms) {
	case 0:
		return 0
	case 1:
		return terms[0]
	}
	return api.Add(terms[0], terms[1], terms[2:]...)
}
