package lookup

import (
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	native "github.com/veriformer/veriformer/lookup"
)

// ValueOfProof returns the assignment of a native LogUp proof.
func ValueOfProof[E field.Scalar](p *native.Proof[E]) Proof {
	out := Proof{
		Multiplicities: make([]frontend.Variable, len(p.Multiplicities)),
		Witness:        valueOfFraction(&p.Witness),
		Table:          valueOfFraction(&p.Table),
		ColumnEvals:    poly.ValuesOf(p.ColumnEvals),
	}
	for i, m := range p.Multiplicities {
		out.Multiplicities[i] = m
	}
	return out
}

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
