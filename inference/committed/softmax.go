package committed

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// softmaxAux holds an attention's committed tensors beyond the opened
// ones (model.Attention: the scores' Out, RowMax, ExpHigh.In, Probs and
// ProbRem): the trace's ExpLow.In (lo), ExpLow.Out, ExpHigh.Out, Exp and
// RowSum, and two the trace does not have:
//
//	Gap    = 2·RowSum − 1 − ProbRem ∈ [0, 2·T·2¹⁶)   (ProbRem < 2·RowSum)
//	OneHot ∈ {0, 1}, one per row, at an unmasked entry with RowMax = score
//	HiGap  = hi + [hi = 0] − 1 ∈ [0, 2¹⁵)             (hi ≥ 1 where [hi = 0] is 0)
type softmaxAux struct {
	att                *model.Attention
	gap, oneHot, hiGap *model.Tensor
}

// newSoftmaxAux computes an attention's auxiliary tensors from its trace
// (a shape pass gives meaningless data, never used).
func newSoftmaxAux(a *model.Attention) *softmaxAux {
	cube := a.Probs.Shape
	total := cube[2]
	n := cube[1]
	gap := make([]int64, len(a.Probs.Data))
	oneHot := make([]int64, len(a.Probs.Data))
	hiGap := make([]int64, len(a.Probs.Data))
	for k, h := range a.ExpHigh.In.Data {
		hiGap[k] = h + a.ExpHigh.Out.Data[k] - 1
	}
	for hi := range cube[0] * n {
		sum := a.RowSum.Data[hi]
		base := hi * total
		for j := range total {
			gap[base+j] = 2*sum - 1 - a.ProbRem.Data[base+j]
		}
		i := hi % n
		first := 0
		if a.Begins != nil {
			first = a.Begins[i]
		}
		for j := first; j <= a.Start+i && j < total; j++ {
			if a.Scores.Out.Data[base+j] == a.RowMax.Data[hi] {
				oneHot[base+j] = 1
				break
			}
		}
	}
	sumHi := a.RowSum.Max
	return &softmaxAux{
		att:    a,
		gap:    &model.Tensor{Name: a.Probs.Name + ".gap", Shape: cube, Data: gap, Min: 0, Max: 2*sumHi - 1},
		oneHot: &model.Tensor{Name: a.Probs.Name + ".one_hot", Shape: cube, Data: oneHot, Min: 0, Max: 1},
		hiGap:  &model.Tensor{Name: a.Probs.Name + ".hi_gap", Shape: cube, Data: hiGap, Min: 0, Max: a.ExpHigh.In.Max},
	}
}

// tensors lists the auxiliary tensors in stacking order.
func (s *softmaxAux) tensors() []*model.Tensor {
	a := s.att
	return []*model.Tensor{&a.ExpLow.In, &a.ExpLow.Out, &a.ExpHigh.Out, &a.Exp, &a.RowSum, s.gap, s.oneHot, s.hiGap}
}

// walkAttentions visits the attentions of a segment.
func walkAttentions(tr *model.Trace, seg inference.Segment, visit func(a *model.Attention)) {
	for i := seg.From; i < seg.To; i++ {
		visit(&tr.Layers[i].Attention)
	}
}

// The softmax zero-check's tables, over the padded cube (h, i, j): the
// order of a [SoftmaxProof]'s zero-check evaluations and of
// [SoftmaxStep.Blocks].
const (
	SoftmaxLo      = iota // lo, the low limb of RowMax − score
	SoftmaxHi             // hi, its high limb
	SoftmaxMax            // RowMax, broadcast over j
	SoftmaxScore          // the scores
	SoftmaxMask           // the causal mask (public)
	SoftmaxExp            // Exp
	SoftmaxExpLow         // ExpLow.Out, EXP(lo)
	SoftmaxExpHigh        // ExpHigh.Out, z = [hi = 0]
	SoftmaxProbs          // the probabilities
	SoftmaxRem            // ProbRem, the division's remainder
	SoftmaxSum            // RowSum, broadcast over j
	SoftmaxValid          // the valid entries (public)
	SoftmaxGap            // Gap
	SoftmaxHiGap          // HiGap
	nbSoftmaxTables
)

