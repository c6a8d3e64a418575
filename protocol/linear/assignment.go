package linear

import (
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/linear"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
)

// Assignment returns the proof as a gadget witness.
func (p *Proof[E]) Assignment() gadget.Proof {
	a := gadget.Proof{
		Biases:   bigs(p.Biases),
		SumCheck: gsumcheck.Proof{Rounds: make([][]frontend.Variable, len(p.SumCheck.Rounds))},
		Inputs:   bigs(p.Inputs),
		Weights:  bigs(p.Weights),
	}
	for i, round := range p.SumCheck.Rounds {
		a.SumCheck.Rounds[i] = bigs(round)
	}
	if p.Merge != nil {
		rounds := make([][]frontend.Variable, len(p.Merge.SumCheck.Rounds))
		for i, round := range p.Merge.SumCheck.Rounds {
			rounds[i] = bigs(round)
		}
		a.Merge = []gsumcheck.SamePolyProof{{SumCheck: gsumcheck.Proof{Rounds: rounds}, Evaluation: bigs([]E{p.Merge.Evaluation})[0]}}
	}
	return a
}

// bigs converts field elements to witness values.
func bigs[E field.Scalar](xs []E) []frontend.Variable {
	out := make([]frontend.Variable, len(xs))
	for i := range xs {
		out[i] = field.BigInt(&xs[i])
	}
	return out
}
