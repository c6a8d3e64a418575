package committed

import (
	"fmt"
	"slices"

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
// B = values). Each group of coordinates is padded to a power of two:
// BH, BI, BJ, BC bits for the heads, query rows, key rows and the head
// dimension; S is log₂ of the query heads per key/value head, so that
// query head h reads key/value head g = h >> S. Key row j is masked for
// query row i when j > Start + i, and in a stacked pass (Begins set, the
// requests of a batch in one pass from position 0) also when j <
// Begins[i], the first row of row i's request: the mask is then
// block-diagonal.
//
// Its accumulator claim is proven as a matrix product, the output's
// coordinates bound first, so that no sum-check runs over the whole cube
// (h, i, j, c):
//
//   - the context, Σ_{i,h,c} eq(r, (i, h, c))·Σ_{j ≤ i} P(h, i, j)·V(j, g, c),
//     by a sum-check over (i, h, j) of eq(r_i, i)·eq(r_h, h)·mask(i, j)
//     times P(h, i, j) times V(j, g, r_c), whose end values are claims on
//     P and V;
//   - the scores, Σ_{h,i,j} eq(r, (h, i, j))·mask(i, j)·Σ_c Q(i, h, c)·K(j, g, c),
//     by a sum-check over (h, i, c) of eq(r_h, h)·eq(r_i, i) times
//     Q(i, h, c) times K̃(h, i, c) = Σ_{j ≤ i} eq(r_j, j)·K(j, g, c) (prefix
//     sums over the key rows, the mask being causal), whose end value
//     K̃(z) is proven by a second sum-check, over j, of the public
//     w(j) = eq(r_j, j)·Σᵢ eq(z_i, i)·mask(i, j) times K(j, z_g, z_c)
//     (a [KeyProof]).
//
// The sums are those of the cube's sum, factored: the same identity at a
// cost of 2^(BH+BI+BC) and 2^(BI+BH+BJ) entries instead of
// 2^(BH+BI+BJ+BC) each.
type Contraction struct {
	Scores         bool
	Q              int // the requantization's index
	A, B           int // the factors' blocks
	BH, BI, BJ, BC int
	S              int
	heads, hd      int
	n, total       int
	Start          int
	// Begins, in a stacked pass, holds each query row's first key row
	// (model.Attention.Begins); nil otherwise. ends[j] is then the last
	// row of row j's request.
	Begins []int
	ends   []int
	Name   string
	// Cached: in a turn the keys and values are the cache's, T =
	// Capacity rows: the state in's Start rows, the pass's n new rows
	// from row Start, zero rows after them. B is then the new rows'
	// block (K's or V's output), whose claim the cache step proves
	// (turn.go); cache holds the prover's T × ŵ table. Layer is the
	// contraction's block.
	Cached bool
	Layer  int
	cache  []fr.Element
}

// KeyProof proves the value K̃(z) a scores contraction's sum-check ends
// with: a degree-2 sum-check over the key rows, and K's value at its end
// point (a claim on the keys' block).
type KeyProof struct {
	SumCheck sumcheck.Proof[fr.Element]
	K        fr.Element
}

// attentionContractions lists the scores and context contractions of the
// segment's blocks. The queries and keys are the Q and K projections'
// outputs (after RoPE for Llama), the values V's; the pass starts at
// position 0 (the keys are the pass's own rows). The head dimension and
// the query heads per key/value head must be powers of two, as the
// model's head layout (model.Config.HeadLayout) makes them.
func attentionContractions(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int, turn bool) ([]Contraction, error) {
	var out []Contraction
	for i := seg.From; i < seg.To; i++ {
		ly := &tr.Layers[i]
		a := &ly.Attention
		query, keys := &ly.Q.Out, &ly.K.Out
		if ly.RopeQ != nil {
			query, keys = &ly.RopeQ.Out, &ly.RopeK.Out
		}
		if (a.Start != 0 && !turn) || (a.Begins != nil && turn) || len(a.Scores.Out.Shape) != 3 {
			return nil, fmt.Errorf("committed: attention of block %d: a pass from position 0 is needed (start %d)", i, a.Start)
		}
		heads, n, total := a.Scores.Out.Shape[0], a.Scores.Out.Shape[1], a.Scores.Out.Shape[2]
		if (n != total && !turn) || len(query.Shape) != 2 || query.Shape[0] != n || query.Shape[1]%heads != 0 || len(keys.Shape) != 2 || keys.Shape[0] != n ||
			len(a.Keys.Shape) != 2 || a.Keys.Shape[0] != total || a.Keys.Shape[1] != keys.Shape[1] {
			return nil, fmt.Errorf("committed: attention of block %d: shapes %v, %v, %v", i, a.Scores.Out.Shape, query.Shape, keys.Shape)
		}
		hd := query.Shape[1] / heads
		kvHeads := keys.Shape[1] / hd
		if !poly.IsPowerOfTwo(hd) || kvHeads == 0 || heads%kvHeads != 0 || !poly.IsPowerOfTwo(heads/kvHeads) || keys.Shape[1] != kvHeads*hd {
			return nil, fmt.Errorf("committed: attention of block %d: head dimension %d and %d query heads per key head must be powers of two", i, hd, heads/max(kvHeads, 1))
		}
		base := Contraction{BH: poly.Log2Ceil(heads), BI: poly.Log2Ceil(n), BJ: poly.Log2Ceil(total), BC: poly.Log2Ceil(hd),
			S: poly.Log2Ceil(heads / kvHeads), heads: heads, hd: hd, n: n, total: total, Start: a.Start, Cached: turn, Layer: i}
		if a.Begins != nil {
			if err := model.CheckBegins(a.Begins, n); err != nil || 1<<base.BI != n {
				return nil, fmt.Errorf("committed: attention of block %d: a stacked pass of %d rows: %v", i, n, err)
			}
			base.Begins, base.ends = a.Begins, requestEnds(a.Begins)
		}
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

// Vars is the number of variables of the contraction's sum-check:
// (h, i, c) for the scores, (i, h, j) for the context.
func (k *Contraction) Vars() int {
	if k.Scores {
		return k.BH + k.BI + k.BC
	}
	return k.BI + k.BH + k.BJ
}

// requestEnds returns, for each row of a stacked pass, the last row of
// its request.
func requestEnds(begins []int) []int {
	ends := make([]int, len(begins))
	for j := len(begins) - 1; j >= 0; j-- {
		ends[j] = j
		if j+1 < len(begins) && begins[j+1] == begins[j] {
			ends[j] = ends[j+1]
		}
	}
	return ends
}

// begin is query row i's first key row: 0, or Begins[i] in a stacked
// pass.
func (k *Contraction) begin(i int) int {
	if k.Begins == nil {
		return 0
	}
	return k.Begins[i]
}

// masked reports whether key row j is masked for query row i.
func (k *Contraction) masked(i, j int) bool { return j > k.Start+i || j < k.begin(i) }

// maskSum is Σ_{a,b} x[a]·y[b] over the unmasked pairs of query row a and
// key row b: with y's prefix sums, O(2^BI + 2^BJ).
func (k *Contraction) maskSum(x, y []fr.Element) fr.Element {
	prefix := prefixSums(y)
	var sum, t, row fr.Element
	for a := range x {
		if last := min(k.Start+a, len(y)-1); last >= 0 {
			row = prefix[last]
			if b := k.begin(a); b > 0 {
				row.Sub(&row, &prefix[b-1])
			}
			t.Mul(&x[a], &row)
			sum.Add(&sum, &t)
		}
	}
	return sum
}

// prefixSums returns Σ_{b' ≤ b} y[b'] for each b.
func prefixSums(y []fr.Element) []fr.Element {
	prefix := make([]fr.Element, len(y))
	var run fr.Element
	for b := range y {
		run.Add(&run, &y[b])
		prefix[b] = run
	}
	return prefix
}

// factorBlocks are the factors' tables, sliced from the stacked MLE (B
// is the cache's table when Cached).
func (k *Contraction) factorBlocks(l *Layout, stacked []fr.Element) (A, B []fr.Element) {
	blockA, blockB := &l.Blocks[k.A], &l.Blocks[k.B]
	if k.Cached {
		return stacked[blockA.Offset : blockA.Offset+1<<blockA.NbVars], k.cache
	}
	return stacked[blockA.Offset : blockA.Offset+1<<blockA.NbVars], stacked[blockB.Offset : blockB.Offset+1<<blockB.NbVars]
}

// tables returns the sum-check's tables over its cube: the public weight
// E and the two factors as functions of the cube's coordinates. For the
// scores E = eq(r_h, h)·eq(r_i, i), A = Q and B = K̃; for the context
// E = eq(r_i, i)·eq(r_h, h)·mask(i, j), A = P and B = V(j, g, r_c).
func (k *Contraction) tables(l *Layout, stacked, r []fr.Element) (e, a, b []fr.Element) {
	size := 1 << k.Vars()
	e, a, b = hugepage.Make[fr.Element](size), hugepage.Make[fr.Element](size), hugepage.Make[fr.Element](size)
	A, B := k.factorBlocks(l, stacked)
	H, I, J, C := 1<<k.BH, 1<<k.BI, 1<<k.BJ, 1<<k.BC
	G := H >> k.S
	if k.Scores {
		rh, ri, rj := r[:k.BH], r[k.BH:k.BH+k.BI], r[k.BH+k.BI:]
		eqH, eqI, eqJ := poly.EqTable[fr.Element](rh), poly.EqTable[fr.Element](ri), poly.EqTable[fr.Element](rj)
		// prefix[(j·G + g)·C + c] = Σ_{j' ≤ j} eq(r_j, j')·K(j', g, c).
		prefix := make([]fr.Element, J*G*C)
		parallel.Execute(G*C, max(1, (1<<12)/J), func(start, end int) {
			var run, t fr.Element
			for gc := start; gc < end; gc++ {
				run.SetZero()
				for j := range J {
					t.Mul(&eqJ[j], &B[j*G*C+gc])
					run.Add(&run, &t)
					prefix[j*G*C+gc] = run
				}
			}
		})
		parallel.Execute(H*I, max(1, (1<<12)/C), func(start, end int) {
			var w fr.Element
			for hi := start; hi < end; hi++ {
				h, i := hi/I, hi%I
				g := h >> k.S
				w.Mul(&eqH[h], &eqI[i])
				last, first := min(k.Start+i, J-1), k.begin(i)
				for c := range C {
					x := hi*C + c
					e[x] = w
					a[x] = A[i*H*C+h*C+c] // queries [n, heads·hd]
					if last >= 0 {
						b[x] = prefix[last*G*C+g*C+c] // keys [T, kvHeads·hd]
						if first > 0 {
							b[x].Sub(&b[x], &prefix[(first-1)*G*C+g*C+c])
						}
					}
				}
			}
		})
		return e, a, b
	}
	ri, rh, rc := r[:k.BI], r[k.BI:k.BI+k.BH], r[k.BI+k.BH:]
	eqI, eqH, eqC := poly.EqTable[fr.Element](ri), poly.EqTable[fr.Element](rh), poly.EqTable[fr.Element](rc)
	// bound[j·G + g] = V(j, g, r_c).
	bound := make([]fr.Element, J*G)
	parallel.Execute(J*G, max(1, (1<<12)/C), func(start, end int) {
		var t fr.Element
		for jg := start; jg < end; jg++ {
			for c := range C {
				t.Mul(&eqC[c], &B[jg*C+c]) // values [T, kvHeads·hd]
				bound[jg].Add(&bound[jg], &t)
			}
		}
	})
	parallel.Execute(I*H, max(1, (1<<12)/J), func(start, end int) {
		var w fr.Element
		for ih := start; ih < end; ih++ {
			i, h := ih/H, ih%H
			g := h >> k.S
			w.Mul(&eqI[i], &eqH[h])
			for j := range J {
				x := ih*J + j
				if !k.masked(i, j) {
					e[x] = w
				}
				a[x] = A[(h*I+i)*J+j] // probabilities [heads, n, T]
				b[x] = bound[j*G+g]
			}
		}
	})
	return e, a, b
}

// SplitEnd returns the coordinates of the end point of k's sum-check by
// group: heads, query rows and the head dimension for the scores (j
// nil), heads, query rows and key rows for the context (c nil). It is
// generic so that the segment circuit splits its variables the same way.
func SplitEnd[T any](k *Contraction, end []T) (h, i, j, c []T) {
	if k.Scores {
		return end[:k.BH], end[k.BH : k.BH+k.BI], nil, end[k.BH+k.BI:]
	}
	return end[k.BI : k.BI+k.BH], end[:k.BI], end[k.BI+k.BH:], nil
}

// finalWeight is the public weight E's MLE at the sum-check's end point:
// eq(r_h, z_h)·eq(r_i, z_i) for the scores; for the context
// eq(r_h, e_h)·Σ_{a,b} eq(e_i, a)·eq(r_i, a)·eq(e_j, b)·mask(a, b), the mask
// and eq sharing the query rows.
func (k *Contraction) finalWeight(r, end []fr.Element) fr.Element {
	h, i, j, _ := SplitEnd(k, end)
	if k.Scores {
		v := poly.Eq[fr.Element](r[:k.BH], h)
		w := poly.Eq[fr.Element](r[k.BH:k.BH+k.BI], i)
		return *v.Mul(&v, &w)
	}
	ei, wi := poly.EqTable[fr.Element](i), poly.EqTable[fr.Element](r[:k.BI])
	for a := range ei {
		ei[a].Mul(&ei[a], &wi[a])
	}
	sum := k.maskSum(ei, poly.EqTable[fr.Element](j))
	v := poly.Eq[fr.Element](r[k.BI:k.BI+k.BH], h)
	return *v.Mul(&v, &sum)
}

// keyWeight is w's MLE at the key sum-check's end point e_j:
// Σ_{a,b} eq(z_i, a)·eq(e_j, b)·eq(r_j, b)·mask(a, b).
func (k *Contraction) keyWeight(r, end, endJ []fr.Element) fr.Element {
	_, i, _, _ := SplitEnd(k, end)
	ej, wj := poly.EqTable[fr.Element](endJ), poly.EqTable[fr.Element](r[k.BH+k.BI:])
	for b := range ej {
		ej[b].Mul(&ej[b], &wj[b])
	}
	return k.maskSum(poly.EqTable[fr.Element](i), ej)
}

// keyTables are the key sum-check's tables over j: w and K(j, z_g, z_c).
func (k *Contraction) keyTables(l *Layout, stacked, r, end []fr.Element) (w, kz []fr.Element) {
	h, i, _, c := SplitEnd(k, end)
	_, B := k.factorBlocks(l, stacked)
	J := 1 << k.BJ
	eqI, eqJ := poly.EqTable[fr.Element](i), poly.EqTable[fr.Element](r[k.BH+k.BI:])
	gc := poly.EqTable[fr.Element](append(append([]fr.Element(nil), h[:k.BH-k.S]...), c...))
	// w(j) = eq(r_j, j)·Σ_{i ≥ j − Start} eq(z_i, i): suffix sums; in a
	// stacked pass Σ_{j ≤ i ≤ ends[j]}, the rows of j's request from j.
	w = make([]fr.Element, J)
	suffix := make([]fr.Element, len(eqI)+1)
	for a := len(eqI) - 1; a >= 0; a-- {
		suffix[a].Add(&suffix[a+1], &eqI[a])
	}
	for j := range J {
		if from := max(j-k.Start, 0); from < len(eqI) {
			w[j].Mul(&eqJ[j], &suffix[from])
			if k.ends != nil {
				var rest fr.Element
				rest.Mul(&eqJ[j], &suffix[k.ends[j]+1])
				w[j].Sub(&w[j], &rest)
			}
		}
	}
	kz = make([]fr.Element, J)
	parallel.Execute(J, max(1, (1<<12)/len(gc)), func(start, end int) {
		var t fr.Element
		for j := start; j < end; j++ {
			row := B[j*len(gc) : (j+1)*len(gc)]
			for x := range gc {
				t.Mul(&row[x], &gc[x])
				kz[j].Add(&kz[j], &t)
			}
		}
	})
	return w, kz
}

// factorPoints are the points of the factors' blocks at the end point:
// for the scores the queries' (the keys' comes from the key sum-check,
// [Contraction.keyPoint]), for the context the probabilities' and the
// values', V bound at r_c.
func (k *Contraction) factorPoints(r, end []fr.Element) (pa, pb []fr.Element) {
	h, i, j, c := SplitEnd(k, end)
	if k.Scores {
		return slices.Concat(i, h, c), nil
	}
	return slices.Concat(h, i, j), slices.Concat(j, h[:k.BH-k.S], r[k.BI+k.BH:])
}

// keyPoint is the keys' point at the key sum-check's end point e_j:
// (e_j, z_g, z_c).
func (k *Contraction) keyPoint(end, endJ []fr.Element) []fr.Element {
	h, _, _, c := SplitEnd(k, end)
	return slices.Concat(endJ, h[:k.BH-k.S], c)
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
			name: k.Name, sum: acc[k.Q], vars: k.Vars(), terms: contractionTerm(), a: 1, b: 2,
			tables: func() [][]fr.Element {
				e, a, b := k.tables(l, stacked, r)
				return [][]fr.Element{e, a, b}
			},
			final: func(end []fr.Element, a, b fr.Element) fr.Element {
				v := k.finalWeight(r, end)
				v.Mul(&v, &a)
				return *v.Mul(&v, &b)
			},
		}
	}
	return steps
}

// proveKeys proves, under "committed/keys", the value K̃(z) of each
// scores contraction (in order) by a sum-check over the key rows, and
// absorbs K's value at its end. It returns the proofs and end points.
func proveKeys(t *pcs.Transcript, l *Layout, ks []Contraction, stacked []fr.Element, points [][]fr.Element, proofs []FactorProof, ends [][]fr.Element) ([]KeyProof, [][]fr.Element, error) {
	var out []KeyProof
	var outEnds [][]fr.Element
	for n := range ks {
		k := &ks[n]
		if !k.Scores {
			continue
		}
		if len(out) == 0 {
			t.Label("committed/keys")
		}
		w, kz := k.keyTables(l, stacked, points[k.Q], ends[n])
		terms := []sumcheck.Term[fr.Element]{{Coefficient: field.One[fr.Element](), Factors: []int{0, 1}}}
		sc, opening, err := sumcheck.Prove(t, [][]fr.Element{w, kz}, terms, proofs[n].B)
		if err != nil {
			return nil, nil, fmt.Errorf("committed: the keys of %s: %w", k.Name, err)
		}
		p := KeyProof{SumCheck: sc, K: opening.Evaluations[1]}
		t.Absorb(p.K)
		out = append(out, p)
		outEnds = append(outEnds, opening.Point)
	}
	return out, outEnds, nil
}

// verifyKeys replays the key sum-checks of proveKeys, checks each final
// value with the public w and returns their end points.
func verifyKeys(t *pcs.Transcript, ks []Contraction, points [][]fr.Element, proofs []FactorProof, ends [][]fr.Element, keys []KeyProof) ([][]fr.Element, error) {
	var out [][]fr.Element
	for n := range ks {
		k := &ks[n]
		if !k.Scores {
			continue
		}
		if len(out) >= len(keys) {
			return nil, fmt.Errorf("committed/keys: %d proofs for more scores contractions", len(keys))
		}
		if len(out) == 0 {
			t.Label("committed/keys")
		}
		p := &keys[len(out)]
		end, expected, err := sumcheck.Verify(t, proofs[n].B, 2, k.BJ, p.SumCheck)
		if err != nil {
			return nil, fmt.Errorf("the keys of %s: %w", k.Name, err)
		}
		v := k.keyWeight(points[k.Q], ends[n], end)
		if v.Mul(&v, &p.K); !v.Equal(&expected) {
			return nil, fmt.Errorf("the keys of %s: the final value does not match", k.Name)
		}
		t.Absorb(p.K)
		out = append(out, end)
	}
	if len(out) != len(keys) {
		return nil, fmt.Errorf("committed/keys: %d proofs for %d scores contractions", len(keys), len(out))
	}
	return out, nil
}

// contractionClaims are the claims of the factors' values on their
// blocks: the queries' and the probabilities' at the contractions' end
// points, the values' there with V bound at r_c, and the keys' at the
// key sum-checks' end points (in a turn the cache step proves these two:
// [cacheReads]).
func contractionClaims(l *Layout, ks []Contraction, points [][]fr.Element, ends [][]fr.Element, proofs []FactorProof, keyEnds [][]fr.Element, keys []KeyProof) []pcs.Claim {
	var out []pcs.Claim
	m := 0
	for n := range ks {
		k := &ks[n]
		pa, pb := k.factorPoints(points[k.Q], ends[n])
		out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(k.A, pa), Value: proofs[n].A})
		if k.Cached {
			// The cache step proves the keys' and values' claims.
			if k.Scores {
				m++
			}
			continue
		}
		if k.Scores {
			out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(k.B, k.keyPoint(ends[n], keyEnds[m])), Value: keys[m].K})
			m++
			continue
		}
		out = append(out, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(k.B, pb), Value: proofs[n].B})
	}
	return out
}

// cacheReads returns, per block of a turn's segment (in order), the
// claims the attention leaves on the cache it reads, T × ŵ: the keys' at
// the key sum-check's end point and the values' at the context's end
// point with V bound at r_c.
func cacheReads(ks []Contraction, points, ends [][]fr.Element, proofs []FactorProof, keyEnds [][]fr.Element, keys []KeyProof) [][2]poly.Claim[fr.Element] {
	var out [][2]poly.Claim[fr.Element]
	m := 0
	for n := range ks {
		k := &ks[n]
		if k.Scores {
			if k.Cached {
				out = append(out, [2]poly.Claim[fr.Element]{{Point: k.keyPoint(ends[n], keyEnds[m]), Value: keys[m].K}})
			}
			m++
			continue
		}
		if k.Cached {
			_, pb := k.factorPoints(points[k.Q], ends[n])
			out[len(out)-1][1] = poly.Claim[fr.Element]{Point: pb, Value: proofs[n].B}
		}
	}
	return out
}