// SoftmaxTerm is a term of the softmax relation: Coefficient·γ^Power
// times the product of the zero-check's tables Factors (indices
// [SoftmaxLo] … [SoftmaxHiGap]).
type SoftmaxTerm struct {
	Power       int
	Coefficient *big.Int
	Factors     []int
}

// Relation returns the terms of the step's softmax relation, with γ a
// challenge, A + γ·B + γ²·D + γ³·E + γ⁴·F + γ⁵·G:
//
//	A: lo + 2¹⁶·hi − mask·m + s               (lo, hi: the limbs of m − s)
//	B: x − mask·EXP(lo)·z                      (z = [hi = 0])
//	D: 2·p·Σ + ρ − 2^(P+1)·x − Σ·valid          (the probabilities' division)
//	E: gap − 2·Σ·valid + valid + ρ              (ρ < 2Σ)
//	F: z·hi                                     (z = 1 only where hi = 0)
//	G: hiGap − hi − z + valid                   (z = 0 only where hi ≥ 1)
//
// zero on every entry of the padded cube (2¹⁶ is [SoftmaxStep.Split], P
// model.ProbFrac). z ∈ {0, 1} is its block's range; with F and G it is
// [hi = 0], the model's EXPHIGH table, which therefore needs no lookup.
func (s *SoftmaxStep) Relation() []SoftmaxTerm {
	c := big.NewInt
	return []SoftmaxTerm{
		{0, c(1), []int{SoftmaxLo}},
		{0, c(s.Split()), []int{SoftmaxHi}},
		{0, c(-1), []int{SoftmaxMask, SoftmaxMax}},
		{0, c(1), []int{SoftmaxScore}},
		{1, c(1), []int{SoftmaxExp}},
		{1, c(-1), []int{SoftmaxMask, SoftmaxExpLow, SoftmaxExpHigh}},
		{2, c(2), []int{SoftmaxProbs, SoftmaxSum}},
		{2, c(1), []int{SoftmaxRem}},
		{2, new(big.Int).Neg(new(big.Int).Lsh(c(1), model.ProbFrac+1)), []int{SoftmaxExp}},
		{2, c(-1), []int{SoftmaxSum, SoftmaxValid}},
		{3, c(1), []int{SoftmaxGap}},
		{3, c(-2), []int{SoftmaxSum, SoftmaxValid}},
		{3, c(1), []int{SoftmaxValid}},
		{3, c(1), []int{SoftmaxRem}},
		{4, c(1), []int{SoftmaxExpHigh, SoftmaxHi}},
		{5, c(1), []int{SoftmaxHiGap}},
		{5, c(-1), []int{SoftmaxHi}},
		{5, c(-1), []int{SoftmaxExpHigh}},
		{5, c(1), []int{SoftmaxValid}},
	}
}

// relation returns the terms of [SoftmaxStep.Relation] for γ.
func (s *SoftmaxStep) relation(gamma fr.Element) []sumcheck.Term[fr.Element] {
	terms := s.Relation()
	out := make([]sumcheck.Term[fr.Element], len(terms))
	for k, rt := range terms {
		var c fr.Element
		c.SetBigInt(rt.Coefficient)
		for range rt.Power {
			c.Mul(&c, &gamma)
		}
		out[k] = sumcheck.Term[fr.Element]{Coefficient: c, Factors: rt.Factors}
	}
	return out
}

// SoftmaxProof proves one attention's softmax: the zero-check of the
// element-wise relations, the row values at ρ′ (the exps' and the one-hot
// rows' sums over 2^bj — their MLEs at (ρ′, ½, …, ½) — and RowSum(ρ′)),
// and the sum-check of Σ OneHot·(m − s + 1 − mask) = 0 with its end
// values (OneHot, lo, hi).
type SoftmaxProof struct {
	Zero        *sumcheck.ZeroCheckProof[fr.Element]
	Rows        [3]fr.Element
	OneHot      sumcheck.Proof[fr.Element]
	OneHotEvals [3]fr.Element
}

