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
	"github.com/veriformer/veriformer/sumcheck"
)

// Pass is the public generation a segment proof is about: the prompt and
// the greedily generated output tokens. The forward pass runs over
// Prompt ‖ Output[:len(Output)−1]; its logits row P − 1 + k (P the prompt
// length) has Output[k] as argmax, ties broken by the smallest index.
type Pass struct {
	Prompt, Output []int
}

// Tokens returns the tokens of the forward pass.
func (p Pass) Tokens() []int {
	return append(slices.Clone(p.Prompt), p.Output[:len(p.Output)-1]...)
}

// check refuses an empty prompt or output and tokens outside the
// vocabulary.
func (p Pass) check(vocab int) error {
	if len(p.Prompt) == 0 || len(p.Output) == 0 {
		return fmt.Errorf("committed: a pass needs a prompt and an output token (%d, %d)", len(p.Prompt), len(p.Output))
	}
	for _, t := range append(slices.Clone(p.Prompt), p.Output...) {
		if t < 0 || t >= vocab {
			return fmt.Errorf("committed: token %d outside the vocabulary of %d", t, vocab)
		}
	}
	return nil
}

// marginsTensor returns the argmax margins of the output tokens over the
// vocabulary columns [lo, hi), [g, hi − lo] for g output tokens:
//
//	D[k][j] = L[P−1+k][t_k] − L[P−1+k][lo+j] − [lo+j < t_k]
//
// with L the logits and t_k = Output[k]. Every margin of every column is
// in [0, Max − Min] of the logits exactly when each t_k is the argmax of
// its row with ties broken by the smallest index: a segment with the
// whole LM head has [lo, hi) = [0, V), the chunks of a pass cover it
// between them, each against the same chosen logits L[P−1+k][t_k]. Its
// data is that of the pass's logits (meaningless on a shape pass, which
// only needs its shape and range).
func marginsTensor(tr *model.Trace, pass Pass, lo, hi int) *model.Tensor {
	logits := tr.Logits()
	vocab := logits.Shape[1]
	g, w := len(pass.Output), hi-lo
	data := make([]int64, g*w)
	for k, t := range pass.Output {
		row := logits.Data[(len(pass.Prompt)-1+k)*vocab:][:vocab]
		for j, v := range row[lo:hi] {
			d := row[t] - v
			if lo+j < t {
				d--
			}
			data[k*w+j] = d
		}
	}
	return &model.Tensor{Name: "argmax.margins", Shape: []int{g, w}, Data: data, Min: 0, Max: logits.Max - logits.Min}
}

