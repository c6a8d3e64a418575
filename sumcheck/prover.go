package sumcheck

import (
	"fmt"
	"math/bits"
	"runtime"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/transcript"
)

const (
	// blockSize is the number of (lo, hi) pairs a worker handles per
	// vector-kernel call: large enough to amortise the call and dispatch,
	// small enough that a block of every table and its extrapolations
	// stays in cache.
	blockSize = 512
	// minPairsPerWorker keeps small rounds on the calling goroutine.
	minPairsPerWorker = 1024
)

// Prove runs the sum-check protocol for one instance over tables: it
// absorbs sum, then runs one round per variable (see the package
// documentation). Tables all have length 2ⁿ and are left unchanged; the
// returned opening holds the challenge point and every table evaluated
// there.
func Prove[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], tables [][]E, terms []Term[E], sum E) (Proof[E], Opening[E], error) {
	return ProveBatch(t, tables, []Instance[E]{{Terms: terms, Sum: sum}})
}

// ProveBatch runs one sum-check for several instances over shared tables:
// it absorbs the sums H₀, H₁, …, draws λ when there is more than one
// instance, and proves Σ_x Σ_k λᵏ g̃_k(x) = Σ_k λᵏ 2^{o_k} H_k, where
// g̃_k(x₁, …, xₙ) = g_k(x_{o_k+1}, …, xₙ) and o_k is instance k's Offset.
// n is set by the largest table; the factors of instance k must have
// 2^{n−o_k} entries. Tables are left unchanged.
func ProveBatch[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], tables [][]E, instances []Instance[E]) (Proof[E], Opening[E], error) {
	nbVars, err := tableVars(tables)
	if err != nil {
		return Proof[E]{}, Opening[E]{}, err
	}
	if err := validate(len(tables), nbVars, instances); err != nil {
		return Proof[E]{}, Opening[E]{}, err
	}
	for k, inst := range instances {
		for i, term := range inst.Terms {
			for _, j := range term.Factors {
				if len(tables[j]) != 1<<(nbVars-inst.Offset) {
					return Proof[E]{}, Opening[E]{}, fmt.Errorf("sumcheck: instance %d term %d: table %d has length %d, want 2^(%d−%d)",
						k, i, j, len(tables[j]), nbVars, inst.Offset)
				}
			}
		}
	}
	weights, claim := bindClaims(t, instances)
	g := summand[E]{degree: Degree(instances)}
	for k, inst := range instances {
		for _, term := range inst.Terms {
			c := term.Coefficient
			P(&c).Mul(&c, &weights[k])
			g.terms = append(g.terms, Term[E]{Coefficient: c, Factors: term.Factors})
			g.offsets = append(g.offsets, inst.Offset)
		}
		if inst.Offset > 0 {
			var v E
			P(&v).Mul(&weights[k], &inst.Sum)
			g.pending = append(g.pending, pendingSum[E]{offset: inst.Offset, value: v})
		}
	}
	proof, opening := proveRounds(t, tables, g, nbVars, claim)
	return proof, opening, nil
}

// summand is the batched summand as the prover runs it: the weighted terms
// with the offset of each, and for every instance with an offset o > 0 its
// weighted sum λᵏ·H_k, which stands for it in rounds 1, …, o: there its
// round polynomial is the constant λᵏ·H_k·2^{o−i}.
type summand[E field.Scalar] struct {
	terms   []Term[E]
	offsets []int
	pending []pendingSum[E]
	degree  int
}

type pendingSum[E field.Scalar] struct {
	offset int
	value  E
}

// tableVars checks that every table length is a power of two and returns
// n for the largest, 2ⁿ.
func tableVars[E field.Scalar](tables [][]E) (int, error) {
	if len(tables) == 0 {
		return 0, fmt.Errorf("sumcheck: no table")
	}
	size := 0
	for j, table := range tables {
		if len(table) == 0 || len(table)&(len(table)-1) != 0 {
			return 0, fmt.Errorf("sumcheck: table %d has length %d, not a power of two", j, len(table))
		}
		size = max(size, len(table))
	}
	return bits.TrailingZeros(uint(size)), nil
}

// proveRounds runs the rounds on validated input; claim is the batched sum
// (already bound to the transcript).
func proveRounds[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], tables [][]E, g summand[E], nbVars int, claim E) (Proof[E], Opening[E]) {
	p := newProver[E, P](tables, g, nbVars)
	degree := g.degree
	proof := Proof[E]{Rounds: make([][]E, nbVars)}
	point := make([]E, nbVars)
	nodes := lagrangeWeights[E, P](degree)
	values := make([]E, degree+1) // p(0), p(1), …, p(d)
	for round := range nbVars {
		var sent []E
		if round == 0 {
			sent = p.evaluate()
		} else {
			sent = p.foldEvaluate(&point[round-1])
		}
		proof.Rounds[round] = sent
		t.Absorb(sent...)
		r := t.Challenge()
		point[round] = r
		values[0] = sent[0]
		P(&values[1]).Sub(&claim, &sent[0])
		copy(values[2:], sent[1:])
		claim = interpolate[E, P](values, &r, nodes)
	}
	opening := Opening[E]{Point: point, Evaluations: make([]E, len(p.tables))}
	for j, table := range p.tables {
		if len(table) == 1 {
			opening.Evaluations[j] = table[0]
			continue
		}
		// Tables active in the last round have two entries left: bind Xₙ.
		var v E
		P(&v).Sub(&table[1], &table[0])
		P(&v).Mul(&v, &point[nbVars-1])
		P(&opening.Evaluations[j]).Add(&table[0], &v)
	}
	return proof, opening
}