// SoftmaxStep is one attention's softmax by its blocks: the scores'
// cube ([SoftmaxStep.Cube]) over the padded coordinates (h, i, j)
// ([SoftmaxStep.Vars]) and the blocks of the stacked MLE its claims are
// on ([SoftmaxStep.Blocks], [SoftmaxStep.OneHotBlock]).
type SoftmaxStep struct {
	aux                       *softmaxAux
	blocks                    [nbSoftmaxTables]int // −1 for the public tables
	oneHot                    int
	heads, rows, total, start int
	// begins, in a stacked pass, holds each row's first unmasked column
	// (model.Attention.Begins).
	begins     []int
	bh, bi, bj int
}

func softmaxSteps(l *Layout) ([]*SoftmaxStep, error) {
	var out []*SoftmaxStep
	for _, s := range l.Softmax {
		a := s.att
		st := &SoftmaxStep{aux: s, heads: a.Probs.Shape[0], rows: a.Probs.Shape[1], total: a.Probs.Shape[2], start: a.Start, begins: a.Begins}
		if a.Begins != nil && (a.Start != 0 || st.total != st.rows || model.CheckBegins(a.Begins, st.rows) != nil) {
			return nil, fmt.Errorf("committed: %s: a stacked pass must start at position 0 over its own rows", a.Probs.Name)
		}
		dims, _, err := poly.TensorVars(a.Probs.Shape)
		if err != nil {
			return nil, err
		}
		st.bh, st.bi, st.bj = dims[0], dims[1], dims[2]
		tensors := map[int]*model.Tensor{
			SoftmaxLo: &a.ExpLow.In, SoftmaxHi: &a.ExpHigh.In, SoftmaxMax: &a.RowMax, SoftmaxScore: &a.Scores.Out,
			SoftmaxExp: &a.Exp, SoftmaxExpLow: &a.ExpLow.Out, SoftmaxExpHigh: &a.ExpHigh.Out, SoftmaxProbs: &a.Probs,
			SoftmaxRem: &a.ProbRem, SoftmaxSum: &a.RowSum, SoftmaxGap: s.gap, SoftmaxHiGap: s.hiGap,
		}
		for k := range st.blocks {
			st.blocks[k] = -1
			if t, ok := tensors[k]; ok {
				b, ok := l.Index[t]
				if !ok {
					return nil, fmt.Errorf("committed: %s is not committed", t.Name)
				}
				st.blocks[k] = b
			}
		}
		st.oneHot = l.Index[s.oneHot]
		out = append(out, st)
	}
	return out, nil
}

// Split is 2¹⁶, the base of the shifted scores' limbs lo and hi (lo's
// range is [0, Split)).
func (s *SoftmaxStep) Split() int64 { return s.aux.att.ExpLow.In.Max + 1 }

// split is [SoftmaxStep.Split] in the field.
func (s *SoftmaxStep) split() fr.Element { return field.FromInt64[fr.Element](s.Split()) }

// Cube returns the numbers of heads, rows and columns of the scores'
// cube (the pass's positions: Rows = Total).
func (s *SoftmaxStep) Cube() (heads, rows, total int) { return s.heads, s.rows, s.total }

// Start returns the position of the cube's first row (0: a pass from
// the first position).
func (s *SoftmaxStep) Start() int { return s.start }

// Begins returns, in a stacked pass, each row's first unmasked column
// (its request's first row); nil otherwise.
func (s *SoftmaxStep) Begins() []int { return s.begins }

// Vars returns the numbers of the padded cube's h, i and j coordinates
// (most significant first: a point of the cube is (h, i, j)).
func (s *SoftmaxStep) Vars() (h, i, j int) { return s.bh, s.bi, s.bj }

// Blocks returns the block of the stacked MLE of each zero-check table
// ([SoftmaxLo] … [SoftmaxHiGap]), −1 for the public [SoftmaxMask] and
// [SoftmaxValid]. The blocks of [SoftmaxMax] and [SoftmaxSum] are row
// tensors over (h, i) ([SoftmaxRowTable]).
func (s *SoftmaxStep) Blocks() [nbSoftmaxTables]int { return s.blocks }

// OneHotBlock returns the block of the one-hot rows (OneHot: 1 at one
// unmasked entry of each row where the score is RowMax).
func (s *SoftmaxStep) OneHotBlock() int { return s.oneHot }

