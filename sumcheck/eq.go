package sumcheck

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

// ProveEq proves Σ_x β(point, x)·g(x) = sum, g = Σ_k c_k·∏ⱼ f_{Factors_k[j]}
// over tables (each of 2ⁿ entries, n = len(point) ≥ 1). It sends exactly
// what [Prove] sends for the tables (β(point, ·), tables[0], tables[1], …)
// and the terms with β as one more factor of each (the indices of terms
// shifted by one), and returns the same proof and opening: Evaluations[0]
// is β(point, r), Evaluations[j+1] is tables[j](r). The verifier is
// [Verify] with degree 1 + [Degree] of terms.
//
// It never builds β's table. With r₁, …, r_{i−1} bound, β factors as
// β(p_{<i}, r_{<i})·β(pᵢ, Xᵢ)·β(p_{>i}, y), so round i's polynomial is
// β(p_{<i}, r_{<i})·β(pᵢ, X)·H(X) with H(X) = Σ_y β(p_{>i}, y)·g(X, y) of
// degree d_g = [Degree] of terms: the prover sums H at 0, 2, …, d_g over
// the pairs of entries, takes H(1) from the running claim (when
// β(p_{<i}, r_{<i})·pᵢ is invertible; otherwise it sums H(1) too) and
// H(d_g + 1) by interpolation. The table of β(p_{>i}, ·) halves each round
// by adding its halves (β(p, 0) + β(p, 1) = 1). Per pair of entries that is
// d_g evaluations of g and no fold of β, where [Prove] evaluates
// β·g at d_g + 1 nodes and folds β; and at each node it sums the terms
// pair by pair before one product with β's table, where [Prove]
// multiplies each term by β. For the degree-3 layers of a LogUp GKR that
// is 14 multiplications per pair (8 at the leaves, whose numerators are
// 1) instead of 23.
//
// With [Overwrite], the tables it names are folded in place: the caller
// hands them over, and their contents are lost. The others are read, never
// written (their first fold goes to fresh tables). With [Generate], the
// tables it names are not stored at all (nil in tables): the prover
// computes the entries it reads in the first round and the first fold.
func ProveEq[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], point []E, tables [][]E, terms []Term[E], sum E, opts ...Option) (Proof[E], Opening[E], error) {
	n := len(point)
	if n < 1 {
		return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: eq sum-check over no variable")
	}
	if len(tables) == 0 {
		return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: no table")
	}
	o, gens, err := parseOptions[E](opts, len(tables), 1<<n)
	if err != nil {
		return Proof[E]{}, Opening[E]{}, err
	}
	for j, table := range tables {
		if gens[j] != nil {
			if table != nil {
				return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: table %d is both given and generated", j)
			}
			continue
		}
		if len(table) != 1<<n {
			return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: table %d has length %d, want 2^%d", j, len(table), n)
		}
	}
	if n == 1 {
		// No fold: the generated tables (two entries) are the tables.
		tables = append([][]E(nil), tables...)
		for j, g := range gens {
			if g != nil {
				tables[j] = make([]E, 2)
				g.Fill(tables[j], 0)
				gens[j] = nil
			}
		}
	}
	shifted := make([]Term[E], len(terms))
	for k, term := range terms {
		f := make([]int, 0, len(term.Factors)+1)
		f = append(f, 0)
		for _, j := range term.Factors {
			f = append(f, j+1)
		}
		shifted[k] = Term[E]{Coefficient: term.Coefficient, Factors: f}
	}
	instance := []Instance[E]{{Terms: shifted, Sum: sum}}
	if err := validate(len(tables)+1, n, instance); err != nil {
		return Proof[E]{}, Opening[E]{}, err
	}
	if len(terms) == 0 {
		return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: no term")
	}
	for k, term := range terms {
		if len(term.Factors) == 0 {
			return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: term %d has no factor", k)
		}
	}
	_, claim := bindClaims(t, instance)
	dg := Degree([]Instance[E]{{Terms: terms}})
	d := dg + 1

	p := newEqProver[E, P](point, tables, gens, terms, dg)
	p.options = o
	proof := Proof[E]{Rounds: make([][]E, n)}
	r := make([]E, n)
	nodes := lagrangeWeights[E, P](d)
	hNodes := lagrangeWeights[E, P](dg)
	values := make([]E, d+1)
	scale := field.One[E, P]() // β(p_{<i}, r_{<i})
	for i := range n {
		var h []E // H(0), H(1), …, H(d_g) (H(1) filled below)
		if i == 0 {
			h = p.evaluate(false)
		} else {
			h = p.foldEvaluate(&r[i-1])
		}
		var c0, c1, unit E // β(pᵢ, 0), β(pᵢ, 1) scaled
		unit = field.One[E, P]()
		P(&c0).Sub(&unit, &point[i])
		P(&c0).Mul(&c0, &scale)
		P(&c1).Mul(&point[i], &scale)
		// claim = c0·H(0) + c1·H(1).
		if !P(&c1).IsZero() {
			var inv, v E
			P(&inv).Inverse(&c1)
			P(&v).Mul(&c0, &h[0])
			P(&v).Sub(&claim, &v)
			P(&h[1]).Mul(&v, &inv)
		} else {
			h[1] = p.evaluate(true)[1]
		}
		// H(d) from H(0), …, H(d_g).
		at := field.FromInt64[E, P](int64(d))
		hd := interpolate[E, P](h, &at, hNodes)
		// sent: s(k) = β(p_{<i}, r_{<i})·β(pᵢ, k)·H(k), k = 0, 2, …, d, with
		// β(pᵢ, k) = (1 − k)·(1 − pᵢ) + k·pᵢ, i.e. c(k) = c0 + k·(c1 − c0).
		var step E
		P(&step).Sub(&c1, &c0)
		sent := make([]E, d)
		ck := c0
		P(&sent[0]).Mul(&ck, &h[0])
		P(&ck).Add(&ck, &step) // c(1)
		for k := 2; k <= d; k++ {
			P(&ck).Add(&ck, &step)
			hk := &hd
			if k <= dg {
				hk = &h[k]
			}
			P(&sent[k-1]).Mul(&ck, hk)
		}
		proof.Rounds[i] = sent
		t.Absorb(sent...)
		r[i] = t.Challenge()
		values[0] = sent[0]
		P(&values[1]).Sub(&claim, &sent[0])
		copy(values[2:], sent[1:])
		claim = interpolate[E, P](values, &r[i], nodes)
		eqi := poly.Eq[E, P](point[i:i+1], r[i:i+1])
		P(&scale).Mul(&scale, &eqi)
	}
	opening := Opening[E]{Point: r, Evaluations: make([]E, len(tables)+1)}
	opening.Evaluations[0] = scale
	for j, table := range p.tables {
		var v E
		P(&v).Sub(&table[1], &table[0])
		P(&v).Mul(&v, &r[n-1])
		P(&opening.Evaluations[j+1]).Add(&table[0], &v)
	}
	return proof, opening, nil
}

