package sumcheck

import (
	"fmt"
	"math/bits"
	"runtime"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
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

// ProveBatch runs one sum-check for several instances over the same tables
// and variables: it absorbs the sums H₀, H₁, …, draws λ when there is more
// than one instance, and proves Σ_x Σ_k λᵏ g_k(x) = Σ_k λᵏ H_k. Tables are
// left unchanged.
func ProveBatch[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], tables [][]E, instances []Instance[E]) (Proof[E], Opening[E], error) {
	nbVars, err := tableVars(tables)
	if err != nil {
		return Proof[E]{}, Opening[E]{}, err
	}
	if err := validate(len(tables), instances); err != nil {
		return Proof[E]{}, Opening[E]{}, err
	}
	weights, claim := bindClaims(t, instances)
	var terms []Term[E]
	for k, inst := range instances {
		for _, term := range inst.Terms {
			c := term.Coefficient
			P(&c).Mul(&c, &weights[k])
			terms = append(terms, Term[E]{Coefficient: c, Factors: term.Factors})
		}
	}
	proof, opening := proveRounds(t, tables, terms, Degree(instances), nbVars, claim)
	return proof, opening, nil
}

// tableVars returns n for tables of common length 2ⁿ.
func tableVars[E field.Scalar](tables [][]E) (int, error) {
	if len(tables) == 0 {
		return 0, fmt.Errorf("sumcheck: no table")
	}
	size := len(tables[0])
	if size == 0 || size&(size-1) != 0 {
		return 0, fmt.Errorf("sumcheck: table length %d is not a power of two", size)
	}
	for j, table := range tables {
		if len(table) != size {
			return 0, fmt.Errorf("sumcheck: table %d has length %d, table 0 has %d", j, len(table), size)
		}
	}
	return bits.TrailingZeros(uint(size)), nil
}

// proveRounds runs the rounds on validated input; claim is the batched sum
// (already bound to the transcript).
func proveRounds[E field.Scalar, P field.Ptr[E]](t *transcript.Transcript[E, P], tables [][]E, terms []Term[E], degree, nbVars int, claim E) (Proof[E], Opening[E]) {
	p := newProver[E, P](tables, terms, degree)
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
		if nbVars == 0 {
			opening.Evaluations[j] = table[0]
			continue
		}
		// Tables have two entries left: bind Xₙ.
		var v E
		P(&v).Sub(&table[1], &table[0])
		P(&v).Mul(&v, &point[nbVars-1])
		P(&opening.Evaluations[j]).Add(&table[0], &v)
	}
	return proof, opening
}

// prover holds the current tables and the per-worker scratch space. The
// first fold writes into fresh buffers, so the caller's tables are never
// written; later folds work in place.
type prover[E field.Scalar, P field.Ptr[E]] struct {
	tables [][]E
	owned  bool
	terms  []Term[E]
	degree int
	spaces []*workspace[E]
	pool   chan *workspace[E]
	sums   []E // per term and slot, summed over workers
}

// workspace is one worker's scratch: for each table, the differences
// hi − lo and the extrapolations f(2), …, f(d) of one block, a product
// buffer, and the per-term, per-slot partial sums.
type workspace[E field.Scalar] struct {
	diff  [][]E   // [table][pair]
	evals [][][]E // [table][node−2][pair]
	prod  []E
	acc   []E // [term·degree + slot], slot 0 ↔ node 0, slot s ↔ node s+1
}

func newProver[E field.Scalar, P field.Ptr[E]](tables [][]E, terms []Term[E], degree int) *prover[E, P] {
	p := &prover[E, P]{tables: append([][]E(nil), tables...), terms: terms, degree: degree}
	workers := runtime.GOMAXPROCS(0)
	block := min(blockSize, len(tables[0])/2)
	p.pool = make(chan *workspace[E], workers)
	for range workers {
		ws := &workspace[E]{
			diff:  make([][]E, len(tables)),
			evals: make([][][]E, len(tables)),
			prod:  make([]E, block),
			acc:   make([]E, len(terms)*degree),
		}
		for j := range tables {
			ws.diff[j] = make([]E, block)
			ws.evals[j] = make([][]E, max(degree-1, 0))
			for s := range ws.evals[j] {
				ws.evals[j][s] = make([]E, block)
			}
		}
		p.spaces = append(p.spaces, ws)
		p.pool <- ws
	}
	p.sums = make([]E, len(terms)*degree)
	return p
}

