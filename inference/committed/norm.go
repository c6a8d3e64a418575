package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// walkNorms visits the norms of a segment with the tensor each reads:
// per block the attention norm (the block's input: the embedding, the
// previous block's output or the incoming stream) and the MLP norm (Mid),
// then the final norm (the last block's output) in a segment with the LM
// head.
func walkNorms(tr *model.Trace, seg inference.Segment, visit func(n *model.Norm, in *model.Tensor)) {
	for i := seg.From; i < seg.To; i++ {
		in := &tr.Embedding
		if i > 0 {
			in = &tr.Layers[i-1].Output
		}
		visit(&tr.Layers[i].AttnNorm, in)
		visit(&tr.Layers[i].MLPNorm, &tr.Layers[i].Mid)
	}
	if seg.HasHead(len(tr.Layers)) {
		visit(&tr.FinalNorm, &tr.Layers[len(tr.Layers)-1].Output)
	}
}

// normAux holds a norm's committed tensors that the trace does not have,
// per row, from its exponent e, its 1/√ input v and remainder r_V:
//
//	Pow4 = 4^e, Scale = 2^(Eₘₐₓ−e), NonZero = [e > 0]   (lookups on e)
//	Gap = Pow4 − 1 − r_V ∈ [0, 4^Eₘₐₓ)                  (r_V < 4^e)
//	Floor = v − 2¹⁴·NonZero ∈ [0, 2¹⁶)                  (v ≥ 2¹⁴ when e > 0: e is minimal)
type normAux struct {
	norm                              *model.Norm
	in                                *model.Tensor
	pow4, scale, nonZero, gap, floorT *model.Tensor
}

// newNormAux computes a norm's auxiliary tensors from its trace (a shape
// pass gives meaningless data, never used).
func newNormAux(n *model.Norm, in *model.Tensor) *normAux {
	rows := n.Exponent.Shape
	emax := n.MaxExponent
	k := len(n.Exponent.Data)
	pow4, scale, nz, gap, fl := make([]int64, k), make([]int64, k), make([]int64, k), make([]int64, k), make([]int64, k)
	low := rsqrtLow(n)
	for r, e := range n.Exponent.Data {
		e = min(max(e, 0), int64(emax))
		pow4[r] = 1 << (2 * e)
		scale[r] = 1 << (int64(emax) - e)
		if e > 0 {
			nz[r] = 1
		}
		gap[r] = pow4[r] - 1 - n.RSqrtRem.Data[r]
		fl[r] = n.RSqrt.In.Data[r] - low*nz[r]
	}
	t := func(name string, data []int64, lo, hi int64) *model.Tensor {
		return &model.Tensor{Name: n.Name + "." + name, Shape: rows, Data: data, Min: lo, Max: hi}
	}
	return &normAux{
		norm: n, in: in,
		pow4:    t("pow4", pow4, 1, 1<<(2*emax)),
		scale:   t("scale", scale, 1, 1<<emax),
		nonZero: t("nonzero", nz, 0, 1),
		gap:     t("gap", gap, 0, 1<<(2*emax)-1),
		floorT:  t("floor", fl, 0, n.RSqrt.In.Max),
	}
}

// tensors lists the auxiliary tensors in stacking order.
func (a *normAux) tensors() []*model.Tensor {
	return []*model.Tensor{a.pow4, a.scale, a.nonZero, a.gap, a.floorT}
}

// exponentTables lists the lookups on the exponent: 4^e, 2^(Eₘₐₓ−e) and
// [e > 0] over e ∈ [0, Eₘₐₓ].
func (a *normAux) exponentTables() []application {
	t := exponentFuncTables(a.norm.MaxExponent)
	e := &a.norm.Exponent
	return []application{
		{e, a.pow4, t[0]},
		{e, a.scale, t[1]},
		{e, a.nonZero, t[2]},
	}
}

// exponentFuncTables returns the tables 4^e, 2^(Eₘₐₓ−e) and [e > 0] over
// e ∈ [0, Eₘₐₓ].
func exponentFuncTables(emax int) [3]*FuncTable {
	pow4, scale, nz := make([]int64, emax+1), make([]int64, emax+1), make([]int64, emax+1)
	for e := range emax + 1 {
		pow4[e], scale[e] = 1<<(2*e), 1<<(emax-e)
		if e > 0 {
			nz[e] = 1
		}
	}
	table := func(name string, outputs []int64) *FuncTable {
		return &FuncTable{Name: fmt.Sprintf("committed/norm/%s/%d", name, emax), Outputs: outputs}
	}
	return [3]*FuncTable{table("pow4", pow4), table("scale", scale), table("nonzero", nz)}
}

