package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// Contraction is one attention contraction of a segment's block: the
// scores (A = queries, B = keys) or the context (A = probabilities,
// B = values). Its index cube is (h, i, j, c) for the scores and
// (i, h, c, j) for the context, each group padded to a power of two:
// BH, BI, BJ, BC bits for the heads, query rows, key rows and the head
// dimension; S is log₂ of the query heads per key/value head. Key row j
// is masked for query row i when j > Start + i.
type Contraction struct {
	Scores         bool
	Q              int // the requantization's index
	A, B           int // the factors' blocks
	BH, BI, BJ, BC int
	S              int
	heads, hd      int
	n, total       int
	Start          int
	Name           string
}

// attentionContractions lists the scores and context contractions of the
// segment's blocks. The queries and keys are the Q and K projections'
// outputs (after RoPE for Llama), the values V's; the pass starts at
// position 0 (the keys are the pass's own rows). The head dimension and
// the query heads per key/value head must be powers of two.
func attentionContractions(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int) ([]Contraction, error) {
	var out []Contraction
	for i := seg.From; i < seg.To; i++ {
		ly := &tr.Layers[i]
		a := &ly.Attention
		query, keys := &ly.Q.Out, &ly.K.Out
		if ly.RopeQ != nil {
			query, keys = &ly.RopeQ.Out, &ly.RopeK.Out
		}
		if a.Start != 0 || len(a.Scores.Out.Shape) != 3 {
			return nil, fmt.Errorf("committed: attention of block %d: a pass from position 0 is needed (start %d)", i, a.Start)
		}
		heads, n, total := a.Scores.Out.Shape[0], a.Scores.Out.Shape[1], a.Scores.Out.Shape[2]
		if n != total || len(query.Shape) != 2 || query.Shape[0] != n || query.Shape[1]%heads != 0 || len(keys.Shape) != 2 || keys.Shape[0] != total {
			return nil, fmt.Errorf("committed: attention of block %d: shapes %v, %v, %v", i, a.Scores.Out.Shape, query.Shape, keys.Shape)
		}
		hd := query.Shape[1] / heads
		kvHeads := keys.Shape[1] / hd
		if !poly.IsPowerOfTwo(hd) || kvHeads == 0 || heads%kvHeads != 0 || !poly.IsPowerOfTwo(heads/kvHeads) || keys.Shape[1] != kvHeads*hd {
			return nil, fmt.Errorf("committed: attention of block %d: head dimension %d and %d query heads per key head must be powers of two", i, hd, heads/max(kvHeads, 1))
		}
		base := Contraction{BH: poly.Log2Ceil(heads), BI: poly.Log2Ceil(n), BJ: poly.Log2Ceil(total), BC: poly.Log2Ceil(hd),
			S: poly.Log2Ceil(heads / kvHeads), heads: heads, hd: hd, n: n, total: total, Start: a.Start}
		for _, c := range []struct {
			scores bool
			rq     *model.Requant
			a, b   *model.Tensor
		}{{true, &a.Scores, query, keys}, {false, &a.Context, &a.Probs, &ly.V.Out}} {
			q, okQ := index[c.rq]
			ba, okA := l.Index[c.a]
			bb, okB := l.Index[c.b]
			if !okQ || !okA || !okB {
				return nil, fmt.Errorf("committed: attention of block %d: %s or its factors are not committed", i, c.rq.Out.Name)
			}
			k := base
			k.Scores, k.Q, k.A, k.B, k.Name = c.scores, q, ba, bb, c.rq.Out.Name
			out = append(out, k)
		}
	}
	return out, nil
}

// vars is the number of variables of the contraction's cube.
func (k *Contraction) vars() int { return k.BH + k.BI + k.BJ + k.BC }

// masked reports whether key row j is masked for query row i.
func (k *Contraction) masked(i, j int) bool { return j > k.Start+i }

// tables returns, over the cube, E = eq(r, ·)·mask, and the two factors
// broadcast: A and B as functions of the cube's coordinates (zero where
// the factor's padded table is).
func (k *Contraction) tables(l *Layout, stacked, r []fr.Element) (e, a, b []fr.Element) {
	size := 1 << k.vars()
	e, a, b = hugepage.Make[fr.Element](size), hugepage.Make[fr.Element](size), hugepage.Make[fr.Element](size)
	eq := poly.EqTable[fr.Element](r)
	blockA, blockB := &l.Blocks[k.A], &l.Blocks[k.B]
	A := stacked[blockA.Offset : blockA.Offset+1<<blockA.NbVars]
	B := stacked[blockB.Offset : blockB.Offset+1<<blockB.NbVars]
	H, I, J, C := 1<<k.BH, 1<<k.BI, 1<<k.BJ, 1<<k.BC
	// A (head, query row) pair's entries are contiguous in either
	// order: the pairs are shared between the cores.
	parallel.Execute(H*I, max(1, (1<<12)/(J*C)), func(start, end int) {
		for hi := start; hi < end; hi++ {
			k.fill(e, a, b, eq, A, B, hi/I, hi%I)
		}
	})
	return e, a, b
}

