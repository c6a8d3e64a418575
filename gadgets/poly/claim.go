package poly

import (
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	native "github.com/veriformer/veriformer/poly"
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

// ValueOfClaim returns the assignment of a native claim.
func ValueOfClaim[E field.Scalar](c *native.Claim[E]) Claim {
	return Claim{Point: ValuesOf(c.Point), Value: field.BigInt(&c.Value)}
}

// ValueOfClaims returns the assignments of native claims.
func ValueOfClaims[E field.Scalar](cs []native.Claim[E]) []Claim {
	out := make([]Claim, len(cs))
	for i := range cs {
		out[i] = ValueOfClaim(&cs[i])
	}
	return out
}
