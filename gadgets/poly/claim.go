package poly

import "github.com/consensys/gnark/frontend"

// Claim is the in-circuit form of a claim f(Point) = Value.
type Claim struct {
	Point []frontend.Variable
	Value frontend.Variable
}
