package committed

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/sumcheck"
)

// Pass is the public generation a segment proof is about: the prompt,
// the greedily generated output tokens and the row bucket R of the pass
// (statement.Request). The forward pass runs over the R tokens
// Prompt ‖ Output ‖ 0, …; its live logits rows s − 1 ≤ i < n (s the
// prompt length, n = s + g − 1) have the next token T[i + 1] as argmax,
// ties broken by the smallest index.
type Pass = statement.Request

// checkPass refuses an empty prompt or output, a pass beyond its rows and
// tokens outside the vocabulary.
func checkPass(p Pass, vocab int) error {
	if err := p.Check(vocab, p.Rows); err != nil {
		return fmt.Errorf("committed: %w", err)
	}
	return nil
}

// rowTargets returns the targets U of the argmax step: the pass's next
// token T[i + 1] on a live row i (its argmax in an honest pass), the
// row's argmax, the smallest index on ties, on a pad row.
func rowTargets(tr *model.Trace, pass Pass) []int {
	logits := tr.Logits()
	rows, vocab := logits.Shape[0], logits.Shape[1]
	next := nextTokens(pass, rows)
	out := make([]int, rows)
	for i := range out {
		out[i] = next[i]
		if out[i] < 0 {
			out[i] = model.Argmax(logits.Data[i*vocab : (i+1)*vocab])
		}
	}
	return out
}

// nextTokens returns, for each of the rows, T[i + 1] on a live row i and
// −1 on the others (statement.Request.Next).
func nextTokens(pass Pass, rows int) []int {
	next := make([]int, rows)
	for i := range next {
		next[i] = -1
		if tok, ok := pass.Next(i); ok {
			next[i] = tok
		}
	}
	return next
}

// marginsTensor returns the argmax margins of the rows' targets over the
// vocabulary columns [lo, hi), [R, hi − lo] for R rows:
//
//	D[i][j] = L[i][U_i] − L[i][lo+j] − [lo+j < U_i]
//
// with L the logits and U_i the target of row i. Every margin of every
// column is in [0, Max − Min] of the logits exactly when each U_i is the
// argmax of its row with ties broken by the smallest index: a segment
// with the whole LM head has [lo, hi) = [0, V), the chunks of a pass
// cover it between them, each against the same chosen logits L[i][U_i].
// Its data is that of the pass's logits (meaningless on a shape pass,
// which only needs its shape and range).
func marginsTensor(tr *model.Trace, targets []int, lo, hi int) *model.Tensor {
	logits := tr.Logits()
	vocab := logits.Shape[1]
	rows, w := len(targets), hi-lo
	data := make([]int64, rows*w)
	for i, t := range targets {
		row := logits.Data[i*vocab:][:vocab]
		for j, v := range row[lo:hi] {
			d := row[t] - v
			if lo+j < t {
				d--
			}
			data[i*w+j] = d
		}
	}
	return &model.Tensor{Name: "argmax.margins", Shape: []int{rows, w}, Data: data, Min: 0, Max: logits.Max - logits.Min}
}

// chosenLogits returns each row's logit at its target, L[i][U_i].
func chosenLogits(tr *model.Trace, targets []int) []int64 {
	logits := tr.Logits()
	vocab := logits.Shape[1]
	out := make([]int64, len(targets))
	for i, t := range targets {
		out[i] = logits.Data[i*vocab+t]
	}
	return out
}

// vocabRange returns the LM head columns [lo, hi) a segment with the LM
// head covers: a chunk's range, or the whole vocabulary of tr.
func vocabRange(seg inference.Segment, tr *model.Trace) (lo, hi int) {
	if seg.Chunk() {
		return seg.VocabFrom, seg.VocabTo
	}
	return 0, tr.Logits().Shape[1]
}