// rowVars is the number of (h, i) variables.
func (s *SoftmaxStep) rowVars() int { return s.bh + s.bi }

// SoftmaxRowTable reports whether the softmax zero-check's table k is a
// row tensor over (h, i) broadcast over j (RowMax, RowSum): its claim is
// at the (h, i) coordinates of the zero-check's end point.
func SoftmaxRowTable(k int) bool { return k == SoftmaxMax || k == SoftmaxSum }

// publicTables returns the mask and the valid entries over the padded cube.
func (s *SoftmaxStep) publicTables() (mask, valid []fr.Element) {
	size := 1 << (s.bh + s.bi + s.bj)
	mask, valid = hugepage.Make[fr.Element](size), hugepage.Make[fr.Element](size)
	for h := range s.heads {
		for i := range s.rows {
			base := (h<<s.bi + i) << s.bj
			first := 0
			if s.begins != nil {
				first = s.begins[i]
			}
			for j := range s.total {
				valid[base+j].SetOne()
				if first <= j && j <= s.start+i {
					mask[base+j].SetOne()
				}
			}
		}
	}
	return mask, valid
}

// publicEvals evaluates the mask and the valid entries at point:
// Sel_H(h)·z(i, j), z the causal zeroifier of poly.CausalZeroifier over
// the square of n rows when the pass starts at position 0 over its own
// T = n positions (i and j have as many coordinates), in O(log n), and
// otherwise (a turn: from position Start over a cache of T rows) the
// shifted mask [i < n ∧ j ≤ Start + i] of poly.ShiftedCausal,
// O(log T); in a stacked pass the block-diagonal mask [begins[i] ≤ j ≤ i]
// ([BlockCausal], O(n)); and the product of the three prefixes.
func (s *SoftmaxStep) publicEvals(point []fr.Element) (mask, valid fr.Element, err error) {
	h, i, j := point[:s.bh], point[s.bh:s.bh+s.bi], point[s.bh+s.bi:]
	sh := poly.Prefix[fr.Element](h, s.heads)
	if s.begins != nil {
		mask = BlockCausal(i, j, s.begins)
	} else if s.start != 0 || s.total != s.rows {
		mask = poly.ShiftedCausal[fr.Element](i, j, s.rows, s.start)
	} else if mask, err = poly.CausalZeroifier[fr.Element](point[s.bh:], s.rows); err != nil {
		return mask, valid, err
	}
	mask.Mul(&mask, &sh)
	valid = poly.Prefix[fr.Element](i, s.rows)
	pj := poly.Prefix[fr.Element](j, s.total)
	valid.Mul(&valid, &pj)
	valid.Mul(&valid, &sh)
	return mask, valid, nil
}

// BlockCausal is the MLE at (i, j) of the block-diagonal causal mask of
// a stacked pass of n = len(begins) rows, [begins[a] ≤ b ≤ a] for rows a,
// b < n and 0 elsewhere on the cube of i's and j's coordinates:
// Σ_a eq(i, a)·(S(a) − S(begins[a] − 1)), S the prefix sums of eq(j, ·).
// O(n + 2^|j|).
func BlockCausal(i, j []fr.Element, begins []int) fr.Element {
	ei, prefix := poly.EqTable[fr.Element](i), prefixSums(poly.EqTable[fr.Element](j))
	var sum, row, t fr.Element
	for a, b := range begins {
		if a >= len(ei) || a >= len(prefix) {
			break
		}
		row = prefix[a]
		if b > 0 {
			row.Sub(&row, &prefix[b-1])
		}
		t.Mul(&ei[a], &row)
		sum.Add(&sum, &t)
	}
	return sum
}

// oneHotTerms is OneHot·(lo + 2¹⁶·hi + 1 − mask) over tables (OneHot, lo,
// hi, mask): every term is a non-negative integer far below |Fr|, so the
// sum is zero exactly when each is.
func oneHotTerms(split fr.Element) []sumcheck.Term[fr.Element] {
	one := field.One[fr.Element]()
	var minus fr.Element
	minus.Neg(&one)
	return []sumcheck.Term[fr.Element]{
		{Coefficient: one, Factors: []int{0, 1}},
		{Coefficient: split, Factors: []int{0, 2}},
		{Coefficient: one, Factors: []int{0}},
		{Coefficient: minus, Factors: []int{0, 3}},
	}
}

