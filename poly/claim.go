package poly

import "github.com/veriformer/veriformer/field"

// Claim states f(Point) = Value for some MLE f. Claims flow backwards
// through a model: each layer protocol turns claims on its output into
// claims on its inputs and weights.
type Claim[E field.Scalar] struct {
	Point []E
	Value E
}
