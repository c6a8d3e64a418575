package committed

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/requant"
)

// Requants visits the requantization steps of a segment in canonical
// order (that of inference.WalkSegment): per block the attention norm,
// Q, K, V (RoPE of Q and K), the scores, the context, O, the MLP norm,
// gate, up, the gated product, down; then the final norm and the LM head
// in a segment with the LM head.
func Requants(tr *model.Trace, seg inference.Segment, visit func(r *model.Requant)) {
	for i := seg.From; i < seg.To; i++ {
		l := &tr.Layers[i]
		visit(&l.AttnNorm.Requant)
		visit(&l.Q.Requant)
		visit(&l.K.Requant)
		visit(&l.V.Requant)
		if l.RopeQ != nil {
			visit(&l.RopeQ.Requant)
			visit(&l.RopeK.Requant)
		}
		visit(&l.Attention.Scores)
		visit(&l.Attention.Context)
		visit(&l.O.Requant)
		visit(&l.MLPNorm.Requant)
		if l.Gate != nil {
			visit(&l.Gate.Requant)
		}
		visit(&l.Up.Requant)
		if l.Product != nil {
			visit(l.Product)
		}
		visit(&l.Down.Requant)
	}
	if seg.HasHead(len(tr.Layers)) {
		visit(&tr.FinalNorm.Requant)
		visit(&tr.LMHead.Requant)
	}
}

func spec(r *model.Requant) requant.Spec {
	return requant.Spec{Shape: r.Out.Shape, Multiplier: r.Multiplier, Shift: r.Shift, OutLo: r.Out.Min, OutHi: r.Out.Max}
}

// RequantInverses returns M⁻¹ of a requantization per column of its
// output's padded last dimension (zero in the padded columns), or one
// entry for a single multiplier, as integers below Fr's modulus.
func RequantInverses(r *model.Requant) []*big.Int {
	inv := inverses(r)
	out := make([]*big.Int, len(inv))
	for i := range inv {
		out[i] = inv[i].BigInt(new(big.Int))
	}
	return out
}

// inverses returns M⁻¹ per column of the padded last dimension (zero in
// the padded columns), or one entry for a single multiplier.
func inverses(r *model.Requant) []fr.Element {
	s := spec(r)
	inv := s.Inverses(field.Modulus[fr.Element]())
	if len(inv) == 1 {
		out := make([]fr.Element, 1)
		out[0].SetBigInt(inv[0])
		return out
	}
	out := make([]fr.Element, poly.NextPowerOfTwo(len(inv)))
	for c := range inv {
		out[c].SetBigInt(inv[c])
	}
	return out
}

// eqPair returns y·r + (1−y)(1−r), the per-coordinate factor of
// eq(y, x)·eq(r, x) summed over x ∈ {0, 1} when weighted by the bit.
func eqPair(y, r *fr.Element) (one, zero fr.Element) {
	var a, b fr.Element
	one.Mul(y, r)
	a.SetOne()
	a.Sub(&a, y)
	b.SetOne()
	b.Sub(&b, r)
	zero.Mul(&a, &b)
	return one, zero
}

// weightEval returns Φ(y) = Σ_x eq(y, x)·eq(r, x)·M⁻¹(x) over the block's
// cube (M⁻¹ a function of the last dimension's coordinates, zero in its
// padded columns): a product over the leading coordinates and a sum over
// the last dimension's columns.
func weightEval(rq *model.Requant, y, r []fr.Element) fr.Element {
	inv := inverses(rq)
	dims, _, _ := poly.TensorVars(rq.Out.Shape)
	lastVars := 0
	if len(inv) > 1 {
		lastVars = dims[len(dims)-1]
	}
	leading := len(y) - lastVars
	var res fr.Element
	res.SetOne()
	for i := range leading {
		one, zero := eqPair(&y[i], &r[i])
		one.Add(&one, &zero)
		res.Mul(&res, &one)
	}
	if lastVars == 0 {
		res.Mul(&res, &inv[0])
		return res
	}
	// Σ_c Π_i (bit_i(c) ? y·r : (1−y)(1−r)) · M⁻¹[c].
	table := []fr.Element{field.One[fr.Element]()}
	for i := leading; i < len(y); i++ {
		one, zero := eqPair(&y[i], &r[i])
		next := make([]fr.Element, 2*len(table))
		for k := range table {
			next[2*k].Mul(&table[k], &zero)
			next[2*k+1].Mul(&table[k], &one)
		}
		table = next
	}
	var sum, t fr.Element
	for c := range inv {
		t.Mul(&table[c], &inv[c])
		sum.Add(&sum, &t)
	}
	res.Mul(&res, &sum)
	return res
}

// weightTable returns eq(r, x)·M⁻¹(x) over the block's cube.
func weightTable(rq *model.Requant, r []fr.Element) []fr.Element {
	inv := inverses(rq)
	eq := poly.EqTable[fr.Element](r)
	if len(inv) == 1 {
		for i := range eq {
			eq[i].Mul(&eq[i], &inv[0])
		}
		return eq
	}
	mask := len(inv) - 1
	for i := range eq {
		eq[i].Mul(&eq[i], &inv[i&mask])
	}
	return eq
}

// validWeight returns C = Σ_x eq(r, x)·M⁻¹(x)·valid(x): the selector of
// the leading dimensions times Σ_c eq(r_last, c)·M⁻¹[c].
func validWeight(rq *model.Requant, r []fr.Element) fr.Element {
	inv := inverses(rq)
	shape := rq.Out.Shape
	if len(inv) == 1 {
		s := lookup.Selector[fr.Element](shape, r)
		s.Mul(&s, &inv[0])
		return s
	}
	dims, _, _ := poly.TensorVars(shape)
	lastVars := dims[len(dims)-1]
	leading := len(r) - lastVars
	var res fr.Element
	res.SetOne()
	if len(shape) > 1 {
		res = lookup.Selector[fr.Element](shape[:len(shape)-1], r[:leading])
	}
	eq := poly.EqTable[fr.Element](r[leading:])
	var sum, t fr.Element
	for c := range inv {
		t.Mul(&eq[c], &inv[c])
		sum.Add(&sum, &t)
	}
	res.Mul(&res, &sum)
	return res
}

// halfShift returns 2^(Shift−1).
func halfShift(rq *model.Requant) fr.Element {
	var h fr.Element
	h.SetBigInt(new(big.Int).Lsh(big.NewInt(1), rq.Shift-1))
	return h
}

// pow2 returns 2^k.
func pow2(k uint) fr.Element {
	var h fr.Element
	h.SetBigInt(new(big.Int).Lsh(big.NewInt(1), k))
	return h
}