// SoftmaxEnds are a softmax step's points: the zero-check's end, ρ′ and
// the one-hot sum-check's end.
type SoftmaxEnds struct {
	zero, rows, oneHot []fr.Element
}

// proveSoftmax runs the softmax steps under label "committed/softmax".
func proveSoftmax(t *pcs.Transcript, l *Layout, steps []*SoftmaxStep, stacked []fr.Element) ([]SoftmaxProof, []SoftmaxEnds, error) {
	if len(steps) == 0 {
		return nil, nil, nil
	}
	t.Label("committed/softmax")
	proofs := make([]SoftmaxProof, len(steps))
	ends := make([]SoftmaxEnds, len(steps))
	for k, s := range steps {
		p := &proofs[k]
		gamma := t.Challenge()
		mask, valid := s.publicTables()
		tables := make([][]fr.Element, nbSoftmaxTables)
		for m, b := range s.blocks {
			switch {
			case m == SoftmaxMask:
				tables[m] = mask
			case m == SoftmaxValid:
				tables[m] = valid
			case SoftmaxRowTable(m):
				tables[m] = broadcastRows(blockOf(l, stacked, b), s.rowVars(), s.bj)
			default:
				tables[m] = blockOf(l, stacked, b)
			}
		}
		zp, zc, err := sumcheck.ProveZero(t, tables, s.relation(gamma))
		if err != nil {
			return nil, nil, fmt.Errorf("committed: softmax %s: %w", s.aux.att.Probs.Name, err)
		}
		p.Zero = zp
		ends[k].zero = zc[0].Point

		rho := t.Challenges(s.rowVars())
		half := withHalves(rho, s.bj)
		p.Rows[0] = poly.Evaluate[fr.Element](blockOf(l, stacked, s.blocks[SoftmaxExp]), half)
		p.Rows[1] = poly.Evaluate[fr.Element](blockOf(l, stacked, s.blocks[SoftmaxSum]), rho)
		p.Rows[2] = poly.Evaluate[fr.Element](blockOf(l, stacked, s.oneHot), half)
		t.Absorb(p.Rows[:]...)
		ends[k].rows = rho

		oh := [][]fr.Element{blockOf(l, stacked, s.oneHot), tables[SoftmaxLo], tables[SoftmaxHi], mask}
		sc, op, err := sumcheck.Prove(t, oh, oneHotTerms(s.split()), fr.Element{})
		if err != nil {
			return nil, nil, fmt.Errorf("committed: softmax %s: %w", s.aux.att.Probs.Name, err)
		}
		p.OneHot = sc
		copy(p.OneHotEvals[:], op.Evaluations[:3])
		t.Absorb(p.OneHotEvals[:]...)
		ends[k].oneHot = op.Point
	}
	return proofs, ends, nil
}

