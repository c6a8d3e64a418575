package committed

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/lookup"
)

// Size returns the bytes of the proof's field elements (32 bytes each)
// and compressed G1 points (48 bytes each): the size of a compact
// encoding, length prefixes aside.
func (p *Proof) Size() int {
	const scalar, point = 32, 48
	points := 2 + limbRows + len(p.Opening.Opening.Folds) + 2
	scalars := 1 + limbRows + 2*len(p.Functions) + len(p.Accumulators) + len(p.ResidualEvals)
	if p.Boundary != nil {
		points++
		scalars++
	}
	if p.Incoming != nil {
		points++
	}
	scalars += fractionScalars(&p.Lookup.Witness) + fractionScalars(&p.Lookup.Table)
	scalars += 1 + len(p.Lookup.ColumnEvals)
	scalars += rounds(p.Decomposition.SumCheck.Rounds) + len(p.Decomposition.Evaluations)
	scalars += rounds(p.Requant.Rounds)
	scalars += rounds(p.Opening.SumCheck.Rounds) + 3*len(p.Opening.Opening.Evaluations)
	for _, fs := range [][]FactorProof{p.Products, p.Rotations, p.Attention} {
		for _, f := range fs {
			scalars += rounds(f.SumCheck.Rounds) + 2
		}
	}
	for _, n := range p.Norms {
		scalars += nbNormRows + nbVarianceEvals + nbScaleEvals + rounds(n.Variance.Rounds) + rounds(n.Scale.Rounds)
	}
	for _, sm := range p.Softmax {
		scalars += rounds(sm.Zero.SumCheck.Rounds) + len(sm.Zero.Evaluations) + len(sm.Rows) + rounds(sm.OneHot.Rounds) + len(sm.OneHotEvals)
	}
	if a := p.Argmax; a != nil {
		scalars += len(a.Chosen) + 2 + rounds(a.SumCheck.Rounds)
	}
	for _, lp := range p.Projections {
		scalars += len(lp.Biases) + rounds(lp.SumCheck.Rounds) + len(lp.Inputs) + len(lp.Weights)
	}
	return scalar*scalars + point*points
}

func fractionScalars(f *lookup.FractionProof[fr.Element]) int {
	n := len(f.Root)
	for _, l := range f.Layers {
		n += rounds(l.SumCheck.Rounds) + len(l.Evals)
	}
	return n
}

func rounds(r [][]fr.Element) int {
	n := 0
	for _, x := range r {
		n += len(x)
	}
	return n
}