// ArgmaxProof links the margins to the logits (a segment with the LM
// head): the targets U_i, one per row (T[i + 1] on a live row, the row's
// argmax on a pad row), the chosen logits C_i = L[i][U_i], the margins'
// MLE at a random point (ρ_k, ρ_j), and a sum-check over the logits' row
// coordinates of Σᵢ w(i)·L(i, ρ_j), w(i) = eq(ρ_k, i)·[i < R], ending at
// the logits' MLE at (r′, ρ_j). In a chunk, L is the chunk's columns of
// the logits; Targets and Chosen are the same in every chunk of a pass
// (VerifyPass compares them), and Local holds per row the chunk's logit
// L[i][c_i] at c_i = U_i − VocabFrom if the chunk holds U_i, 0
// otherwise: it is claimed on the logits, and must be Chosen[i] where
// the chunk holds U_i. Local is nil outside chunks, where Chosen is
// claimed on the logits itself.
type ArgmaxProof struct {
	Targets     []int
	Chosen      []fr.Element
	Local       []fr.Element
	MarginsEval fr.Element
	SumCheck    sumcheck.Proof[fr.Element]
	LogitsEval  fr.Element
}

// ArgmaxStep holds what the prover and verifier share: the blocks and the
// point.
type ArgmaxStep struct {
	logits, margins int // blocks
	rowVars         int // of the logits
	colVars         int
	rows            int // R, the logits' rows
	// next[i] is T[i + 1] on a live row i, −1 on a pad row.
	next   []int
	vocab  int  // the logits' columns
	total  int  // the vocabulary size
	offset int  // the vocabulary index of the first column
	chunk  bool // the segment is a chunk: Local is claimed
}

// LogitsBlock returns the block of the logits, [R, V] for R rows and a
// vocabulary of V.
func (a *ArgmaxStep) LogitsBlock() int { return a.logits }

// MarginsBlock returns the block of the margins, [R, V] (marginsTensor).
func (a *ArgmaxStep) MarginsBlock() int { return a.margins }

// Vars returns the numbers of the logits' row and column coordinates
// (the margins have the same column coordinates).
func (a *ArgmaxStep) Vars() (rows, cols int) { return a.rowVars, a.colVars }

// Rows returns R, the number of logits rows, each with a target.
func (a *ArgmaxStep) Rows() int { return a.rows }

// Vocab returns the number V of the logits' columns: the vocabulary
// size, or a chunk's width.
func (a *ArgmaxStep) Vocab() int { return a.vocab }

// Total returns the vocabulary size: every target is below it.
func (a *ArgmaxStep) Total() int { return a.total }

// Offset returns the vocabulary index of the logits' first column (0, or
// a chunk's VocabFrom).
func (a *ArgmaxStep) Offset() int { return a.offset }

// Chunk reports whether the step is a chunk's: its proof has Local.
func (a *ArgmaxStep) Chunk() bool { return a.chunk }

// local returns the column c of token tok in the logits (0 if they do
// not hold it), and whether they hold it.
func (a *ArgmaxStep) local(tok int) (int, bool) {
	j := tok - a.offset
	if j < 0 || j >= a.vocab {
		return 0, false
	}
	return j, true
}

// prefix returns the number of the logits' columns before token tok:
// those the margins of its row take 1 off.
func (a *ArgmaxStep) prefix(tok int) int {
	return min(max(tok-a.offset, 0), a.vocab)
}

func newArgmaxStep(tr *model.Trace, l *Layout, pass Pass, seg inference.Segment) (*ArgmaxStep, error) {
	if l.Margins == nil {
		return nil, nil
	}
	lg := tr.Logits()
	dims, _, err := poly.TensorVars(lg.Shape)
	if err != nil {
		return nil, err
	}
	rows := lg.Shape[0]
	next := nextTokens(pass, rows)
	return &ArgmaxStep{
		logits: l.Index[lg], margins: l.Index[l.Margins],
		rowVars: dims[0], colVars: dims[1],
		rows: rows, next: next, vocab: lg.Shape[1], total: l.Vocab, offset: seg.VocabFrom, chunk: seg.Chunk(),
	}, nil
}

// bitsPoint returns the boolean point of index i over n variables (most
// significant first): the point of a claim on one entry.
func bitsPoint(i, n int) []fr.Element {
	out := hugepage.Make[fr.Element](n)
	for k := range n {
		if i>>(n-1-k)&1 == 1 {
			out[k].SetOne()
		}
	}
	return out
}

// rowWeight is w at point: Σ_{i<R} eq(ρ_k, i)·eq(point, i), which is
// eq(ρ_k, point) when R is a power of two.
func (a *ArgmaxStep) rowWeight(rhoK, point []fr.Element) fr.Element {
	eqK := poly.EqTable[fr.Element](rhoK)
	var res fr.Element
	for i := range a.rows {
		e := poly.EqIndex[fr.Element](point, i)
		e.Mul(&e, &eqK[i])
		res.Add(&res, &e)
	}
	return res
}

