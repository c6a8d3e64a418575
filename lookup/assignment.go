package lookup

import (
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	glookup "github.com/veriformer/veriformer/gadgets/lookup"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
)

// Assignment returns the proof as a witness assignment of the in-circuit
// verifier (gadgets/lookup).
func Assignment[E field.Scalar, P field.Ptr[E]](p *Proof[E]) glookup.Proof {
	out := glookup.Proof{
		Multiplicities: make([]frontend.Variable, len(p.Multiplicities)),
		Witness:        fractionAssignment[E, P](&p.Witness),
		Table:          fractionAssignment[E, P](&p.Table),
		ColumnEvals:    values[E, P](p.ColumnEvals),
	}
	for i, m := range p.Multiplicities {
		out.Multiplicities[i] = m
	}
	return out
}

func fractionAssignment[E field.Scalar, P field.Ptr[E]](fp *FractionProof[E]) glookup.FractionProof {
	var out glookup.FractionProof
	copy(out.Root[:], values[E, P](fp.Root[:]))
	for _, l := range fp.Layers {
		var layer glookup.FractionLayer
		layer.SumCheck = gsumcheck.ValueOfProof[E, P](l.SumCheck.Rounds)
		copy(layer.Evals[:], values[E, P](l.Evals[:]))
		out.Layers = append(out.Layers, layer)
	}
	return out
}

func values[E field.Scalar, P field.Ptr[E]](xs []E) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i := range xs {
		out[i] = P(&xs[i]).String()
	}
	return out
}
