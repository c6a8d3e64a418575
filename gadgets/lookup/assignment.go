package lookup

import (
	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	native "github.com/veriformer/veriformer/lookup"
)

// valueOfFraction returns the assignment of a native fraction tree's
// proof.
func valueOfFraction[E field.Scalar](fp *native.FractionProof[E]) FractionProof {
	var out FractionProof
	copy(out.Root[:], poly.ValuesOf(fp.Root[:]))
	for i := range fp.Layers {
		l := &fp.Layers[i]
		layer := FractionLayer{SumCheck: sumcheck.ValueOfProof(&l.SumCheck)}
		copy(layer.Evals[:], poly.ValuesOf(l.Evals[:]))
		out.Layers = append(out.Layers, layer)
	}
	return out
}