// expected returns Σ_i eq(ρ_k, i)·(C_i·Sel_V(ρ_j) − Prefix_{p_i}(ρ_j)) −
// D(ρ), the value the row sum-check must have, with p_i the logits'
// columns before U_i (U_i itself in a segment with the whole LM head).
func (a *ArgmaxStep) expected(rhoK, rhoJ []fr.Element, targets []int, chosen []fr.Element, margins fr.Element) fr.Element {
	eqK := poly.EqTable[fr.Element](rhoK)
	sel := lookup.Selector[fr.Element]([]int{a.vocab}, rhoJ)
	var res, t fr.Element
	for i, tok := range targets {
		t.Mul(&chosen[i], &sel)
		p := poly.Prefix[fr.Element](rhoJ, a.prefix(tok))
		t.Sub(&t, &p)
		t.Mul(&t, &eqK[i])
		res.Add(&res, &t)
	}
	res.Sub(&res, &margins)
	return res
}

// absorbTargets absorbs the targets packed, each below 2²⁰ (as tokens).
func absorbTargets(t *pcs.Transcript, targets []int) error {
	values := make([]int64, len(targets))
	for i, v := range targets {
		values[i] = int64(v)
	}
	return t.AbsorbPacked(values, 0, 1<<statement.TokenBits-1)
}

// proveArgmax runs the argmax step of a segment with the LM head (nil
// otherwise).
func proveArgmax(t *pcs.Transcript, l *Layout, a *ArgmaxStep, stacked []fr.Element) (*ArgmaxProof, []fr.Element, error) {
	if a == nil {
		return nil, nil, nil
	}
	if len(l.Targets) != a.rows || len(l.Chosen) != a.rows {
		return nil, nil, fmt.Errorf("committed: argmax: %d targets for %d rows", len(l.Targets), a.rows)
	}
	t.Label("committed/argmax")
	logits := blockOf(l, stacked, a.logits)
	p := &ArgmaxProof{Targets: slices.Clone(l.Targets), Chosen: make([]fr.Element, a.rows)}
	for i, tok := range p.Targets {
		j, _ := a.local(tok)
		if !a.chunk {
			p.Chosen[i] = logits[i<<a.colVars+j]
			continue
		}
		p.Chosen[i].SetInt64(l.Chosen[i])
		p.Local = append(p.Local, logits[i<<a.colVars+j])
	}
	if err := absorbTargets(t, p.Targets); err != nil {
		return nil, nil, err
	}
	t.Absorb(p.Chosen...)
	t.Absorb(p.Local...)
	rho := t.Challenges(l.Blocks[a.margins].NbVars)
	rhoK, rhoJ := rho[:len(rho)-a.colVars], rho[len(rho)-a.colVars:]
	p.MarginsEval = poly.Evaluate[fr.Element](blockOf(l, stacked, a.margins), rho)
	t.Absorb(p.MarginsEval)
	// The logits folded over the column coordinates at ρ_j, and w.
	lg := l.Blocks[a.logits].Tensor
	col := poly.FoldColumns[fr.Element](lg.Data, lg.Shape[0], lg.Shape[1], poly.EqTable[fr.Element](rhoJ))
	eqK := poly.EqTable[fr.Element](rhoK)
	w := hugepage.Make[fr.Element](1 << a.rowVars)
	copy(w, eqK[:a.rows])
	sum := a.expected(rhoK, rhoJ, p.Targets, p.Chosen, p.MarginsEval)
	end := []fr.Element{}
	if a.rowVars == 0 {
		p.LogitsEval = col[0]
	} else {
		one := field.One[fr.Element]()
		sc, op, err := sumcheck.Prove(t, [][]fr.Element{w, col}, []sumcheck.Term[fr.Element]{{Coefficient: one, Factors: []int{0, 1}}}, sum)
		if err != nil {
			return nil, nil, err
		}
		p.SumCheck, p.LogitsEval, end = sc, op.Evaluations[1], op.Point
	}
	t.Absorb(p.LogitsEval)
	return p, append(append(end, rhoK...), rhoJ...), nil
}

