package pcs

import (
	"slices"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// combinations returns every commitment's combination coefficient at the
// end point r* of the grouping sum-check (n = len(r*) variables):
// Aⱼ(r*) = ∏_{i<oⱼ} (1 − r*ᵢ) · Σ_{k on j} αᵏ β(pₖ, r*[oⱼ:]), oⱼ = n − nⱼ.
// The prover and the verifier share it.
func combinations(nbCommitments int, claims []Claim, powers []fr.Element, nbVars []int, point []fr.Element) []fr.Element {
	n := len(point)
	combination := make([]fr.Element, nbCommitments)
	for k, c := range claims {
		eq := poly.Eq[fr.Element](c.Point, point[n-nbVars[c.Commitment]:])
		eq.Mul(&eq, &powers[k])
		combination[c.Commitment].Add(&combination[c.Commitment], &eq)
	}
	var one, prefix fr.Element
	one.SetOne()
	for j := range combination {
		prefix.SetOne()
		for i := range n - nbVars[j] {
			var f fr.Element
			f.Sub(&one, &point[i])
			prefix.Mul(&prefix, &f)
		}
		combination[j].Mul(&combination[j], &prefix)
	}
	return combination
}

// groupPoints turns the terms per shared point on; a test turns it off
// to compare the proofs.
var groupPoints = true

// groupTerms returns the terms of the grouping sum-check, whose summand
// Σ_k αᵏ·β(pₖ, x)·f_{jₖ}(x) they split by the claims' points, and every
// table's zero granules. A point without a boolean prefix claimed
// several times on MLEs of one size (the decomposition zero-check's end
// point, on the stacked MLE and every limb row) is one term
// β(p, ·)·Σ αᵏ·f_{jₖ}: one eq table where a term per MLE built one each.
// Every MLE's other claims are one term Aⱼ·fⱼ. The summand is the same,
// and so are the round polynomials and the proof.
func groupTerms(cols []column, zeros [][]bool, claims []Claim, nbVars []int, n int, powers []fr.Element) (terms []groupTerm) {
	type group struct {
		vars   int
		claims []int
	}
	var groups []*group
	byPoint := map[string]*group{}
	for k, c := range claims {
		key := pointKey(c.Point)
		g := byPoint[key]
		if g == nil {
			g = &group{vars: nbVars[c.Commitment]}
			byPoint[key] = g
			groups = append(groups, g)
		}
		g.claims = append(g.claims, k)
	}
	grouped := make([]bool, len(claims))
	for _, g := range groups {
		first := claims[g.claims[0]].Point
		if len(g.claims) < 2 || !groupPoints || first[0].IsZero() || first[0].IsOne() {
			// A point with a boolean prefix claims one block: its eq
			// table and its term cover the block alone.
			continue
		}
		eq := hugepage.Make[fr.Element](1 << g.vars)
		var one fr.Element
		one.SetOne()
		addEq(eq, first, &one)
		f := hugepage.Make[fr.Element](1 << g.vars)
		for _, k := range g.claims {
			grouped[k] = true
			addScaledZero(f, &cols[claims[k].Commitment], 0, zeros[claims[k].Commitment], &powers[k])
		}
		tm := newGroupTerm(eq, stored(f), zeroGranules(f), n-g.vars)
		tm.owned = true
		terms = append(terms, tm)
	}
	for j, col := range cols {
		var ks []int
		for k, c := range claims {
			if c.Commitment == j && !grouped[k] {
				ks = append(ks, k)
			}
		}
		if len(ks) == 0 {
			continue
		}
		tm, ok := sparseTerm(col, zeros[j], claims, ks, powers, n-nbVars[j])
		if !ok {
			a := hugepage.Make[fr.Element](col.n)
			for _, k := range ks {
				addEq(a, claims[k].Point, &powers[k])
			}
			tm = newGroupTerm(a, col, zeros[j], n-nbVars[j])
		}
		terms = append(terms, tm)
	}
	return terms
}

// groupColumns returns the group's MLEs as columns — stored, or generated
// by generators — and their zero granules (the generators' flags).
func groupColumns(tables [][]fr.Element, nbVars []int, generators map[int]sumcheck.Generator[fr.Element]) ([]column, [][]bool) {
	cols := make([]column, len(tables))
	zeros := make([][]bool, len(tables))
	for j, table := range tables {
		g, ok := generators[j]
		if !ok {
			cols[j], zeros[j] = stored(table), zeroGranules(table)
			continue
		}
		cols[j] = column{fill: g.Fill, n: 1 << nbVars[j]}
		if trackZeros && slices.Contains(g.Zero, true) {
			zeros[j] = g.Zero
		}
	}
	return cols, zeros
}

// sparseTerms turns the terms whose Aⱼ is kept as its claims' blocks on;
// a test turns it off to compare the proofs.
var sparseTerms = true

// sparseTerm returns the term Aⱼ·fⱼ of the claims ks on table f with Aⱼ
// kept as its claims' eq tables over their blocks (the sub-cubes their
// boolean leading coordinates select, addEq) until its first round, whose
// sums it takes block by block and whose fold builds Aⱼ at half size: Aⱼ
// never exists at full size. It applies (ok) when every block lies in one
// half of the table and the blocks add up to half of it at most: the
// limb rows' claims of a lookup, each on one block.
func sparseTerm(f column, zeroF []bool, claims []Claim, ks []int, powers []fr.Element, offset int) (groupTerm, bool) {
	if !sparseTerms || f.n < 2 {
		return groupTerm{}, false
	}
	h := f.n / 2
	total := 0
	for _, k := range ks {
		_, bits := subCube(claims[k].Point)
		if bits == 0 {
			return groupTerm{}, false
		}
		total += 1 << (len(claims[k].Point) - bits)
	}
	if total > h {
		return groupTerm{}, false
	}
	tm := groupTerm{f: f, offset: offset, zeroF: zeroF}
	tm.pad.SetOne()
	for _, k := range ks {
		start, bits := subCube(claims[k].Point)
		eq := poly.EqTableScaled[fr.Element](claims[k].Point[bits:], &powers[k])
		tm.blocks = append(tm.blocks, eqBlock{start: start, eq: eq})
		ip := innerProductAt(eq, &f, start)
		tm.ip.Add(&tm.ip, &ip)
	}
	return tm, true
}

// eqBlock is a share of a sparse term's Aⱼ: eq over entries
// [start, start+len(eq)) of the term's cube, within one half of it.
type eqBlock struct {
	start int
	eq    []fr.Element
}

// blockRoundSums returns a sparse term's round values at 0 and 2 (as
// roundSums for the Aⱼ its blocks add up to): over the lower half h, a
// block there adds eq·f to the value at 0 and −eq·(2f_hi − f_lo) to the
// value at 2; a block in the upper half adds 2·eq·(2f − f_lo) to the
// value at 2 alone.
func blockRoundSums(blocks []eqBlock, f *column) (fr.Element, fr.Element) {
	h := f.n / 2
	var s0, s2 fr.Element
	for _, b := range blocks {
		if b.start < h {
			lo := innerProductAt(b.eq, f, b.start)
			hi := innerProductAt(b.eq, f, h+b.start)
			s0.Add(&s0, &lo)
			hi.Double(&hi)
			lo.Sub(&lo, &hi) // −eq·(2f_hi − f_lo)
			s2.Add(&s2, &lo)
			continue
		}
		hi := innerProductAt(b.eq, f, b.start)
		lo := innerProductAt(b.eq, f, b.start-h)
		hi.Double(&hi).Sub(&hi, &lo).Double(&hi) // 2·eq·(2f − f_lo)
		s2.Add(&s2, &hi)
	}
	return s0, s2
}

// foldBlocks returns Aⱼ folded by r (h entries), built from its blocks:
// (1 − r)·eq at a block's place in the lower half, r·eq in the upper.
func foldBlocks(blocks []eqBlock, h int, r *fr.Element) []fr.Element {
	a := hugepage.Make[fr.Element](h)
	var c, one fr.Element
	one.SetOne()
	c.Sub(&one, r)
	for _, b := range blocks {
		if b.start < h {
			addScaled(a[b.start:b.start+len(b.eq)], b.eq, &c)
		} else {
			addScaled(a[b.start-h:b.start-h+len(b.eq)], b.eq, r)
		}
	}
	return a
}

// newGroupTerm returns the term a·f over n − offset variables (f's zero
// granules given), with a's zero granules and the inner product.
func newGroupTerm(a []fr.Element, f column, zeroF []bool, offset int) groupTerm {
	tm := groupTerm{a: a, f: f, offset: offset, zeroA: zeroGranules(a), zeroF: zeroF}
	tm.ip = innerProductZero(a, &f, tm.zeroA, zeroF)
	tm.pad.SetOne()
	return tm
}

// pointKey identifies a point by its coordinates' bytes.
func pointKey(point []fr.Element) string {
	b := make([]byte, 0, len(point)*fr.Bytes)
	for i := range point {
		x := point[i].Bytes()
		b = append(b, x[:]...)
	}
	return string(b)
}

// addScaledZero adds a·src[off+i] to dst[i], skipping src's zero
// granules (zero, when not nil: those of dst's span of src).
func addScaledZero(dst []fr.Element, src *column, off int, zero []bool, a *fr.Element) {
	if zero == nil && src.fill == nil {
		addScaled(dst, src.t[off:off+len(dst)], a)
		return
	}
	u := spanSize(len(dst))
	parallel.Execute(len(dst)/u, vecChunk/u, func(start, end int) {
		var buf, scratch []fr.Element
		for q := start; q < end; q++ {
			if zero != nil && zero[q] {
				continue
			}
			addScaledSpan(dst[q*u:(q+1)*u], src.span(&buf, off+q*u, off+(q+1)*u), a, &scratch)
		}
	})
}

// partScales returns the coefficients cⱼ,ₚ of commitment j's parts
// (nⱼ = vars variables) in an opening of k of the group's n variables at
// the end of the sum-check at point, a being the commitment's combination
// coefficient Aⱼ(r*) (zero-extended): a·∏_{i<min(oⱼ, n−k)} (1 − rᵢ) times,
// with nⱼ > k, eq(r[oⱼ : n−k], p) for part p ([OpenGroupParts]).
func partScales(point []fr.Element, n, vars, k int, a *fr.Element) []fr.Element {
	o := n - vars
	scale := *a
	var one, f fr.Element
	one.SetOne()
	for i := range min(o, n-k) {
		f.Sub(&one, &point[i])
		scale.Mul(&scale, &f)
	}
	if vars <= k {
		return []fr.Element{scale}
	}
	return poly.EqTableScaled[fr.Element](point[o:n-k], &scale)
}

// groupTerm is commitment j's share Aⱼ·f̃ⱼ of the grouping sum-check:
// Aⱼ and fⱼ over their own nⱼ = n − offset variables, read over the n
// variables of the group with offset leading zero coordinates.
type groupTerm struct {
	a     []fr.Element
	f     column // generated, or the caller's table, until its first fold
	owned bool   // f is the prover's copy, folded in place
	// zeroA[g], zeroF[g]: granule g of a, of f is all zero (nil: none
	// tracked).
	zeroA, zeroF []bool
	offset       int        // n − nⱼ
	ip           fr.Element // Σ Aⱼ·fⱼ over the term's own cube
	pad          fr.Element // ∏ (1 − rᵢ) over the rounds bound so far, i < offset
	// blocks, when not nil, are Aⱼ until the term's first round (a is
	// nil until then): sparseTerm.
	blocks []eqBlock
}

// proveGroupSum is sumcheck.Prove for the degree-2 summand
// Σⱼ Aⱼ(x)·f̃ⱼ(x) of the group with the claimed sum: the same transcript
// (the sum, then per round p(0), p(2) and a challenge), rounds and final
// point. Round i binds Xᵢ (the most significant variable
// left). While i < offsetⱼ, the term lies in the half Xᵢ = 0 and its
// share of the round polynomial is (1 − X)²·padⱼ²·ipⱼ, which binding
// Xᵢ to rᵢ scales by (1 − rᵢ)² (padⱼ by 1 − rᵢ); from round offsetⱼ on,
// its tables fold with the round's challenge. It returns the proof, the
// point and, per term, (Ãⱼ(r*), f̃ⱼ(r*)).
//
// It is not sumcheck.ProveBatch with offsets: there an instance over
// fewer variables is constant in the leading ones (its sum counted 2ᵒ
// times), where a term here is zero outside X₁ = … = X_o = 0 (a table
// padded with leading zero coordinates, the same univariate polynomial
// and so the same commitment). That zero extension has no other user.
func proveGroupSum(t *Transcript, terms []groupTerm, n int, sum fr.Element) (sumcheck.Proof[fr.Element], []fr.Element, [][2]fr.Element) {
	t.Absorb(sum)
	proof := sumcheck.Proof[fr.Element]{Rounds: make([][]fr.Element, n)}
	point := make([]fr.Element, n)
	var one fr.Element
	one.SetOne()
	for i := range n {
		var p0, p2, s0, s2, sq fr.Element
		for j := range terms {
			tm := &terms[j]
			sq.Square(&tm.pad)
			if i < tm.offset {
				s0.Mul(&sq, &tm.ip)
				p0.Add(&p0, &s0)
				p2.Add(&p2, &s0) // (1 − 2)² = 1
				continue
			}
			if tm.blocks != nil {
				s0, s2 = blockRoundSums(tm.blocks, &tm.f)
			} else {
				s0, s2 = roundSums(tm.a, &tm.f, tm.zeroA, tm.zeroF)
			}
			s0.Mul(&s0, &sq)
			s2.Mul(&s2, &sq)
			p0.Add(&p0, &s0)
			p2.Add(&p2, &s2)
		}
		proof.Rounds[i] = []fr.Element{p0, p2}
		t.Absorb(p0, p2)
		r := t.Challenge()
		point[i] = r
		var c fr.Element
		c.Sub(&one, &r)
		for j := range terms {
			tm := &terms[j]
			if i < tm.offset {
				tm.pad.Mul(&tm.pad, &c)
				continue
			}
			if tm.blocks != nil {
				tm.a = foldBlocks(tm.blocks, tm.f.n/2, &r)
				tm.zeroA = zeroGranules(tm.a)
				tm.blocks = nil
			} else {
				tm.a, tm.zeroA = foldZero(tm.a, tm.zeroA, true, &r)
			}
			tm.f, tm.zeroF = foldColumn(&tm.f, tm.zeroF, tm.owned, &r)
			tm.owned = true
		}
	}
	evaluations := make([][2]fr.Element, len(terms))
	for j := range terms {
		evaluations[j][0].Mul(&terms[j].a[0], &terms[j].pad)
		evaluations[j][1].Mul(&terms[j].f.t[0], &terms[j].pad)
	}
	return proof, point, evaluations
}

// granule is the span of entries whose zeros the grouping sum-check
// tracks together (a limb row is zero over the blocks that do not use
// it, a stacked MLE over its padding): poly's.
const granule = poly.Granule

// trackZeros turns the skipping of zero granules on; the benchmark turns
// it off for its baseline.
var trackZeros = true

// zeroGranules returns which granules of f are all zero
// (poly.ZeroGranules); nil when f has fewer than two granules or none is
// zero, so that a dense table takes the plain loops.
func zeroGranules(f []fr.Element) []bool {
	if !trackZeros {
		return nil
	}
	zero := poly.ZeroGranules(f)
	if !slices.Contains(zero, true) {
		return nil
	}
	return zero
}

// foldZero binds f's leading variable to r: in place when owned (f is
// the prover's copy), into a fresh table otherwise. A pair of zero
// granules folds to zero, which the destination already holds (fresh
// memory, or the first granule itself): it is skipped. It returns the
// folded table and its zero granules.
func foldZero(f []fr.Element, zero []bool, owned bool, r *fr.Element) ([]fr.Element, []bool) {
	h := len(f) / 2
	dst := f[:h]
	if !owned {
		dst = hugepage.Make[fr.Element](h)
	}
	if zero == nil {
		if owned {
			return poly.Fold[fr.Element](f, r), nil
		}
		return poly.FoldInto[fr.Element](dst, f, r), nil
	}
	g := h / granule
	parallel.Execute(g, vecChunk/granule, func(start, end int) {
		for q := start; q < end; q++ {
			if zero[q] && zero[q+g] {
				continue
			}
			lo, hi := q*granule, (q+1)*granule
			scratch := dst[lo:hi] // dst is not f's lower half
			if owned {
				scratch = f[h+lo : h+hi] // the upper half is dropped
			}
			poly.FoldSpan(dst[lo:hi], scratch, f[lo:hi], f[h+lo:h+hi], r)
		}
	})
	var next []bool
	if g >= 2 {
		next = make([]bool, g)
		for q := range next {
			next[q] = zero[q] && zero[q+g]
		}
	}
	return dst, next
}

// foldColumn is foldZero for a column: a generated one folds into a
// fresh table from its spans' pairs (a pair of zero granules skipped).
func foldColumn(f *column, zero []bool, owned bool, r *fr.Element) (column, []bool) {
	if f.fill == nil {
		t, next := foldZero(f.t, zero, owned, r)
		return stored(t), next
	}
	h := f.n / 2
	dst := hugepage.Make[fr.Element](h)
	u := spanSize(h)
	g := h / u
	parallel.Execute(g, vecChunk/u, func(start, end int) {
		var lo, hi []fr.Element
		for q := start; q < end; q++ {
			if zero != nil && zero[q] && zero[q+g] {
				continue
			}
			l, x := f.span(&lo, q*u, (q+1)*u), f.span(&hi, h+q*u, h+(q+1)*u)
			poly.FoldSpan(dst[q*u:(q+1)*u], x, l, x, r) // x, generated, is the scratch
		}
	})
	var next []bool
	if zero != nil && g >= 2 {
		next = make([]bool, g)
		for q := range next {
			next[q] = zero[q] && zero[q+g]
		}
	}
	return stored(dst), next
}

// roundSums returns Σₖ a[k]·f[k] and Σₖ (2a[k+h] − a[k])·(2f[k+h] − f[k])
// over the lower half k < h = len(a)/2: a product's round values at 0
// and 2, on every core. A pair of granules where a or f is zero (zeroA,
// zeroF, when not nil) adds nothing and is skipped.
func roundSums(a []fr.Element, f *column, zeroA, zeroF []bool) (fr.Element, fr.Element) {
	h := len(a) / 2
	var mu sync.Mutex
	var p0, p2 fr.Element
	g := h / granule
	if zeroA == nil && zeroF == nil {
		g = 0
	}
	zeroPair := func(zero []bool, q int) bool { return zero != nil && zero[q] && zero[q+g] }
	// span adds the sums over [start, end), at most vecChunk pairs at a
	// time with the vector kernels: f's pairs read into lo and hi when
	// generated, 2a_hi − a_lo and 2f_hi − f_lo into the scratch x and y.
	span := func(s0, s2 *fr.Element, start, end int, lo, hi, x, y *[]fr.Element) {
		for c := start; c < end; c += vecChunk {
			e := min(c+vecChunk, end)
			fl, fh := f.span(lo, c, e), f.span(hi, c+h, e+h)
			if cap(*x) < e-c {
				*x, *y = make([]fr.Element, e-c), make([]fr.Element, e-c)
			}
			xs, ys := (*x)[:e-c], (*y)[:e-c]
			t := field.InnerProduct(a[c:e], fl)
			s0.Add(s0, &t)
			field.Add(xs, a[c+h:e+h], a[c+h:e+h])
			field.Sub(xs, xs, a[c:e])
			field.Add(ys, fh, fh)
			field.Sub(ys, ys, fl)
			t = field.InnerProduct(xs, ys)
			s2.Add(s2, &t)
		}
	}
	if g == 0 {
		parallel.Execute(h, vecChunk, func(start, end int) {
			var s0, s2 fr.Element
			var lo, hi, x, y []fr.Element
			span(&s0, &s2, start, end, &lo, &hi, &x, &y)
			mu.Lock()
			p0.Add(&p0, &s0)
			p2.Add(&p2, &s2)
			mu.Unlock()
		})
		return p0, p2
	}
	parallel.Execute(g, vecChunk/granule, func(start, end int) {
		var s0, s2 fr.Element
		var lo, hi, x, y []fr.Element
		for q := start; q < end; q++ {
			if !zeroPair(zeroA, q) && !zeroPair(zeroF, q) {
				span(&s0, &s2, q*granule, (q+1)*granule, &lo, &hi, &x, &y)
			}
		}
		mu.Lock()
		p0.Add(&p0, &s0)
		p2.Add(&p2, &s2)
		mu.Unlock()
	})
	return p0, p2
}

// addEq adds scale·β(point, ·) to dst (2^len(point) entries or more, the
// point padded with leading zeros). The point's leading coordinates that
// are 0 or 1 select a sub-cube, the only entries where β is not zero: the
// table is built over the remaining coordinates only.
func addEq(dst []fr.Element, point []fr.Element, scale *fr.Element) {
	offset, k := subCube(point)
	eq := poly.EqTableScaled[fr.Element](point[k:], scale)
	field.Add(dst[offset:offset+len(eq)], dst[offset:offset+len(eq)], eq)
}

// subCube returns the number of point's leading coordinates that are 0 or
// 1 and the first entry of the sub-cube they select (its size is
// 2^(len(point) − bits)).
func subCube(point []fr.Element) (start, bits int) {
	for ; bits < len(point) && (point[bits].IsZero() || point[bits].IsOne()); bits++ {
		start <<= 1
		if point[bits].IsOne() {
			start |= 1
		}
	}
	return start << (len(point) - bits), bits
}
