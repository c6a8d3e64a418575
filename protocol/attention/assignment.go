package attention

import (
	"math/big"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gadget "github.com/veriformer/veriformer/gadgets/attention"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/sumcheck"
)

// Shape returns the gadget's shape for c.
func (c Config) Shape() gadget.Shape {
	return gadget.Shape{
		Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		QueryRows: c.QueryRows, KeyRows: c.KeyRows, Start: c.Start, MaskValue: c.MaskValue,
		OutputClaims: c.OutputClaims, ScoreClaims: c.ScoreClaims,
	}
}

// Assignment returns the circuit assignment of the proof.
func (p *OutputProof[E]) Assignment() gadget.OutputProof {
	return gadget.OutputProof{
		SamePoly:     samePolyAssignment(p.SamePoly),
		Unpadding:    sumcheckAssignment(p.Unpadding),
		PaddedOutput: bigOf(&p.PaddedOutput),
		Mix:          sumcheckAssignment(p.Mix),
		Probs:        bigOf(&p.Probs),
		PaddedValues: bigOf(&p.PaddedValues),
	}
}

// Assignment returns the circuit assignment of the proof.
func (p *ScoresProof[E]) Assignment() gadget.ScoresProof {
	return gadget.ScoresProof{
		SamePoly:    samePolyAssignment(p.SamePoly),
		Zeroifier:   sumcheckAssignment(p.Zeroifier),
		Scores:      bigOf(&p.Scores),
		Product:     sumcheckAssignment(p.Product),
		PaddedQuery: bigOf(&p.PaddedQuery),
		PaddedKeys:  bigOf(&p.PaddedKeys),
		Padding:     sumcheckAssignment(p.Padding),
		Query:       bigOf(&p.Query),
		Keys:        bigOf(&p.Keys),
		Values:      bigOf(&p.Values),
	}
}

func samePolyAssignment[E field.Scalar](p *sumcheck.SamePolyProof[E]) []gsumcheck.SamePolyProof {
	if p == nil {
		return nil
	}
	return []gsumcheck.SamePolyProof{{SumCheck: sumcheckAssignment(p.SumCheck), Evaluation: bigOf(&p.Evaluation)}}
}

func sumcheckAssignment[E field.Scalar](p sumcheck.Proof[E]) gsumcheck.Proof {
	rounds := make([][]frontend.Variable, len(p.Rounds))
	for i, round := range p.Rounds {
		rounds[i] = make([]frontend.Variable, len(round))
		for j := range round {
			rounds[i][j] = bigOf(&round[j])
		}
	}
	return gsumcheck.Proof{Rounds: rounds}
}

// bigOf returns the canonical integer of a field element.
func bigOf[E field.Scalar](x *E) *big.Int {
	switch v := any(x).(type) {
	case *bn254fr.Element:
		return v.BigInt(new(big.Int))
	case *bls12377fr.Element:
		return v.BigInt(new(big.Int))
	}
	return nil
}
