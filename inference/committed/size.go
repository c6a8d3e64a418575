package committed

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/lookup"
)

// Size returns the bytes of the proof's field elements (32 bytes each),
// compressed G1 points (48 bytes each) and argmax targets (4 bytes
// each): the size of a compact encoding, length prefixes aside.
func (p *Proof) Size() int {
	n := 32*p.scalars() + 48*p.points()
	if p.Argmax != nil {
		n += 4 * len(p.Argmax.Targets)
	}
	return n
}

// scalars is the number of field elements of the proof.
func (p *Proof) scalars() int {
	scalars := 1 + len(p.LimbEvals) + 2*len(p.Functions) + len(p.Accumulators) + len(p.ResidualEvals)
	if p.Boundary != nil {
		scalars++
	}
	scalars += fractionScalars(&p.Lookup.Witness) + fractionScalars(&p.Lookup.Table)
	scalars += 1 + len(p.Lookup.ColumnEvals) + len(p.Lookup.TableEvals)
	scalars += rounds(p.Decomposition.SumCheck.Rounds) + len(p.Decomposition.Evaluations)
	scalars += rounds(p.Requant.Rounds)
	scalars += rounds(p.Opening.SumCheck.Rounds) + 3*len(p.Opening.Opening.Evaluations)
	for _, fs := range [][]FactorProof{p.Products, p.Rotations, p.Attention} {
		for _, f := range fs {
			scalars += rounds(f.SumCheck.Rounds) + 2
		}
	}
	for _, k := range p.Keys {
		scalars += rounds(k.SumCheck.Rounds) + 1
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
	for _, c := range p.Cache {
		// Per read: y_prev and y_X; per write: y_X; the two W values.
		scalars += 2 + 2 + 2 + 2 + rounds(c.ReadKeys.Shift.Rounds) + rounds(c.ReadValues.Shift.Rounds) +
			rounds(c.WriteKeys.Shift.Rounds) + rounds(c.WriteValues.Shift.Rounds)
	}
	for _, lp := range p.Projections {
		scalars += len(lp.Biases) + rounds(lp.SumCheck.Rounds) + len(lp.Inputs) + len(lp.Weights)
	}
	return scalars
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

// FieldWork is what a circuit verifying the proof does in Fr, counted
// from the proof: the sum-check rounds by degree (values per round), the
// GKR layers' rounds among them, the scalars absorbed into the
// transcript and the commitment points (which enter a segment circuit as
// digests the aggregator computes).
type FieldWork struct {
	// Rounds[d] is the number of sum-check rounds of degree d, GKR
	// layers included.
	Rounds map[int]int
	// GKRRounds are the rounds of the LogUp instance's two trees,
	// GKRValues their values.
	GKRRounds, GKRValues int
	// Scalars are the field elements the proof sends, every one absorbed.
	Scalars int
	// Points are the G1 points: commitments, folds, the quotient.
	Points int
	// FoldChecks are the opening's fold consistency checks.
	FoldChecks int
}

// Per-unit circuit costs measured on BLS12-377 (gadgets/sumcheck and
// gadgets/lookup constraint snapshots): about 191 R1CS per absorbed
// scalar with its share of the round interpolation (a zero-check round
// of d values costs ≈ 191·d), ≈ 850 per degree-3 GKR round (its four
// values and the layer's combination).
const (
	r1csPerScalar   = 191
	r1csPerGKRRound = 850
)

// FieldWork counts the proof's field work.
func (p *Proof) FieldWork() FieldWork {
	w := FieldWork{Rounds: map[int]int{}, Scalars: p.scalars(), Points: p.points()}
	count := func(r [][]fr.Element) {
		for _, x := range r {
			w.Rounds[len(x)]++
		}
	}
	for _, f := range []*lookup.FractionProof[fr.Element]{&p.Lookup.Witness, &p.Lookup.Table} {
		for _, l := range f.Layers {
			count(l.SumCheck.Rounds)
			w.GKRRounds += len(l.SumCheck.Rounds)
			w.GKRValues += rounds(l.SumCheck.Rounds)
		}
	}
	count(p.Decomposition.SumCheck.Rounds)
	count(p.Requant.Rounds)
	count(p.Opening.SumCheck.Rounds)
	for _, fs := range [][]FactorProof{p.Products, p.Rotations, p.Attention} {
		for _, f := range fs {
			count(f.SumCheck.Rounds)
		}
	}
	for _, k := range p.Keys {
		count(k.SumCheck.Rounds)
	}
	for _, n := range p.Norms {
		count(n.Variance.Rounds)
		count(n.Scale.Rounds)
	}
	for _, sm := range p.Softmax {
		count(sm.Zero.SumCheck.Rounds)
		count(sm.OneHot.Rounds)
	}
	if p.Argmax != nil {
		count(p.Argmax.SumCheck.Rounds)
	}
	for _, lp := range p.Projections {
		count(lp.SumCheck.Rounds)
	}
	w.FoldChecks = len(p.Opening.Opening.Evaluations)
	return w
}

// EstimatedR1CS estimates the segment circuit's transcript and
// sum-check work from the measured per-unit costs: GKR rounds at their
// own cost, every other scalar at r1csPerScalar. It leaves out what does
// not scale with the proof: the statement, the public tables' and
// weights' evaluations and the opening's final scalars.
func (w FieldWork) EstimatedR1CS() int {
	return r1csPerGKRRound*w.GKRRounds + r1csPerScalar*max(w.Scalars-w.GKRValues, 0)
}

// points is the number of G1 points of the proof.
func (p *Proof) points() int {
	return len(p.Commitments()) + len(p.Opening.Opening.Folds) + 1
}