// verifySoftmax replays the softmax steps.
func verifySoftmax(t *pcs.Transcript, steps []*SoftmaxStep, proofs []SoftmaxProof) ([]SoftmaxEnds, error) {
	if len(proofs) != len(steps) {
		return nil, fmt.Errorf("%d softmax proofs for %d attentions", len(proofs), len(steps))
	}
	if len(steps) == 0 {
		return nil, nil
	}
	t.Label("committed/softmax")
	ends := make([]SoftmaxEnds, len(steps))
	for k, s := range steps {
		p := &proofs[k]
		name := s.aux.att.Probs.Name
		if p.Zero == nil {
			return nil, fmt.Errorf("softmax %s: missing zero-check", name)
		}
		gamma := t.Challenge()
		vars := s.rowVars() + s.bj
		zc, err := sumcheck.VerifyZero(t, vars, nbSoftmaxTables, s.relation(gamma), p.Zero)
		if err != nil {
			return nil, fmt.Errorf("softmax %s: %w", name, err)
		}
		end := zc[0].Point
		mask, valid, err := s.publicEvals(end)
		if err != nil {
			return nil, fmt.Errorf("softmax %s: %w", name, err)
		}
		if !mask.Equal(&zc[SoftmaxMask].Value) || !valid.Equal(&zc[SoftmaxValid].Value) {
			return nil, fmt.Errorf("softmax %s: the mask or the valid entries are not the public ones", name)
		}
		ends[k].zero = end

		rho := t.Challenges(s.rowVars())
		// 2^bj·Exp(ρ′, ½) = RowSum(ρ′); 2^bj·OneHot(ρ′, ½) = Sel(ρ′).
		c := pow2(uint(s.bj))
		var lhs fr.Element
		lhs.Mul(&c, &p.Rows[0])
		if !lhs.Equal(&p.Rows[1]) {
			return nil, fmt.Errorf("softmax %s: the row sums are not the exps'", name)
		}
		sel := poly.Prefix[fr.Element](rho[:s.bh], s.heads)
		si := poly.Prefix[fr.Element](rho[s.bh:], s.rows)
		sel.Mul(&sel, &si)
		lhs.Mul(&c, &p.Rows[2])
		if !lhs.Equal(&sel) {
			return nil, fmt.Errorf("softmax %s: a row has not exactly one maximum marked", name)
		}
		t.Absorb(p.Rows[:]...)
		ends[k].rows = rho

		ohEnd, expected, err := sumcheck.Verify(t, fr.Element{}, 2, vars, p.OneHot)
		if err != nil {
			return nil, fmt.Errorf("softmax %s: one-hot: %w", name, err)
		}
		m, _, err := s.publicEvals(ohEnd)
		if err != nil {
			return nil, fmt.Errorf("softmax %s: %w", name, err)
		}
		got, err := sumcheck.EvaluateTerms(oneHotTerms(s.split()), []fr.Element{p.OneHotEvals[0], p.OneHotEvals[1], p.OneHotEvals[2], m})
		if err != nil {
			return nil, err
		}
		if !got.Equal(&expected) {
			return nil, fmt.Errorf("softmax %s: one-hot: the final value does not match", name)
		}
		t.Absorb(p.OneHotEvals[:]...)
		ends[k].oneHot = ohEnd
	}
	return ends, nil
}

// softmaxClaims are the claims of the softmax steps on the stacked MLE.
func softmaxClaims(l *Layout, steps []*SoftmaxStep, ends []SoftmaxEnds, proofs []SoftmaxProof) []pcs.Claim {
	var out []pcs.Claim
	claim := func(b int, point []fr.Element, v fr.Element) {
		out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(b, point), Value: v})
	}
	for k, s := range steps {
		p := &proofs[k]
		e := ends[k]
		for m, b := range s.blocks {
			if b < 0 {
				continue
			}
			point := e.zero
			if SoftmaxRowTable(m) {
				point = point[:s.rowVars()]
			}
			claim(b, point, p.Zero.Evaluations[m])
		}
		half := withHalves(e.rows, s.bj)
		claim(s.blocks[SoftmaxExp], half, p.Rows[0])
		claim(s.blocks[SoftmaxSum], e.rows, p.Rows[1])
		claim(s.oneHot, half, p.Rows[2])
		claim(s.oneHot, e.oneHot, p.OneHotEvals[0])
		claim(s.blocks[SoftmaxLo], e.oneHot, p.OneHotEvals[1])
		claim(s.blocks[SoftmaxHi], e.oneHot, p.OneHotEvals[2])
	}
	return out
}

// SoftmaxClaims returns the claims the softmax steps leave on the
// stacked MLE (commitment [TensorsCommitment]), from the ends
// [Shape.VerifySoftmax] returned for proofs: per step, each committed
// zero-check table at the zero-check's end (the row tables at its (h, i)
// coordinates), Exp, RowSum and OneHot at ρ′ (Exp and OneHot at
// (ρ′, ½, …, ½)), and OneHot, lo and hi at the one-hot sum-check's end.
func (s *Shape) SoftmaxClaims(ends []SoftmaxEnds, proofs []SoftmaxProof) []pcs.Claim {
	return softmaxClaims(s.Layout, s.Softmax, ends, proofs)
}