// evaluate returns p(0), p(2), …, p(d) of the first round.
func (p *prover[E, P]) evaluate() []E {
	half := len(p.tables[0]) / 2
	parallel.Execute(half, minPairsPerWorker, func(start, end int) {
		ws := <-p.pool
		for b := start; b < end; b += blockSize {
			p.evaluateBlock(ws, b, min(blockSize, end-b), half)
		}
		p.pool <- ws
	})
	return p.roundValues()
}

// foldEvaluate binds the current first variable to r in every table,
// f'[i] = f[i] + r·(f[i+half] − f[i]), and returns the next round's
// values. Both happen in one pass: a block of pairs (i, i + half/2) of the
// folded table is folded and then evaluated while it is in cache.
func (p *prover[E, P]) foldEvaluate(r *E) []E {
	half := len(p.tables[0]) / 2
	quarter := half / 2
	src := append([][]E(nil), p.tables...)
	if !p.owned {
		scratch := make([]E, half*len(p.tables))
		for j := range p.tables {
			p.tables[j] = scratch[j*half : (j+1)*half : (j+1)*half]
		}
		p.owned = true
	} else {
		for j := range p.tables {
			p.tables[j] = p.tables[j][:half]
		}
	}
	parallel.Execute(quarter, minPairsPerWorker, func(start, end int) {
		ws := <-p.pool
		for b := start; b < end; b += blockSize {
			m := min(blockSize, end-b)
			for j := range p.tables {
				foldBlock(p.tables[j][b:b+m], src[j][b:b+m], src[j][half+b:half+b+m], ws.prod[:m], r)
				foldBlock(p.tables[j][quarter+b:quarter+b+m], src[j][quarter+b:quarter+b+m], src[j][half+quarter+b:half+quarter+b+m], ws.prod[:m], r)
			}
			p.evaluateBlock(ws, b, m, quarter)
		}
		p.pool <- ws
	})
	return p.roundValues()
}

// foldBlock sets dst = lo + r·(hi − lo), with diff as scratch; dst may be lo.
func foldBlock[E field.Scalar](dst, lo, hi, diff []E, r *E) {
	field.Sub(diff, hi, lo)
	field.ScalarMul(diff, diff, r)
	field.Add(dst, lo, diff)
}

// roundValues sums the workers' partial sums and returns
// Σ_k c_k · (partial sum of term k) at the nodes 0, 2, …, d.
func (p *prover[E, P]) roundValues() []E {
	clear(p.sums)
	for _, ws := range p.spaces {
		for i := range p.sums {
			P(&p.sums[i]).Add(&p.sums[i], &ws.acc[i])
		}
		clear(ws.acc)
	}
	out := make([]E, p.degree)
	for k, term := range p.terms {
		for s := range p.degree {
			var v E
			P(&v).Mul(&term.Coefficient, &p.sums[k*p.degree+s])
			P(&out[s]).Add(&out[s], &v)
		}
	}
	return out
}

// evaluateBlock adds, for the pairs (i, i+half), i ∈ [b, b+m), the sums
// Σ_i ∏ⱼ f_j(node) of every term at every node 0, 2, …, d into ws.acc, with
// vector kernels: f(0) = lo, f(2) = hi + (hi − lo), f(s+1) = f(s) + (hi − lo).
func (p *prover[E, P]) evaluateBlock(ws *workspace[E], b, m, half int) {
	d := p.degree
	if d >= 2 {
		for j, table := range p.tables {
			lo, hi := table[b:b+m], table[half+b:half+b+m]
			diff := ws.diff[j][:m]
			field.Sub(diff, hi, lo)
			field.Add(ws.evals[j][0][:m], hi, diff)
			for s := 1; s < d-1; s++ {
				field.Add(ws.evals[j][s][:m], ws.evals[j][s-1][:m], diff)
			}
		}
	}
	for k, term := range p.terms {
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