// prover holds the current tables and the per-worker scratch space. A
// table takes part in round i (i = 0, …, n−1 here) when it has 2^{n−i}
// entries, i.e. from round o on for a table of an instance with offset o;
// it is folded after every round it took part in. Its first fold writes
// into a fresh buffer, so the caller's tables are never written; later
// folds work in place.
type prover[E field.Scalar, P field.Ptr[E]] struct {
	g       summand[E]
	nbVars  int
	round   int
	tables  [][]E
	owned   []bool
	active  []int // tables of the current round
	folded  []int // tables folded into the current round
	spaces  []*workspace[E]
	pool    chan *workspace[E]
	sums    []E   // per term and slot, summed over workers
	sources [][]E // the tables before the current fold
}

// workspace is one worker's scratch: for each table, the differences
// hi − lo and the extrapolations f(2), …, f(d) of one block, a product
// buffer, and the per-term, per-slot partial sums.
type workspace[E field.Scalar] struct {
	diff  [][]E   // [table][pair]
	evals [][][]E // [table][node−2][pair]
	prod  []E
	comb  []E    // the eq prover's: the terms' sum at a node, per pair
	acc   []E    // [term·degree + slot], slot 0 ↔ node 0, slot s ↔ node s+1
	zero  []bool // [table]: the block's pairs are all zero (eq prover)
	// The eq prover's: the block's lo and hi entries per table, and a
	// generated table's buffers for them.
	lo, hi [][]E
	gen    [][2][]E
}

func newProver[E field.Scalar, P field.Ptr[E]](tables [][]E, g summand[E], nbVars int) *prover[E, P] {
	p := &prover[E, P]{
		g:       g,
		nbVars:  nbVars,
		tables:  append([][]E(nil), tables...),
		owned:   make([]bool, len(tables)),
		active:  make([]int, 0, len(tables)),
		folded:  make([]int, 0, len(tables)),
		sums:    make([]E, len(g.terms)*g.degree),
		sources: make([][]E, len(tables)),
	}
	degree := g.degree
	workers := runtime.GOMAXPROCS(0)
	block := min(blockSize, (1<<nbVars)/2)
	p.pool = make(chan *workspace[E], workers)
	for range workers {
		ws := newWorkspace(tables, degree-1, len(g.terms)*degree, block)
		p.spaces = append(p.spaces, ws)
		p.pool <- ws
	}
	return p
}

// newWorkspace returns a worker's scratch for blocks of block pairs: for
// every table of two entries or more, the differences and nodes buffers of
// extrapolated values; a product buffer; acc partial sums.
func newWorkspace[E field.Scalar](tables [][]E, nodes, acc, block int) *workspace[E] {
	ws := &workspace[E]{
		diff:  make([][]E, len(tables)),
		evals: make([][][]E, len(tables)),
		prod:  make([]E, block),
		acc:   make([]E, acc),
		zero:  make([]bool, len(tables)),
	}
	for j := range tables {
		if len(tables[j]) < 2 {
			continue
		}
		ws.diff[j] = make([]E, block)
		ws.evals[j] = make([][]E, max(nodes, 0))
		for s := range ws.evals[j] {
			ws.evals[j][s] = make([]E, block)
		}
	}
	return ws
}

// selectTables sets p.active to the tables with size entries and p.folded
// to those with 2·size.
func (p *prover[E, P]) selectTables(size int) {
	p.active, p.folded = p.active[:0], p.folded[:0]
	for j, table := range p.tables {
		switch len(table) {
		case size:
			p.active = append(p.active, j)
		case 2 * size:
			p.folded = append(p.folded, j)
		}
	}
}

// evaluate returns p(0), p(2), …, p(d) of the first round.
func (p *prover[E, P]) evaluate() []E {
	size := 1 << p.nbVars
	p.selectTables(size)
	half := size / 2
	parallel.Execute(half, minPairsPerWorker, func(start, end int) {
		ws := <-p.pool
		for b := start; b < end; b += blockSize {
			p.evaluateBlock(ws, b, min(blockSize, end-b), half)
		}
		p.pool <- ws
	})
	return p.roundValues()
}