// NormProof proves one norm's arithmetic (see the package documentation,
// "Norms"): the row values at ρ₁, the variance sum-check and its end
// values, the scaling sum-check (the norm's accumulator claim) and its
// end values.
type NormProof struct {
	Rows          [nbNormRows]fr.Element
	Variance      sumcheck.Proof[fr.Element]
	VarianceEvals [nbVarianceEvals]fr.Element
	Scale         sumcheck.Proof[fr.Element]
	ScaleEvals    [nbScaleEvals]fr.Element
}

// Positions of [NormProof.Rows], the row values at ρ₁: the input's row
// sums (its MLE at (ρ₁, ½, …, ½) — zero for RMSNorm, as the mean and its
// remainder), then the row blocks' MLEs at ρ₁ — the mean, its remainder,
// the gap 4^e − 1 − r_V, 4^e, r_V, the floor v − 2¹⁴·[e > 0], the 1/√
// input v and [e > 0].
const (
	NormRowSum = iota
	NormRowMean
	NormRowMeanRem
	NormRowGap
	NormRowPow4
	NormRowRem
	NormRowFloor
	NormRowV
	NormRowNonZero
	nbNormRows
)

// Positions of [NormProof.VarianceEvals], the variance sum-check's end
// values: the input, the mean (zero for RMSNorm), v, 4^e, r_V.
const (
	NormVarIn = iota
	NormVarMean
	NormVarV
	NormVarPow4
	NormVarRem
	nbVarianceEvals
)

// Positions of [NormProof.ScaleEvals], the scaling sum-check's end
// values: the input, the mean (zero for RMSNorm), the 1/√ output T,
// 2^(Eₘₐₓ−e).
const (
	NormScaleIn = iota
	NormScaleMean
	NormScaleT
	NormScalePow2
	nbScaleEvals
)

// NormStep is one norm of a segment by its blocks.
type NormStep struct {
	aux         *normAux
	withMean    bool
	in          int // block, or IncomingBlock
	rowBlocks   [nbNormRows]int
	tBlock      int // the 1/√ output T
	pow2Block   int // 2^(Eₘₐₓ−e)
	rows, width int
	rowVars     int
	colVars     int
	q           int // the norm's requantization
}

// Norm returns the traced norm the step proves (of the shape pass in a
// [Shape]): its name, ε, γ, β and the 1/√ lookup's range.
func (n *NormStep) Norm() *model.Norm { return n.aux.norm }

// WithMean reports whether the norm subtracts the row mean (LayerNorm,
// GPT-2) rather than not (RMSNorm, Llama).
func (n *NormStep) WithMean() bool { return n.withMean }

// Input returns the layout block of the norm's input, or [IncomingBlock]
// when it reads the incoming stream.
func (n *NormStep) Input() int { return n.in }

// Rows returns the input's row count: its shape is [Rows, Width].
func (n *NormStep) Rows() int { return n.rows }

// Width returns the input's row length n (see [NormStep.Rows]).
func (n *NormStep) Width() int { return n.width }

// RowVars returns the input's row variable count (poly.TensorVars): both
// sum-checks run over RowVars + ColVars variables, the row ones first.
func (n *NormStep) RowVars() int { return n.rowVars }

// ColVars returns the input's column variable count (see
// [NormStep.RowVars]).
func (n *NormStep) ColVars() int { return n.colVars }

// Requant returns the index of the norm's requantization in
// [Shape.Requants]: the scaling sum-check proves its accumulator claim.
func (n *NormStep) Requant() int { return n.q }

// RowBlock returns the layout block of row value j (a NormRow position
// from [NormRowMean] on), or −1 when the norm has none (the mean and its
// remainder of an RMSNorm).
func (n *NormStep) RowBlock(j int) int { return n.rowBlocks[j] }

// RSqrtBlock returns the layout block of the 1/√ output T, a per-row
// block claimed at the scaling sum-check's row coordinates.
func (n *NormStep) RSqrtBlock() int { return n.tBlock }