// verifyArgmax replays the argmax step; it returns the point (r′, ρ_k, ρ_j).
func verifyArgmax(t *pcs.Transcript, l *Layout, a *ArgmaxStep, p *ArgmaxProof) ([]fr.Element, error) {
	if a == nil {
		if p != nil {
			return nil, fmt.Errorf("argmax: a proof in a segment without the LM head")
		}
		return nil, nil
	}
	nbLocal := 0
	if a.chunk {
		nbLocal = a.rows
	}
	if p == nil || len(p.Targets) != a.rows || len(p.Chosen) != a.rows || len(p.Local) != nbLocal {
		return nil, fmt.Errorf("argmax: missing or of the wrong length")
	}
	for i, tok := range p.Targets {
		if tok < 0 || tok >= a.total {
			return nil, fmt.Errorf("argmax: row %d's target %d is outside the vocabulary of %d", i, tok, a.total)
		}
		if a.next[i] >= 0 && tok != a.next[i] {
			return nil, fmt.Errorf("argmax: row %d's target is %d, not the output token %d", i, tok, a.next[i])
		}
		if _, ok := a.local(tok); ok && a.chunk && !p.Local[i].Equal(&p.Chosen[i]) {
			return nil, fmt.Errorf("argmax: row %d's target logit is not the chosen one", i)
		}
	}
	t.Label("committed/argmax")
	if err := absorbTargets(t, p.Targets); err != nil {
		return nil, err
	}
	t.Absorb(p.Chosen...)
	t.Absorb(p.Local...)
	rho := t.Challenges(l.Blocks[a.margins].NbVars)
	rhoK, rhoJ := rho[:len(rho)-a.colVars], rho[len(rho)-a.colVars:]
	t.Absorb(p.MarginsEval)
	sum := a.expected(rhoK, rhoJ, p.Targets, p.Chosen, p.MarginsEval)
	end := []fr.Element{}
	if a.rowVars == 0 {
		if !sum.Equal(&p.LogitsEval) || len(p.SumCheck.Rounds) != 0 {
			return nil, fmt.Errorf("argmax: the margins are not the logits'")
		}
	} else {
		var expected fr.Element
		var err error
		if end, expected, err = sumcheck.Verify(t, sum, 2, a.rowVars, p.SumCheck); err != nil {
			return nil, fmt.Errorf("argmax: %w", err)
		}
		w := a.rowWeight(rhoK, end)
		w.Mul(&w, &p.LogitsEval)
		if !w.Equal(&expected) {
			return nil, fmt.Errorf("argmax: the final value does not match")
		}
	}
	t.Absorb(p.LogitsEval)
	return append(append(end, rhoK...), rhoJ...), nil
}

// argmaxClaims are the claims on the stacked MLE: each chosen logit at
// its boolean point (i, U_i) (in a chunk, each Local value at (i, c_i)),
// the margins at ρ, the logits at (r′, ρ_j).
func argmaxClaims(l *Layout, a *ArgmaxStep, point []fr.Element, p *ArgmaxProof) []pcs.Claim {
	if a == nil {
		return nil
	}
	var out []pcs.Claim
	for i, tok := range p.Targets {
		j, _ := a.local(tok)
		local := append(bitsPoint(i, a.rowVars), bitsPoint(j, a.colVars)...)
		v := p.Chosen[i]
		if a.chunk {
			v = p.Local[i]
		}
		out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(a.logits, local), Value: v})
	}
	end, rho := point[:a.rowVars], point[a.rowVars:]
	lPoint := append(slices.Clone(end), rho[len(rho)-a.colVars:]...)
	return append(out,
		pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(a.margins, rho), Value: p.MarginsEval},
		pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(a.logits, lPoint), Value: p.LogitsEval})
}

// ArgmaxClaims returns the claims the argmax step leaves on the stacked
// MLE (commitment [TensorsCommitment]), from the point (r′, ρ_k, ρ_j)
// [Shape.VerifyArgmax] returned for p: each chosen logit L[i][U_i] at
// its boolean point (in a chunk, each Local value at (i, c_i)), the
// margins at (ρ_k, ρ_j) and the
// logits at (r′, ρ_j); none in a segment without the LM head.
func (s *Shape) ArgmaxClaims(point []fr.Element, p *ArgmaxProof) []pcs.Claim {
	return argmaxClaims(s.Layout, s.Argmax, point, p)
}
