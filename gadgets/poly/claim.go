package poly

import (
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
)

// Claim is the in-circuit form of a claim f(Point) = Value.
type Claim struct {
	Point []frontend.Variable
	Value frontend.Variable
}

// ValuesOf converts native field elements to witness values.
func ValuesOf[E field.Scalar](xs []E) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i := range xs {
		out[i] = field.BigInt(&xs[i])
	}
	return out
}

// Ints converts integers (tokens, tensor values) to witness values.
func Ints[T ~int | ~int64](xs []T) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