// fill writes the entries of head h and query row i of the tables.
func (k *Contraction) fill(e, a, b, eq, A, B []fr.Element, h, i int) {
	H, I, J, C := 1<<k.BH, 1<<k.BI, 1<<k.BJ, 1<<k.BC
	g := h >> k.S
	for j := range J {
		for c := range C {
			var x, rIdx int
			if k.Scores {
				x = ((h*I+i)*J+j)*C + c
				rIdx = (h*I+i)*J + j
				a[x] = A[i*H*C+h*C+c]        // queries [n, heads·hd]
				b[x] = B[j*(H>>k.S)*C+g*C+c] // keys [T, kvHeads·hd]
			} else {
				x = ((i*H+h)*C+c)*J + j
				rIdx = (i*H+h)*C + c
				a[x] = A[(h*I+i)*J+j]        // probabilities [heads, n, T]
				b[x] = B[j*(H>>k.S)*C+g*C+c] // values [T, kvHeads·hd]
			}
			if !k.masked(i, j) {
				e[x] = eq[rIdx]
			}
		}
	}
}

// split returns the end point's coordinates by group: heads, query rows,
// key rows, head dimension.
func (k *Contraction) split(end []fr.Element) (h, i, j, c []fr.Element) {
	if k.Scores {
		h, i, j, c = end[:k.BH], end[k.BH:k.BH+k.BI], end[k.BH+k.BI:k.BH+k.BI+k.BJ], end[k.BH+k.BI+k.BJ:]
		return
	}
	i, h, c, j = end[:k.BI], end[k.BI:k.BI+k.BH], end[k.BI+k.BH:k.BI+k.BH+k.BC], end[k.BI+k.BH+k.BC:]
	return
}

// factorPoints are the points of the factors' blocks at the end point.
func (k *Contraction) factorPoints(end []fr.Element) (pa, pb []fr.Element) {
	h, i, j, c := k.split(end)
	g := h[:k.BH-k.S]
	cat := func(parts ...[]fr.Element) []fr.Element {
		var out []fr.Element
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	if k.Scores {
		return cat(i, h, c), cat(j, g, c)
	}
	return cat(h, i, j), cat(j, g, c)
}

// eqEval is the MLE of E = eq(r, ·)·mask at the end point. eq(r, ·)
// factors over the coordinate groups, but the mask and eq share the row
// coordinates, so their product's MLE is summed over the padded query and
// key rows: Σ_{a,b} eq(e_i, a)·eq(e_j, b)·[b ≤ start + a]·(eq(r_i, a)·eq(r_j, b)
// for the scores, eq(r_i, a) for the context), times eq of the other
// groups: O(2^(bi+bj)).
func (k *Contraction) eqEval(r, end []fr.Element) fr.Element {
	h, i, j, c := k.split(end)
	var ri, rj, rest, at []fr.Element
	if k.Scores {
		rh := r[:k.BH]
		ri, rj = r[k.BH:k.BH+k.BI], r[k.BH+k.BI:]
		rest, at = rh, h
	} else {
		ri = r[:k.BI]
		rest, at = r[k.BI:], append(append([]fr.Element(nil), h...), c...)
	}
	ei, ej := poly.EqTable[fr.Element](i), poly.EqTable[fr.Element](j)
	wi := poly.EqTable[fr.Element](ri)
	for a := range ei {
		ei[a].Mul(&ei[a], &wi[a])
	}
	if rj != nil {
		wj := poly.EqTable[fr.Element](rj)
		for b := range ej {
			ej[b].Mul(&ej[b], &wj[b])
		}
	}
	var sum, t fr.Element
	for a := range ei {
		var row fr.Element
		for b := range ej {
			if !k.masked(a, b) {
				row.Add(&row, &ej[b])
			}
		}
		t.Mul(&row, &ei[a])
		sum.Add(&sum, &t)
	}
	v := poly.Eq[fr.Element](rest, at)
	v.Mul(&v, &sum)
	return v
}

func contractionTerm() []sumcheck.Term[fr.Element] {
	return []sumcheck.Term[fr.Element]{{Coefficient: field.One[fr.Element](), Factors: []int{0, 1, 2}}}
}

// contractionSteps are the contractions' sum-checks (stacked is nil for
// the verifier).
func contractionSteps(l *Layout, ks []Contraction, stacked []fr.Element, points [][]fr.Element, acc []fr.Element) []factorStep {
	steps := make([]factorStep, len(ks))
	for n := range ks {
		k := &ks[n]
		r := points[k.Q]
		steps[n] = factorStep{
			name: k.Name, sum: acc[k.Q], vars: k.vars(), terms: contractionTerm(), a: 1, b: 2,
			tables: func() [][]fr.Element {
				e, a, b := k.tables(l, stacked, r)
				return [][]fr.Element{e, a, b}
			},
			final: func(end []fr.Element, a, b fr.Element) fr.Element {
				v := k.eqEval(r, end)
				v.Mul(&v, &a)
				return *v.Mul(&v, &b)
			},
		}
	}
	return steps
}

// contractionClaims are the claims of the factors' values on their blocks.
func contractionClaims(l *Layout, ks []Contraction, ends [][]fr.Element, proofs []FactorProof) []pcs.Claim {
	return factorClaims(l, proofs, ends, func(n int, end []fr.Element) (int, int, []fr.Element, []fr.Element) {
		pa, pb := ks[n].factorPoints(end)
		return ks[n].A, ks[n].B, pa, pb
	})
}