// chosenLogits returns the output tokens' logits L[P−1+k][t_k].
func chosenLogits(tr *model.Trace, pass Pass) []int64 {
	logits := tr.Logits()
	vocab := logits.Shape[1]
	out := make([]int64, len(pass.Output))
	for k, t := range pass.Output {
		out[k] = logits.Data[(len(pass.Prompt)-1+k)*vocab+t]
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

// argmaxRows returns the logits rows of the output tokens, P − 1 + k.
func argmaxRows(pass Pass) []int {
	out := make([]int, len(pass.Output))
	for k := range out {
		out[k] = len(pass.Prompt) - 1 + k
	}
	return out
}

// ArgmaxProof links the margins to the logits (a segment with the LM
// head): the chosen logits C_k = L[P−1+k][t_k], the margins' MLE at a
// random point (ρ_k, ρ_j), and a sum-check over the logits' row
// coordinates of Σᵢ w(i)·L(i, ρ_j), w(i) = Σ_k eq(ρ_k, k)·[i = P−1+k],
// ending at the logits' MLE at (r′, ρ_j). In a chunk, L is the chunk's
// columns of the logits; Chosen is the same in every chunk of a pass
// (VerifyPass compares them), and Local holds per output token the
// chunk's logit L[P−1+k][c_k] at c_k = t_k − VocabFrom if the chunk
// holds t_k, 0 otherwise: it is claimed on the logits, and must be
// Chosen[k] where the chunk holds t_k. Local is nil outside chunks,
// where Chosen is claimed on the logits itself.
type ArgmaxProof struct {
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
	rows            []int // the logits rows of the output tokens
	tokens          []int
	vocab           int  // the logits' columns
	total           int  // the vocabulary size
	offset          int  // the vocabulary index of the first column
	chunk           bool // the segment is a chunk: Local is claimed
}

// LogitsBlock returns the block of the logits, [T, V] for T positions
// and a vocabulary of V.
func (a *ArgmaxStep) LogitsBlock() int { return a.logits }

// MarginsBlock returns the block of the margins, [g, V] for g output
// tokens (marginsTensor).
func (a *ArgmaxStep) MarginsBlock() int { return a.margins }

// Vars returns the numbers of the logits' row and column coordinates
// (the margins have the same column coordinates).
func (a *ArgmaxStep) Vars() (rows, cols int) { return a.rowVars, a.colVars }

// Rows returns the logits rows of the output tokens, P − 1 + k for
// output token k and a prompt of P tokens.
func (a *ArgmaxStep) Rows() []int { return slices.Clone(a.rows) }

// Vocab returns the number V of the logits' columns: the vocabulary
// size, or a chunk's width.
func (a *ArgmaxStep) Vocab() int { return a.vocab }

// Total returns the vocabulary size: every output token is below it.
func (a *ArgmaxStep) Total() int { return a.total }

// Offset returns the vocabulary index of the logits' first column (0, or
// a chunk's VocabFrom).
func (a *ArgmaxStep) Offset() int { return a.offset }

// Chunk reports whether the step is a chunk's: its proof has Local.
func (a *ArgmaxStep) Chunk() bool { return a.chunk }

// local returns the column c_k of token tok in the logits (0 if they do
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
	return &ArgmaxStep{
		logits: l.Index[lg], margins: l.Index[l.Margins],
		rowVars: dims[0], colVars: dims[1],
		rows: argmaxRows(pass), tokens: pass.Output, vocab: lg.Shape[1], total: l.Vocab, offset: seg.VocabFrom, chunk: seg.Chunk(),
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

// rowWeight is w at point: Σ_k eq(ρ_k, k)·eq(point, P−1+k).
func (a *ArgmaxStep) rowWeight(rhoK, point []fr.Element) fr.Element {
	eqK := poly.EqTable[fr.Element](rhoK)
	var res fr.Element
	for k, i := range a.rows {
		e := poly.EqIndex[fr.Element](point, i)
		e.Mul(&e, &eqK[k])
		res.Add(&res, &e)
	}
	return res
}

// expected returns Σ_k eq(ρ_k, k)·(C_k·Sel_V(ρ_j) − Prefix_{p_k}(ρ_j)) −
// D(ρ), the value the row sum-check must have, with p_k the logits'
// columns before t_k (t_k itself in a segment with the whole LM head).
func (a *ArgmaxStep) expected(rhoK, rhoJ []fr.Element, chosen []fr.Element, margins fr.Element) fr.Element {
	eqK := poly.EqTable[fr.Element](rhoK)
	sel := lookup.Selector[fr.Element]([]int{a.vocab}, rhoJ)
	var res, t fr.Element
	for k, tok := range a.tokens {
		t.Mul(&chosen[k], &sel)
		p := poly.Prefix[fr.Element](rhoJ, a.prefix(tok))
		t.Sub(&t, &p)
		t.Mul(&t, &eqK[k])
		res.Add(&res, &t)
	}
	res.Sub(&res, &margins)
	return res
}

// proveArgmax runs the argmax step of a segment with the LM head (nil
// otherwise).
func proveArgmax(t *pcs.Transcript, l *Layout, a *ArgmaxStep, stacked []fr.Element) (*ArgmaxProof, []fr.Element, error) {
	if a == nil {
		return nil, nil, nil
	}
	t.Label("committed/argmax")
	logits := blockOf(l, stacked, a.logits)
	p := &ArgmaxProof{Chosen: make([]fr.Element, len(a.tokens))}
	for k, tok := range a.tokens {
		j, _ := a.local(tok)
		if !a.chunk {
			p.Chosen[k] = logits[a.rows[k]<<a.colVars+j]
			continue
		}
		p.Chosen[k].SetInt64(l.Chosen[k])
		p.Local = append(p.Local, logits[a.rows[k]<<a.colVars+j])
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
	for k, i := range a.rows {
		w[i] = eqK[k]
	}
	sum := a.expected(rhoK, rhoJ, p.Chosen, p.MarginsEval)
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
		nbLocal = len(a.tokens)
	}
	if p == nil || len(p.Chosen) != len(a.tokens) || len(p.Local) != nbLocal {
		return nil, fmt.Errorf("argmax: missing or of the wrong length")
	}
	for k, tok := range a.tokens {
		if _, ok := a.local(tok); ok && a.chunk && !p.Local[k].Equal(&p.Chosen[k]) {
			return nil, fmt.Errorf("argmax: output token %d's logit is not the chosen one", k)
		}
	}
	t.Label("committed/argmax")
	t.Absorb(p.Chosen...)
	t.Absorb(p.Local...)
	rho := t.Challenges(l.Blocks[a.margins].NbVars)
	rhoK, rhoJ := rho[:len(rho)-a.colVars], rho[len(rho)-a.colVars:]
	t.Absorb(p.MarginsEval)
	sum := a.expected(rhoK, rhoJ, p.Chosen, p.MarginsEval)
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
// its boolean point (in a chunk, each Local value at (P−1+k, c_k)), the
// margins at ρ, the logits at (r′, ρ_j).
func argmaxClaims(l *Layout, a *ArgmaxStep, point []fr.Element, p *ArgmaxProof) []pcs.Claim {
	if a == nil {
		return nil
	}
	var out []pcs.Claim
	for k, tok := range a.tokens {
		j, _ := a.local(tok)
		local := append(bitsPoint(a.rows[k], a.rowVars), bitsPoint(j, a.colVars)...)
		v := p.Chosen[k]
		if a.chunk {
			v = p.Local[k]
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
// [Shape.VerifyArgmax] returned for p: each chosen logit
// L[P−1+k][t_k] at its boolean point (in a chunk, each Local value at
// (P−1+k, c_k)), the margins at (ρ_k, ρ_j) and the
// logits at (r′, ρ_j); none in a segment without the LM head.
func (s *Shape) ArgmaxClaims(point []fr.Element, p *ArgmaxProof) []pcs.Claim {
	return argmaxClaims(s.Layout, s.Argmax, point, p)
}