// foldEvaluate binds the variable of the previous round to r in the tables
// that took part in it, f'[i] = f[i] + r·(f[i+half] − f[i]), and returns
// the values of the next round. Both happen in one pass: a block of pairs
// (i, i + size/2) of the folded tables is folded and then evaluated while it
// is in cache.
func (p *prover[E, P]) foldEvaluate(r *E) []E {
	p.round++
	size := 1 << (p.nbVars - p.round)
	p.selectTables(size)
	src := p.sources
	for _, j := range p.folded {
		src[j] = p.tables[j]
		if p.owned[j] {
			p.tables[j] = p.tables[j][:size]
		} else {
			p.tables[j] = hugepage.Make[E](size)
			p.owned[j] = true
		}
	}
	p.active = append(p.active, p.folded...)
	half := size / 2
	parallel.Execute(half, minPairsPerWorker, func(start, end int) {
		ws := <-p.pool
		for b := start; b < end; b += blockSize {
			m := min(blockSize, end-b)
			for _, j := range p.folded {
				poly.FoldSpan(p.tables[j][b:b+m], ws.prod[:m], src[j][b:b+m], src[j][size+b:size+b+m], r)
				poly.FoldSpan(p.tables[j][half+b:half+b+m], ws.prod[:m], src[j][half+b:half+b+m], src[j][size+half+b:size+half+b+m], r)
			}
			p.evaluateBlock(ws, b, m, half)
		}
		p.pool <- ws
	})
	return p.roundValues()
}

// roundValues sums the workers' partial sums and returns the round values
// Σ_k c_k · (partial sum of term k) at the nodes 0, 2, …, d, plus the
// constant contributions of the instances that have not started.
func (p *prover[E, P]) roundValues() []E {
	clear(p.sums)
	for _, ws := range p.spaces {
		for i := range p.sums {
			P(&p.sums[i]).Add(&p.sums[i], &ws.acc[i])
		}
		clear(ws.acc)
	}
	d := p.g.degree
	out := make([]E, d)
	for k, term := range p.g.terms {
		if p.g.offsets[k] > p.round {
			continue
		}
		for s := range d {
			var v E
			P(&v).Mul(&term.Coefficient, &p.sums[k*d+s])
			P(&out[s]).Add(&out[s], &v)
		}
	}
	for _, pending := range p.g.pending {
		if pending.offset <= p.round {
			continue
		}
		scale := field.FromUint64[E, P](1 << (pending.offset - p.round - 1))
		P(&scale).Mul(&scale, &pending.value)
		for s := range out {
			P(&out[s]).Add(&out[s], &scale)
		}
	}
	return out
}

// evaluateBlock adds, for the pairs (i, i+half), i ∈ [b, b+m), of the
// active tables, the sums Σ_i ∏ⱼ f_j(node) of every started term at every
// node 0, 2, …, d into ws.acc, with vector kernels: f(0) = lo,
// f(2) = hi + (hi − lo), f(s+1) = f(s) + (hi − lo).
func (p *prover[E, P]) evaluateBlock(ws *workspace[E], b, m, half int) {
	d := p.g.degree
	if d >= 2 {
		for _, j := range p.active {
			table := p.tables[j]
			lo, hi := table[b:b+m], table[half+b:half+b+m]
			diff := ws.diff[j][:m]
			field.Sub(diff, hi, lo)
			field.Add(ws.evals[j][0][:m], hi, diff)
			for s := 1; s < d-1; s++ {
				field.Add(ws.evals[j][s][:m], ws.evals[j][s-1][:m], diff)
			}
		}
	}
	for k, term := range p.g.terms {
		if p.g.offsets[k] > p.round {
			continue
		}
		f := term.Factors
		for s := range d {
			var v E
			switch len(f) {
			case 1:
				v = field.Sum(p.nodeValues(ws, s, b, m, f[0]))
			case 2:
				v = field.InnerProduct(p.nodeValues(ws, s, b, m, f[0]), p.nodeValues(ws, s, b, m, f[1]))
			default:
				prod := ws.prod[:m]
				field.Mul(prod, p.nodeValues(ws, s, b, m, f[0]), p.nodeValues(ws, s, b, m, f[1]))
				for _, j := range f[2 : len(f)-1] {
					field.Mul(prod, prod, p.nodeValues(ws, s, b, m, j))
				}
				v = field.InnerProduct(prod, p.nodeValues(ws, s, b, m, f[len(f)-1]))
			}
			P(&ws.acc[k*d+s]).Add(&ws.acc[k*d+s], &v)
		}
	}
}

// nodeValues returns table j at node s (slot s: node 0, or node s+1) for
// the block of pairs [b, b+m).
func (p *prover[E, P]) nodeValues(ws *workspace[E], s, b, m, j int) []E {
	if s == 0 {
		return p.tables[j][b : b+m]
	}
	return ws.evals[j][s-1][:m]
}