// eqProver holds the tables of [ProveEq] and the table of β(p_{>i}, ·).
// Its workers' scratch is [Prove]'s: acc[node] holds the partial sums of
// H at each node, every term's coefficient applied.
type eqProver[E field.Scalar, P field.Ptr[E]] struct {
	terms  []Term[E]
	unit   []bool // unit[k]: term k's coefficient is 1
	dg     int
	tables [][]E
	// gen[j] computes table j while tables[j] is nil (before the first
	// fold); size is the current length of every table.
	gen   []*Generator[E]
	size  int
	owned bool
	options
	sources [][]E
	eq      []E // β(p_{>i}, ·), 2^{n−i−1} entries
	// zero[j][g] is set when granule g (poly.Granule entries) of table j
	// is all zero; nil once the table is shorter than two granules.
	zero   [][]bool
	spaces []*workspace[E]
	pool   chan *workspace[E]
}

func newEqProver[E field.Scalar, P field.Ptr[E]](point []E, tables [][]E, gens []*Generator[E], terms []Term[E], dg int) *eqProver[E, P] {
	p := &eqProver[E, P]{
		terms:   terms,
		dg:      dg,
		tables:  append([][]E(nil), tables...),
		gen:     gens,
		size:    1 << len(point),
		sources: make([][]E, len(tables)),
		eq:      poly.EqTable[E, P](point[1:]),
	}
	p.unit = make([]bool, len(terms))
	one := field.One[E, P]()
	for k := range terms {
		p.unit[k] = terms[k].Coefficient == one
	}
	p.zero = make([][]bool, len(tables))
	for j, table := range tables {
		if gens[j] != nil {
			p.zero[j] = gens[j].Zero
		} else {
			p.zero[j] = poly.ZeroGranules(table)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	block := min(blockSize, p.size/2)
	p.pool = make(chan *workspace[E], workers)
	for range workers {
		ws := newWorkspace(tables, dg-1, len(terms)*(dg+1), block)
		ws.lo, ws.hi = make([][]E, len(tables)), make([][]E, len(tables))
		ws.comb = make([]E, block)
		ws.gen = make([][2][]E, len(tables))
		for j, g := range gens {
			if g == nil {
				continue
			}
			// A generated table's scratch: newWorkspace saw no table.
			ws.diff[j] = make([]E, block)
			ws.evals[j] = make([][]E, max(dg-1, 0))
			for s := range ws.evals[j] {
				ws.evals[j][s] = make([]E, block)
			}
			ws.gen[j] = [2][]E{make([]E, block), make([]E, block)}
		}
		p.spaces = append(p.spaces, ws)
		p.pool <- ws
	}
	return p
}

// evaluate returns H(0), _, H(2), …, H(d_g) of the current (folded)
// tables, or H(1) alone at index 1 when one is set.
func (p *eqProver[E, P]) evaluate(one bool) []E {
	half := p.size / 2
	parallel.Execute(half, minPairsPerWorker, func(start, end int) {
		ws := <-p.pool
		for b := start; b < end; b += blockSize {
			p.evaluateBlock(ws, b, min(blockSize, end-b), half, one)
		}
		p.pool <- ws
	})
	return p.values(one)
}

// foldEvaluate binds the previous round's variable to r in every table
// and in β's table, and returns H(0), _, H(2), …, H(d_g) of the next round.
func (p *eqProver[E, P]) foldEvaluate(r *E) []E {
	size := p.size / 2
	p.size = size
	for j := range p.tables {
		p.sources[j] = p.tables[j]
		if p.sources[j] != nil && (p.owned || slices.Contains(p.overwrite, j)) {
			p.tables[j] = p.tables[j][:size]
		} else {
			p.tables[j] = hugepage.Make[E](size)
		}
	}
	p.owned = true
	gen := p.gen
	p.gen = make([]*Generator[E], len(p.tables))
	// A granule of a folded table is zero when both granules it folds
	// are.
	old := p.zero
	p.zero = make([][]bool, len(p.tables))
	for j, z := range old {
		if g := size / poly.Granule; z != nil && g >= 2 {
			p.zero[j] = make([]bool, g)
			for k := range g {
				p.zero[j][k] = z[k] && z[k+g]
			}
		}
	}
	// β(p_{>i}, ·) from β(p_{>i−1}, ·): add the halves.
	half := size / 2
	field.Add(p.eq[:half], p.eq[:half], p.eq[half:2*half])
	p.eq = p.eq[:half]
	src := p.sources
	parallel.Execute(half, minPairsPerWorker, func(start, end int) {
		ws := <-p.pool
		for b := start; b < end; b += blockSize {
			m := min(blockSize, end-b)
			for j := range p.tables {
				// A pair of zero spans folds to zero, which the destination
				// already holds: it is fresh, or (folded in place) the
				// first span itself.
				for _, at := range [2]int{b, half + b} {
					if spanZero(old[j], at, at+m) && spanZero(old[j], size+at, size+at+m) {
						continue
					}
					var lo, hi []E
					if g := gen[j]; g != nil {
						lo, hi = ws.gen[j][0][:m], ws.gen[j][1][:m]
						g.Fill(lo, at)
						g.Fill(hi, size+at)
					} else {
						lo, hi = src[j][at:at+m], src[j][size+at:size+at+m]
					}
					poly.FoldSpan(p.tables[j][at:at+m], ws.prod[:m], lo, hi, r)
				}
			}
			p.evaluateBlock(ws, b, m, half, false)
		}
		p.pool <- ws
	})
	return p.values(false)
}

// values sums the workers' partial sums: H at the nodes evaluated (node 1
// only when one is set, nodes 0, 2, …, d_g otherwise), the other entries
// zero.
func (p *eqProver[E, P]) values(one bool) []E {
	w := p.dg + 1
	out := make([]E, w)
	for _, ws := range p.spaces {
		for s := range w {
			if (s == 1) != one {
				continue
			}
			P(&out[s]).Add(&out[s], &ws.acc[s])
		}
		clear(ws.acc)
	}
	return out
}

// evaluateBlock adds, for the pairs (i, i+half), i ∈ [b, b+m), the sums
// Σ_i β(p_{>i}, i)·g(node) into ws.acc, at node 1 when one is set, else
// at nodes 0, 2, …, d_g: f(0) = lo, f(1) = hi, f(2) = hi + (hi − lo),
// f(s+1) = f(s) + (hi − lo). The terms are summed pair by pair, each
// times its coefficient (none for a coefficient of 1), before the one
// inner product with β's table: for the degree-2 summand of a LogUp GKR
// layer that is 10 multiplications per pair and round where a product
// with β per term took 12 (and 6 where it took 8 for the leaves, whose
// numerators are 1), the same sums.
//
// A table whose entries are all zero in the block (both halves) is zero
// at every node: the terms it is a factor of add nothing and are
// skipped. Committed tensors stacked into one table leave most of the
// selector and limb tables of a decomposition zero-check zero over whole
// blocks.
func (p *eqProver[E, P]) evaluateBlock(ws *workspace[E], b, m, half int, one bool) {
	dg := p.dg
	for j, table := range p.tables {
		ws.zero[j] = spanZero(p.zero[j], b, b+m) && spanZero(p.zero[j], half+b, half+b+m)
		if ws.zero[j] {
			continue
		}
		if g := p.gen[j]; g != nil {
			ws.lo[j], ws.hi[j] = ws.gen[j][0][:m], ws.gen[j][1][:m]
			g.Fill(ws.lo[j], b)
			g.Fill(ws.hi[j], half+b)
		} else {
			ws.lo[j], ws.hi[j] = table[b:b+m], table[half+b:half+b+m]
		}
	}
	if !one && dg >= 2 {
		for j := range p.tables {
			if ws.zero[j] {
				continue
			}
			lo, hi := ws.lo[j], ws.hi[j]
			diff := ws.diff[j][:m]
			field.Sub(diff, hi, lo)
			field.Add(ws.evals[j][0][:m], hi, diff)
			for s := 1; s < dg-1; s++ {
				field.Add(ws.evals[j][s][:m], ws.evals[j][s-1][:m], diff)
			}
		}
	}
	at := func(j, s int) []E {
		switch s {
		case 0:
			return ws.lo[j]
		case 1:
			return ws.hi[j]
		}
		return ws.evals[j][s-2][:m]
	}
	weights := p.eq[b : b+m]
	comb, prod := ws.comb[:m], ws.prod[:m]
	for s := range dg + 1 {
		if (s == 1) != one {
			continue
		}
		started := false
		for k, term := range p.terms {
			f := term.Factors
			if anyZero(ws.zero, f) {
				continue
			}
			// dst receives the term's values: comb for the first term,
			// prod for the others, added to comb.
			dst := prod
			if !started {
				dst = comb
			}
			switch {
			case len(f) == 1 && p.unit[k]:
				if started {
					field.Add(comb, comb, at(f[0], s))
					continue
				}
				copy(comb, at(f[0], s))
			case len(f) == 1:
				field.ScalarMul(dst, at(f[0], s), &term.Coefficient)
			default:
				field.Mul(dst, at(f[0], s), at(f[1], s))
				for _, j := range f[2:] {
					field.Mul(dst, dst, at(j, s))
				}
				if !p.unit[k] {
					field.ScalarMul(dst, dst, &term.Coefficient)
				}
			}
			if started {
				field.Add(comb, comb, prod)
			}
			started = true
		}
		if started {
			v := field.InnerProduct(comb, weights)
			P(&ws.acc[s]).Add(&ws.acc[s], &v)
		}
	}
}

// spanZero reports whether the flags z guarantee that entries [lo, hi)
// are zero.
func spanZero(z []bool, lo, hi int) bool {
	if z == nil {
		return false
	}
	for k := lo / poly.Granule; k*poly.Granule < hi; k++ {
		if !z[k] {
			return false
		}
	}
	return true
}

// anyZero reports whether one of the tables factors is zero in the block.
func anyZero(zero []bool, factors []int) bool {
	for _, j := range factors {
		if zero[j] {
			return true
		}
	}
	return false
}

// Option configures [ProveEq] and [ProveZero].
type Option func(*options)

type options struct {
	overwrite []int
	generated any // map[int]Generator[E]
}

// Generator is a table of [ProveEq] or [ProveZero] that the prover
// computes rather than reads (see [Generate]).
type Generator[E field.Scalar] struct {
	// Fill writes the table's entries [start, start+len(dst)) into dst.
	// It is called from several goroutines at once, on disjoint ranges.
	Fill func(dst []E, start int)
	// Zero flags the granules of poly.Granule entries that are all zero,
	// as poly.ZeroGranules returns them (a flag may be false for a zero
	// granule, never true for another); nil when none is known.
	Zero []bool
}

// Generate declares the tables of the given indices as generated: the
// caller passes nil in their place, and the prover calls the generator's
// Fill for the pairs of entries it reads in the first round and folds
// into the second. Such a table never exists at full size: its first
// fold, of half the size, is the first table the prover stores. For a
// table the caller would build only for the proof (public selectors,
// integers it holds in a smaller type), that is its whole size saved,
// and its building.
func Generate[E field.Scalar](tables map[int]Generator[E]) Option {
	return func(o *options) {
		all, _ := o.generated.(map[int]Generator[E])
		if all == nil {
			all = map[int]Generator[E]{}
		}
		for j, g := range tables {
			all[j] = g
		}
		o.generated = all
	}
}

// parseOptions applies opts for nbTables tables of size entries and
// returns the generators by table index (nil for a stored table).
func parseOptions[E field.Scalar](opts []Option, nbTables, size int) (options, []*Generator[E], error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	gens := make([]*Generator[E], nbTables)
	if o.generated != nil {
		all, ok := o.generated.(map[int]Generator[E])
		if !ok {
			return o, nil, fmt.Errorf("sumcheck: generated tables of another field")
		}
		for j, g := range all {
			if j < 0 || j >= nbTables {
				return o, nil, fmt.Errorf("sumcheck: generated table %d, of %d", j, nbTables)
			}
			if g.Fill == nil {
				return o, nil, fmt.Errorf("sumcheck: generated table %d has no Fill", j)
			}
			if want := size / poly.Granule; g.Zero != nil && (want < 2 || len(g.Zero) != want) {
				return o, nil, fmt.Errorf("sumcheck: generated table %d has %d zero flags for %d entries", j, len(g.Zero), size)
			}
			gens[j] = &g
		}
	}
	for _, j := range o.overwrite {
		if j < 0 || j >= nbTables {
			return o, nil, fmt.Errorf("sumcheck: table %d to overwrite, of %d", j, nbTables)
		}
		if gens[j] != nil {
			return o, nil, fmt.Errorf("sumcheck: table %d to overwrite is generated", j)
		}
	}
	return o, gens, nil
}

// Overwrite lets the prover fold the tables of the given indices in place
// (the caller's tables, whose contents are then lost) where it folds
// every table into fresh memory first: the caller's memory for them is
// reused rather than doubled by half.
func Overwrite(tables ...int) Option {
	return func(o *options) { o.overwrite = append(o.overwrite, tables...) }
}