// Pow2Block returns the layout block of 2^(Eₘₐₓ−e), a per-row block
// claimed at the scaling sum-check's row coordinates.
func (n *NormStep) Pow2Block() int { return n.pow2Block }

// RSqrtLow returns 2¹⁴ for the 1/√ table's inputs [0, 2¹⁶): the least
// input v of a row with e > 0, which the floor v − RSqrtLow·[e > 0]
// bounds from below.
func (n *NormStep) RSqrtLow() int64 { return rsqrtLow(n.aux.norm) }

// rsqrtLow is 2¹⁴ for the 1/√ table's inputs [0, 2¹⁶): a quarter of
// their bound.
func rsqrtLow(n *model.Norm) int64 { return (n.RSqrt.In.Max + 1) / 4 }

// Degrees returns the round degrees of the variance and the scaling
// sum-checks: the largest factor counts of their terms (4 and 6 for
// LayerNorm, 3 and 5 for RMSNorm).
func (n *NormStep) Degrees() (variance, scale int) {
	return termsDegree(n.varianceTerms()), termsDegree(n.scaleTerms())
}

// normSteps lists the norms of a segment (walkNorms order).
func normSteps(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int) ([]*NormStep, error) {
	var incoming *model.Tensor
	if seg.From > 0 {
		incoming = &tr.Layers[seg.From-1].Output
	}
	var out []*NormStep
	for _, a := range l.Norms {
		n := a.norm
		st := &NormStep{aux: a, withMean: tr.Family == model.GPT2, in: IncomingBlock, q: index[&n.Requant]}
		if a.in != incoming {
			b, ok := l.Index[a.in]
			if !ok {
				return nil, fmt.Errorf("committed: the input of %s is not committed", n.Name)
			}
			st.in = b
		}
		if len(a.in.Shape) != 2 {
			return nil, fmt.Errorf("committed: norm %s of a %v input", n.Name, a.in.Shape)
		}
		st.rows, st.width = a.in.Shape[0], a.in.Shape[1]
		dims, _, err := poly.TensorVars(a.in.Shape)
		if err != nil {
			return nil, err
		}
		st.rowVars, st.colVars = dims[0], dims[1]
		blocks := map[int]*model.Tensor{
			NormRowGap: a.gap, NormRowPow4: a.pow4, NormRowRem: &n.RSqrtRem, NormRowFloor: a.floorT, NormRowV: &n.RSqrt.In, NormRowNonZero: a.nonZero,
		}
		if st.withMean {
			blocks[NormRowMean], blocks[NormRowMeanRem] = &n.Mean, &n.MeanRem
		}
		block := func(t *model.Tensor) (int, error) {
			b, ok := l.Index[t]
			if !ok {
				return 0, fmt.Errorf("committed: %s is not committed", t.Name)
			}
			return b, nil
		}
		for k := range st.rowBlocks {
			st.rowBlocks[k] = -1
			if t, ok := blocks[k]; ok {
				if st.rowBlocks[k], err = block(t); err != nil {
					return nil, err
				}
			}
		}
		if st.tBlock, err = block(&n.RSqrt.Out); err != nil {
			return nil, err
		}
		if st.pow2Block, err = block(a.scale); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// rowChecks checks the three row identities at ρ₁.
func (n *NormStep) rowChecks(rho []fr.Element, v *[nbNormRows]fr.Element) error {
	if n.withMean {
		// 2^kc·In(ρ₁, ½) = n·Mean(ρ₁) + MeanRem(ρ₁).
		lhs := pow2(uint(n.colVars))
		lhs.Mul(&lhs, &v[NormRowSum])
		rhs := field.FromInt64[fr.Element](int64(n.width))
		rhs.Mul(&rhs, &v[NormRowMean])
		rhs.Add(&rhs, &v[NormRowMeanRem])
		if !lhs.Equal(&rhs) {
			return fmt.Errorf("norm %s: the row sums are not n·mean + remainder", n.aux.norm.Name)
		}
	} else if !v[NormRowSum].IsZero() || !v[NormRowMean].IsZero() || !v[NormRowMeanRem].IsZero() {
		return fmt.Errorf("norm %s: an RMSNorm has no mean", n.aux.norm.Name)
	}
	// Gap = 4^e − 1 − r_V on the valid rows.
	vr := poly.Prefix[fr.Element](rho, n.rows)
	var g fr.Element
	g.Sub(&v[NormRowPow4], &vr)
	g.Sub(&g, &v[NormRowRem])
	if !g.Equal(&v[NormRowGap]) {
		return fmt.Errorf("norm %s: the remainder's gap is not 4^e − 1 − r_V", n.aux.norm.Name)
	}
	// Floor = v − 2¹⁴·[e > 0].
	low := field.FromInt64[fr.Element](n.RSqrtLow())
	low.Mul(&low, &v[NormRowNonZero])
	g.Sub(&v[NormRowV], &low)
	if !g.Equal(&v[NormRowFloor]) {
		return fmt.Errorf("norm %s: the floor is not v − 2¹⁴·[e > 0]", n.aux.norm.Name)
	}
	return nil
}

// Variance tables: E = eq(ρ₂, r), In, Mean, VC (valid columns), v, 4^e,
// r_V, VR (valid rows), all over (r, i).
const (
	vtE = iota
	vtIn
	vtMean
	vtVC
	vtV
	vtPow4
	vtRem
	vtVR
	nbVarianceTables
)

// varianceTerms is, summed over (r, i), Σ_r eq(ρ₂, r)·(Σᵢ (In − Mean)² −
// (v·4^e + r_V − ε)): zero exactly when every row's sum of squares plus ε
// is v·4^e + r_V (up to the soundness error of a random ρ₂).
func (n *NormStep) varianceTerms() []sumcheck.Term[fr.Element] {
	one := field.One[fr.Element]()
	var minusOne, two, minusTwo, c, minusC, eps fr.Element
	minusOne.Neg(&one)
	two.Double(&one)
	minusTwo.Neg(&two)
	c = pow2(uint(n.colVars))
	c.Inverse(&c)
	minusC.Neg(&c)
	eps = field.FromInt64[fr.Element](n.aux.norm.Epsilon)
	eps.Mul(&eps, &c)
	terms := []sumcheck.Term[fr.Element]{
		{Coefficient: one, Factors: []int{vtE, vtIn, vtIn}},
		{Coefficient: minusC, Factors: []int{vtE, vtV, vtPow4}},
		{Coefficient: minusC, Factors: []int{vtE, vtRem}},
		{Coefficient: eps, Factors: []int{vtE, vtVR}},
	}
	if n.withMean {
		terms = append(terms,
			sumcheck.Term[fr.Element]{Coefficient: minusTwo, Factors: []int{vtE, vtIn, vtMean, vtVC}},
			sumcheck.Term[fr.Element]{Coefficient: one, Factors: []int{vtE, vtMean, vtMean, vtVC}})
	}
	return terms
}

// Scale tables: E = eq(r_q, ·), In, Mean, VC, T, 2^(Eₘₐₓ−e), Γ, B (the
// norm's γ and β per column), VR.
const (
	stE = iota
	stIn
	stMean
	stVC
	stT
	stScale
	stGamma
	stBeta
	stVR
	nbScaleTables
)

// scaleTerms is eq(r_q, ·)·((In − Mean)·T·2^(Eₘₐₓ−e)·γ + β): summed, the
// accumulator's MLE at r_q.
func (n *NormStep) scaleTerms() []sumcheck.Term[fr.Element] {
	one := field.One[fr.Element]()
	var minusOne fr.Element
	minusOne.Neg(&one)
	terms := []sumcheck.Term[fr.Element]{{Coefficient: one, Factors: []int{stE, stIn, stT, stScale, stGamma}}}
	if n.withMean {
		terms = append(terms, sumcheck.Term[fr.Element]{Coefficient: minusOne, Factors: []int{stE, stMean, stVC, stT, stScale, stGamma}})
	}
	if n.aux.norm.Beta != nil {
		terms = append(terms, sumcheck.Term[fr.Element]{Coefficient: one, Factors: []int{stE, stBeta, stVR, stVC}})
	}
	return terms
}

// columnTable returns the MLE table over the padded columns of values
// (zero past them).
func (n *NormStep) columnTable(values func(i int) int64) []fr.Element {
	out := make([]fr.Element, 1<<n.colVars)
	for i := range n.width {
		out[i].SetInt64(values(i))
	}
	return out
}

// Gamma returns the norm's γ at column i < Width.
func (n *NormStep) Gamma(i int) int64 { return int64(n.aux.norm.Gamma.Data[i]) }

// Beta returns the norm's β at column i < Width (at the accumulator's
// scale), 0 for a norm without β.
func (n *NormStep) Beta(i int) int64 {
	if n.aux.norm.Beta == nil {
		return 0
	}
	return n.aux.norm.Beta[i]
}

// broadcastRows returns the (r, i) table of a row table; broadcastCols
// of a column table.
func (n *NormStep) broadcastRows(row []fr.Element) []fr.Element {
	return broadcastRows(row, n.rowVars, n.colVars)
}

func (n *NormStep) broadcastCols(col []fr.Element) []fr.Element {
	out := make([]fr.Element, 1<<(n.rowVars+n.colVars))
	for r := range 1 << n.rowVars {
		copy(out[r<<n.colVars:], col)
	}
	return out
}

// broadcastRows returns the table over (r, j) (rowVars then innerVars
// coordinates) of a table over r, constant in j: the MLE of a row tensor
// broadcast along the inner dimension.
func broadcastRows(row []fr.Element, rowVars, innerVars int) []fr.Element {
	out := make([]fr.Element, 1<<(rowVars+innerVars))
	for r := range row {
		for j := range 1 << innerVars {
			out[r<<innerVars+j] = row[r]
		}
	}
	return out
}

// withHalves returns (point, ½, …, ½) with k halves: at it a multilinear
// f in point's and k more coordinates is 2^−k·Σ over the k coordinates.
func withHalves(point []fr.Element, k int) []fr.Element {
	var half fr.Element
	half.SetUint64(2)
	half.Inverse(&half)
	out := append([]fr.Element(nil), point...)
	for range k {
		out = append(out, half)
	}
	return out
}

// prefixTable is the table of [x < s] over k variables.
func prefixTable(k, s int) []fr.Element {
	out := make([]fr.Element, 1<<k)
	for i := range min(s, len(out)) {
		out[i].SetOne()
	}
	return out
}

// proverTables returns the prover's tables of one norm: the input, the row
// blocks (rowBlocks order; zero tables for the absent ones).
func (n *NormStep) proverTables(l *Layout, stacked, incoming []fr.Element) (in []fr.Element, rows [nbNormRows][]fr.Element) {
	if n.in == IncomingBlock {
		in = incoming
	} else {
		in = blockOf(l, stacked, n.in)
	}
	for k, b := range n.rowBlocks {
		if b >= 0 {
			rows[k] = blockOf(l, stacked, b)
		} else {
			rows[k] = make([]fr.Element, 1<<n.rowVars)
		}
	}
	return in, rows
}

// proveNorms runs the norm steps under label "committed/norm".
func proveNorms(t *pcs.Transcript, l *Layout, steps []*NormStep, stacked, incoming []fr.Element, points [][]fr.Element, acc []fr.Element) ([]NormProof, [][3][]fr.Element, error) {
	if len(steps) == 0 {
		return nil, nil, nil
	}
	t.Label("committed/norm")
	proofs := make([]NormProof, len(steps))
	ends := make([][3][]fr.Element, len(steps))
	for k, n := range steps {
		p := &proofs[k]
		in, rows := n.proverTables(l, stacked, incoming)
		rho1 := t.Challenges(n.rowVars)
		if n.withMean {
			p.Rows[NormRowSum] = poly.Evaluate[fr.Element](in, withHalves(rho1, n.colVars))
		}
		for j := NormRowMean; j < nbNormRows; j++ {
			p.Rows[j] = poly.Evaluate[fr.Element](rows[j], rho1)
		}
		t.Absorb(p.Rows[:]...)

		rho2 := t.Challenges(n.rowVars)
		vc := n.broadcastCols(prefixTable(n.colVars, n.width))
		vr := n.broadcastRows(prefixTable(n.rowVars, n.rows))
		mean := n.broadcastRows(rows[NormRowMean])
		vt := make([][]fr.Element, nbVarianceTables)
		vt[vtE] = n.broadcastRows(poly.EqTable[fr.Element](rho2))
		vt[vtIn], vt[vtMean], vt[vtVC] = in, mean, vc
		vt[vtV], vt[vtPow4], vt[vtRem], vt[vtVR] = n.broadcastRows(rows[NormRowV]), n.broadcastRows(rows[NormRowPow4]), n.broadcastRows(rows[NormRowRem]), vr
		sc, op, err := sumcheck.Prove(t, vt, n.varianceTerms(), fr.Element{})
		if err != nil {
			return nil, nil, fmt.Errorf("committed: norm %s: %w", n.aux.norm.Name, err)
		}
		p.Variance = sc
		for j, tab := range []int{vtIn, vtMean, vtV, vtPow4, vtRem} {
			p.VarianceEvals[j] = op.Evaluations[tab]
		}
		t.Absorb(p.VarianceEvals[:]...)
		ends[k][1] = op.Point

		st := make([][]fr.Element, nbScaleTables)
		st[stE] = poly.EqTable[fr.Element](points[n.q])
		st[stIn], st[stMean], st[stVC], st[stVR] = in, mean, vc, vr
		st[stT] = n.broadcastRows(blockOf(l, stacked, n.tBlock))
		st[stScale] = n.broadcastRows(blockOf(l, stacked, n.pow2Block))
		st[stGamma] = n.broadcastCols(n.columnTable(n.Gamma))
		st[stBeta] = n.broadcastCols(n.columnTable(n.Beta))
		sc, op, err = sumcheck.Prove(t, st, n.scaleTerms(), acc[n.q])
		if err != nil {
			return nil, nil, fmt.Errorf("committed: norm %s: %w", n.aux.norm.Name, err)
		}
		p.Scale = sc
		for j, tab := range []int{stIn, stMean, stT, stScale} {
			p.ScaleEvals[j] = op.Evaluations[tab]
		}
		t.Absorb(p.ScaleEvals[:]...)
		ends[k][0], ends[k][2] = rho1, op.Point
	}
	return proofs, ends, nil
}

// verifyNorms replays the norm steps; it returns, per norm, ρ₁ and the
// two sum-checks' end points.
func verifyNorms(t *pcs.Transcript, steps []*NormStep, proofs []NormProof, points [][]fr.Element, acc []fr.Element) ([][3][]fr.Element, error) {
	if len(proofs) != len(steps) {
		return nil, fmt.Errorf("%d norm proofs for %d norms", len(proofs), len(steps))
	}
	if len(steps) == 0 {
		return nil, nil
	}
	t.Label("committed/norm")
	ends := make([][3][]fr.Element, len(steps))
	for k, n := range steps {
		p := &proofs[k]
		name := n.aux.norm.Name
		rho1 := t.Challenges(n.rowVars)
		if err := n.rowChecks(rho1, &p.Rows); err != nil {
			return nil, err
		}
		t.Absorb(p.Rows[:]...)

		rho2 := t.Challenges(n.rowVars)
		vTerms := n.varianceTerms()
		end, expected, err := sumcheck.Verify(t, fr.Element{}, termsDegree(vTerms), n.rowVars+n.colVars, p.Variance)
		if err != nil {
			return nil, fmt.Errorf("norm %s: variance: %w", name, err)
		}
		r, i := end[:n.rowVars], end[n.rowVars:]
		if !n.withMean && !p.VarianceEvals[NormVarMean].IsZero() {
			return nil, fmt.Errorf("norm %s: an RMSNorm has no mean", name)
		}
		values := make([]fr.Element, nbVarianceTables)
		values[vtE] = poly.Eq[fr.Element](rho2, r)
		values[vtIn], values[vtMean], values[vtV], values[vtPow4], values[vtRem] = p.VarianceEvals[NormVarIn], p.VarianceEvals[NormVarMean], p.VarianceEvals[NormVarV], p.VarianceEvals[NormVarPow4], p.VarianceEvals[NormVarRem]
		values[vtVC] = poly.Prefix[fr.Element](i, n.width)
		values[vtVR] = poly.Prefix[fr.Element](r, n.rows)
		got, err := sumcheck.EvaluateTerms(vTerms, values)
		if err != nil {
			return nil, err
		}
		if !got.Equal(&expected) {
			return nil, fmt.Errorf("norm %s: variance: the final value does not match", name)
		}
		t.Absorb(p.VarianceEvals[:]...)

		sTerms := n.scaleTerms()
		end2, expected, err := sumcheck.Verify(t, acc[n.q], termsDegree(sTerms), n.rowVars+n.colVars, p.Scale)
		if err != nil {
			return nil, fmt.Errorf("norm %s: scale: %w", name, err)
		}
		r, i = end2[:n.rowVars], end2[n.rowVars:]
		if !n.withMean && !p.ScaleEvals[NormScaleMean].IsZero() {
			return nil, fmt.Errorf("norm %s: an RMSNorm has no mean", name)
		}
		values = make([]fr.Element, nbScaleTables)
		values[stE] = poly.Eq[fr.Element](points[n.q], end2)
		values[stIn], values[stMean], values[stT], values[stScale] = p.ScaleEvals[NormScaleIn], p.ScaleEvals[NormScaleMean], p.ScaleEvals[NormScaleT], p.ScaleEvals[NormScalePow2]
		values[stVC] = poly.Prefix[fr.Element](i, n.width)
		values[stVR] = poly.Prefix[fr.Element](r, n.rows)
		values[stGamma] = poly.Evaluate[fr.Element](n.columnTable(n.Gamma), i)
		values[stBeta] = poly.Evaluate[fr.Element](n.columnTable(n.Beta), i)
		if got, err = sumcheck.EvaluateTerms(sTerms, values); err != nil {
			return nil, err
		}
		if !got.Equal(&expected) {
			return nil, fmt.Errorf("norm %s: scale: the final value does not match", name)
		}
		t.Absorb(p.ScaleEvals[:]...)
		ends[k] = [3][]fr.Element{rho1, end, end2}
	}
	return ends, nil
}

// normClaims are the claims of the norm steps on the stacked MLE (and on
// the incoming stream for a segment's first attention norm).
func normClaims(l *Layout, steps []*NormStep, ends [][3][]fr.Element, proofs []NormProof, incoming int) []pcs.Claim {
	var out []pcs.Claim
	for k, n := range steps {
		p := &proofs[k]
		rho1, v, s := ends[k][0], ends[k][1], ends[k][2]
		input := func(point []fr.Element, value fr.Element) {
			if n.in == IncomingBlock {
				out = append(out, pcs.Claim{Commitment: incoming, Point: point, Value: value})
				return
			}
			out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(n.in, point), Value: value})
		}
		row := func(b int, point []fr.Element, value fr.Element) {
			out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(b, point), Value: value})
		}
		if n.withMean {
			input(withHalves(rho1, n.colVars), p.Rows[NormRowSum])
		}
		for j := NormRowMean; j < nbNormRows; j++ {
			if b := n.rowBlocks[j]; b >= 0 {
				row(b, rho1, p.Rows[j])
			}
		}
		vr := v[:n.rowVars]
		input(v, p.VarianceEvals[NormVarIn])
		if n.withMean {
			row(n.rowBlocks[NormRowMean], vr, p.VarianceEvals[NormVarMean])
		}
		row(n.rowBlocks[NormRowV], vr, p.VarianceEvals[NormVarV])
		row(n.rowBlocks[NormRowPow4], vr, p.VarianceEvals[NormVarPow4])
		row(n.rowBlocks[NormRowRem], vr, p.VarianceEvals[NormVarRem])
		sr := s[:n.rowVars]
		input(s, p.ScaleEvals[NormScaleIn])
		if n.withMean {
			row(n.rowBlocks[NormRowMean], sr, p.ScaleEvals[NormScaleMean])
		}
		row(n.tBlock, sr, p.ScaleEvals[NormScaleT])
		row(n.pow2Block, sr, p.ScaleEvals[NormScalePow2])
	}
	return out
}

// NormClaims are the claims the norm steps leave (ends as
// [Shape.VerifyNorms] returns them): per norm, in order, the input's row
// sums at (ρ₁, ½, …, ½) (LayerNorm), the row blocks at ρ₁, the variance
// sum-check's end values and the scaling sum-check's, each on the stacked
// MLE at its block's point, or on commitment incoming for the input when
// the norm reads the incoming stream.
func (s *Shape) NormClaims(ends [][3][]fr.Element, proofs []NormProof, incoming int) []pcs.Claim {
	return normClaims(s.Layout, s.Norms, ends, proofs, incoming)
}

// termsDegree is the degree of the sum-check rounds over terms: the
// prover's, the largest number of factors of a term.
func termsDegree(terms []sumcheck.Term[fr.Element]) int {
	return sumcheck.Degree([]sumcheck.Instance[fr.Element]{{Terms: terms}})
}
