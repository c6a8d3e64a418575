package committed

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/protocol/requant"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/sumcheck"
	"github.com/veriformer/veriformer/transcript"
)

// Domain separates the committed segment transcript.
const Domain = "veriformer/inference/committed/v1"

// ErrRejected wraps every reason a proof is rejected.
var ErrRejected = errors.New("committed: proof rejected")

// Commitment indices of a proof's grouped opening: the stacked tensors, the
// multiplicities, the limb rows, the boundary.
const (
	TensorsCommitment        = 0
	MultiplicitiesCommitment = 1
	LimbsCommitment          = 2 // limb row j is LimbsCommitment + j
	boundaryCommitment       = LimbsCommitment + limbRows
)

// Proof is the committed proof of one segment's requantizations and
// ranges (see the package documentation).
type Proof struct {
	// Tensors commits to the stacked MLE of the segment's opened tensors,
	// Multiplicities to the limbs' LogUp multiplicities over the
	// range-table set, Limbs[j] to row j of the limb MLE (NbVars
	// variables each). Each is committed in parts of [Shape.PartVars]
	// variables (pcs.CommitParts): Tensors and Limbs[j] hold the parts
	// the layout fills, Multiplicities every part, in order
	// ([Shape.Parts]; one commitment, the whole MLE's, when it has no
	// more variables than a part).
	Tensors        []pcs.Commitment
	Multiplicities []pcs.Commitment
	Limbs          [limbRows][]pcs.Commitment
	// Boundary commits to the residual stream handed to the next segment
	// on its own (absent in the last segment), BoundaryEval is its value
	// at the linking point.
	Boundary     *pcs.Commitment
	BoundaryEval fr.Element
	// Incoming commits to the residual stream the segment reads, the
	// previous segment's output (absent in the first segment): its own
	// MLE, as the previous segment's Boundary commits to it. [CheckChain]
	// checks that the two are the same point.
	Incoming *pcs.Commitment
	// Lookup proves that every limb is in its range table and every
	// function lookup's (input, output) pair in its table, over the
	// layout's slots; LimbEvals[m] is the m-th limb slot's limb row over
	// its block at the slot's local coordinates of the lookup's column
	// point, Functions[f] function f's input and output blocks there.
	Lookup    *lookup.CommittedProof[fr.Element]
	LimbEvals []fr.Element
	Functions []FunctionEval
	// Decomposition is the zero-check of the limb decompositions.
	Decomposition *sumcheck.ZeroCheckProof[fr.Element]
	// Accumulators[q] is the q-th requantization's accumulator at its
	// point: the claims the contraction sum-checks prove.
	Accumulators []fr.Element
	// Requant is the sum-check of the batched requantization identities,
	// RequantEval the stacked MLE at its end point.
	Requant     sumcheck.Proof[fr.Element]
	RequantEval fr.Element
	// Projections prove the accumulator claims of the projections
	// (Q, K, V, O, gate, up, down, LM head), one per input.
	Projections []*linear.Proof[fr.Element]
	// Products prove the gated products' accumulator claims (Llama).
	Products []FactorProof
	// Rotations prove the RoPE rotations' accumulator claims (Llama):
	// queries then keys of each block.
	Rotations []FactorProof
	// Attention proves the attention contractions' accumulator claims:
	// the scores then the context of each block.
	Attention []FactorProof
	// Keys prove the scores contractions' values K̃(z), in order.
	Keys []KeyProof
	// Norms prove each norm's arithmetic and accumulator claim.
	Norms []NormProof
	// Softmax proves each attention's softmax relations.
	Softmax []SoftmaxProof
	// Argmax links the argmax margins of the output tokens to the
	// logits (segments with the LM head only).
	Argmax *ArgmaxProof
	// Cache is, in a turn of a conversation, each block's reads of the
	// cache and writes to it (nil in a pass from position 0).
	Cache []CacheProof
	// ResidualEvals are the residual tensors' MLEs at the residual point
	// (one per distinct tensor of the segment's residual adds, in order
	// of first appearance; see residual.go).
	ResidualEvals []fr.Element
	// Opening proves every claim on the commitments.
	Opening *pcs.GroupProof
}

// Claims are the claims a verified proof leaves to the segment's other
// protocols: Accumulators[q] on the accumulator of the q-th
// requantization that is not a projection ([Requants] order: the norms,
// RoPE, the attention scores and context, the gated product), an MLE over
// its output's padded shape, and Requants[q] that requantization.
type Claims struct {
	Accumulators []poly.Claim[fr.Element]
	Requants     []*model.Requant
}

// Timings splits the prover's wall time.
type Timings struct {
	Commit, SumCheck, GKR, Open time.Duration
}

// decomposition returns the public tables of the limb decompositions, in
// the zero-check's order: Min, W₀…W₃, E, Max·E, U₀…U₃.
func (l *Layout) publicColumns() []func(b int) *big.Int {
	cols := []func(b int) *big.Int{func(b int) *big.Int { return big.NewInt(l.Blocks[b].Tensor.Min) }}
	for j := range MaxLimbs {
		cols = append(cols, func(b int) *big.Int { return l.limbWeight(b, j) })
	}
	cols = append(cols,
		func(b int) *big.Int { return boolInt(l.Blocks[b].Exact) },
		func(b int) *big.Int {
			if !l.Blocks[b].Exact {
				return new(big.Int)
			}
			return big.NewInt(l.Blocks[b].Tensor.Max)
		})
	for j := range MaxLimbs {
		cols = append(cols, func(b int) *big.Int { return l.limbWeight(b, MaxLimbs+j) })
	}
	return cols
}

func boolInt(b bool) *big.Int {
	if b {
		return big.NewInt(1)
	}
	return new(big.Int)
}

// Zero-check tables: 0 the stacked tensors, 1 Min, 2…5 W, 6 E, 7 Max·E,
// 8…11 U, 12…19 the limb rows.
const (
	tabS     = 0
	tabMin   = 1
	tabW     = 2
	tabE     = 2 + MaxLimbs
	tabMaxE  = 3 + MaxLimbs
	tabU     = 4 + MaxLimbs
	tabLimbs = 4 + 2*MaxLimbs
	// NbDecompositionTables is the number of the zero-check's tables.
	NbDecompositionTables = tabLimbs + limbRows
)

// RelationTerm is a term of the decomposition relation: ±1 (±γ when
// Gamma) times the product of the zero-check's tables Factors.
type RelationTerm struct {
	Gamma, Negative bool
	Factors         []int
}

// DecompositionRelation returns the terms of
// s − Min − Σⱼ Wⱼ·lⱼ + γ·(Max·E − E·s − Σⱼ Uⱼ·l_{4+j}) over the
// zero-check's tables (0 s, 1 Min, 2…5 W, 6 E, 7 Max·E, 8…11 U, 12…19 the
// limb rows; [NbDecompositionTables] in all).
func DecompositionRelation() []RelationTerm {
	terms := []RelationTerm{
		{Factors: []int{tabS}},
		{Negative: true, Factors: []int{tabMin}},
		{Gamma: true, Factors: []int{tabMaxE}},
		{Gamma: true, Negative: true, Factors: []int{tabE, tabS}},
	}
	for j := range MaxLimbs {
		terms = append(terms,
			RelationTerm{Negative: true, Factors: []int{tabW + j, tabLimbs + j}},
			RelationTerm{Gamma: true, Negative: true, Factors: []int{tabU + j, tabLimbs + MaxLimbs + j}})
	}
	return terms
}

// relation returns the decomposition relation's terms for γ.
func relation(gamma fr.Element) []sumcheck.Term[fr.Element] {
	var terms []sumcheck.Term[fr.Element]
	for _, rt := range DecompositionRelation() {
		c := field.One[fr.Element]()
		if rt.Gamma {
			c = gamma
		}
		if rt.Negative {
			c.Neg(&c)
		}
		terms = append(terms, sumcheck.Term[fr.Element]{Coefficient: c, Factors: rt.Factors})
	}
	return terms
}

// DecompositionTables returns the public tables of the decomposition
// zero-check (Min, W₀…W₃, E, Max·E, U₀…U₃, its tables 1 to 11) as their
// constant per block: [k][b] is table 1 + k on block b's valid entries
// (zero on its padding).
func (l *Layout) DecompositionTables() [][]*big.Int {
	cols := l.publicColumns()
	out := make([][]*big.Int, len(cols))
	for k, c := range cols {
		out[k] = make([]*big.Int, len(l.Blocks))
		for b := range l.Blocks {
			out[k][b] = c(b)
		}
	}
	return out
}

// NewTranscript seeds the segment's transcript with the statement and the
// segment's bounds: From and To, then 1 if it sets NoHead, or
// VocabFrom + 2 and VocabTo if it is a chunk (the segments of blocks
// with the LM head absorb nothing more). Used by the tests of package
// gadgets/committed, which replay a segment's steps from it natively and
// in circuit.
func NewTranscript(st statement.Statement, seg inference.Segment) *pcs.Transcript {
	return newTranscript(st, seg, nil)
}

// newTranscript is [NewTranscript], followed in a turn by the label
// "committed/turn", Start and Capacity.
func newTranscript(st statement.Statement, seg inference.Segment, turn *Turn) *pcs.Transcript {
	t := transcript.New[fr.Element](Domain, statement.Elements[fr.Element](st)...)
	t.Absorb(field.FromInt64[fr.Element](int64(seg.From)), field.FromInt64[fr.Element](int64(seg.To)))
	switch {
	case seg.Chunk():
		t.Absorb(field.FromInt64[fr.Element](int64(seg.VocabFrom)+2), field.FromInt64[fr.Element](int64(seg.VocabTo)))
	case seg.NoHead:
		t.Absorb(field.One[fr.Element]())
	}
	if turn != nil {
		t.Label("committed/turn")
		t.Absorb(field.FromInt64[fr.Element](int64(turn.Start)), field.FromInt64[fr.Element](int64(turn.Capacity)))
	}
	return t
}

// Commitments lists a proof's commitments in batch order, every part:
// the tensors' parts, the multiplicities, each limb row's parts, the
// boundary, the incoming stream, and in a turn each block's cache
// commitments (KeysIn, ValuesIn, Keys, Values). The first absorption of
// its transcript after the statement and the segment is their
// pcs.Digest.
func (p *Proof) Commitments() []pcs.Commitment {
	out := append(append([]pcs.Commitment(nil), p.Tensors...), p.Multiplicities...)
	for j := range p.Limbs {
		out = append(out, p.Limbs[j]...)
	}
	if p.Boundary != nil {
		out = append(out, *p.Boundary)
	}
	if p.Incoming != nil {
		out = append(out, *p.Incoming)
	}
	return append(out, cacheCommitmentsOf(p.Cache)...)
}

// cacheCommitment is the index of the first cache commitment in the
// grouped opening.
func (p *Proof) cacheCommitment() int {
	n := boundaryCommitment
	if p.Boundary != nil {
		n++
	}
	if p.Incoming != nil {
		n++
	}
	return n
}

// incomingCommitment is the index of Incoming in the grouped opening.
func (p *Proof) incomingCommitment() int {
	if p.Boundary != nil {
		return boundaryCommitment + 1
	}
	return boundaryCommitment
}

// VerifyingKey is what a verifier of a model's committed segment proofs
// holds beside the statement: the PCS's verifying key, and per function
// table of the model ([FuncTable] by name) the commitment to its output
// column (padded as in its lookup table), fixed by the model. The batch
// opening opens each table a segment's lookups use where the lookup's
// table tree ends, so the verifier never evaluates a table. A circuit
// takes them as constants.
//
// PartVars is the parts' variables of the proofs it verifies ([PartVars]
// unless [WithPartVars] says otherwise), LimbBits their limbs' width (0:
// each layout's choice, unless [WithLimbBits] says otherwise), and
// Tables[name] holds the commitments to the parts of that table's column
// (pcs.CommitParts).
type VerifyingKey struct {
	PCS      *pcs.VerifyingKey
	PartVars int
	LimbBits int
	Tables   map[string][]pcs.Commitment
}

// NewVerifyingKey returns the verifying key of model m's committed
// proofs under srs, made with the options opts: the commitments to the
// parts of every function table of the model.
func NewVerifyingKey(srs *pcs.SRS, m *model.Model, opts ...Option) (*VerifyingKey, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	view, err := inference.ShapePass(m, 1)
	if err != nil {
		return nil, err
	}
	vk := &VerifyingKey{PCS: srs.VerifyingKey(), PartVars: cfg.partVars, LimbBits: cfg.limbBits, Tables: map[string][]pcs.Commitment{}}
	for _, f := range modelTables(view) {
		t, err := f.table()
		if err != nil {
			return nil, err
		}
		if vk.Tables[f.Name], err = pcs.CommitParts(srs, outputTable(&t), cfg.partVars); err != nil {
			return nil, fmt.Errorf("committed: table %s: %w", f.Name, err)
		}
	}
	return vk, nil
}

// outputTable is a function table's output column as an MLE table.
func outputTable(t *table.Table) []fr.Element {
	col := t.Columns[1].Values
	out := hugepage.Make[fr.Element](len(col))
	for y, v := range col {
		out[y].SetInt64(v)
	}
	return out
}

// tableClaims returns the claims on the function tables' output columns
// at the table point, the commitments from index first on in the
// lookup's dense columns' order (one per function table of the set).
func tableClaims(first int, lc *lookup.CommittedClaims[fr.Element]) []pcs.Claim {
	out := make([]pcs.Claim, len(lc.Tables))
	for k, c := range lc.Tables {
		out[k] = pcs.Claim{Commitment: first + k, Point: c.Point, Value: c.Value}
	}
	return out
}

// tableCommitments returns the key's commitments to the set's dense
// columns (function tables' outputs), in the lookup's order.
func tableCommitments(vk *VerifyingKey, set *table.Set) ([]pcs.Commitment, error) {
	var out []pcs.Commitment
	for _, d := range lookup.DenseColumns(set) {
		name := set.Tables[d.Table].Name
		c, ok := vk.Tables[name]
		if !ok || d.Column != 2 || len(c) != pcs.Parts(tableVars(&set.Tables[d.Table]), vk.PartVars) {
			return nil, fmt.Errorf("the verifying key has no commitment to table %s in parts of %d variables", name, vk.PartVars)
		}
		out = append(out, c...)
	}
	return out, nil
}

// tableVars is the number of variables of a function table's output
// column as an MLE.
func tableVars(t *table.Table) int {
	return poly.Log2Ceil(len(t.Columns[1].Values))
}

// boundaryVars is the number of variables of the boundary's own MLE.
func boundaryVars(l *Layout) int {
	return max(l.Blocks[l.Boundary].NbVars, 1)
}

// Prove proves segment seg of the forward pass tr of model m over the
// generation pass (tr runs over pass.Tokens()) for the statement st,
// committing with srs.
func Prove(srs *pcs.SRS, m *model.Model, st statement.Statement, pass Pass, tr *model.Trace, seg inference.Segment, opts ...Option) (*Proof, *Timings, error) {
	return prove(srs, st, pass, tr, seg, (*Layout).LimbTable, lookup.SetMultiplicities, opts...)
}

// prove is Prove with the limb table computed by limbsOf and the
// lookups' multiplicities by multOf (the tests substitute limbs that do
// not decompose the committed values, and multiplicities that ignore a
// forged table output). limbsOf runs before the stacked table is built,
// so that a test may also forge an auxiliary tensor of the layout (the
// argmax margins, a softmax mark) and have it committed.
func prove(srs *pcs.SRS, st statement.Statement, pass Pass, tr *model.Trace, seg inference.Segment, limbsOf func(*Layout) ([]uint16, error), multOf func(*table.Set, *lookup.Lookups) ([]uint64, error), opts ...Option) (*Proof, *Timings, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, nil, err
	}
	if pass.Len() < 1 || !slices.Equal(tr.Tokens, pass.Tokens()) {
		return nil, nil, fmt.Errorf("committed: the trace's tokens are not the pass's")
	}
	if !slices.Equal(tr.Begins, pass.Begins()) {
		return nil, nil, fmt.Errorf("committed: the trace's requests are not the pass's (a batch's pass runs model.ForwardStacked)")
	}
	times := &Timings{}
	start := time.Now()
	l, err := NewLayout(tr, seg, pass, opts...)
	if err != nil {
		return nil, nil, err
	}
	tr = l.View
	if cfg.turn == nil && tr.Start != 0 {
		return nil, nil, fmt.Errorf("committed: a pass from row %d is a turn (WithTurn)", tr.Start)
	}
	steps, err := cacheSteps(tr, seg, l, cfg.turn, pass)
	if err != nil {
		return nil, nil, err
	}
	set, ids, err := TableSet(l)
	if err != nil {
		return nil, nil, err
	}
	limbs, err := limbsOf(l)
	if err != nil {
		return nil, nil, err
	}
	stacked, err := l.Table()
	if err != nil {
		return nil, nil, err
	}
	cols, err := lookupColumns(l, ids, limbs)
	if err != nil {
		return nil, nil, err
	}
	lk := lookup.Lookups{Shape: []int{len(cols[0])}, Columns: cols[:]}
	mult, err := multOf(set, &lk)
	if err != nil {
		return nil, nil, fmt.Errorf("committed: %w", err)
	}
	multTable := hugepage.Make[fr.Element](len(mult))
	parallel.Execute(len(mult), 1<<13, func(start, end int) {
		for i := start; i < end; i++ {
			if v := mult[i]; v != 0 {
				multTable[i].SetUint64(v)
			}
		}
	})
	size := 1 << l.NbVars
	tables := [][]fr.Element{stacked, multTable}
	tables = append(tables, make([][]fr.Element, limbRows)...)
	// The limb rows in the field are the largest tables but the opening's:
	// in a large segment they are never built (dropped), the commitments,
	// the lookup argument, the zero-check and the opening reading the
	// integers.
	drop := l.NbVars >= dropLimbVars
	if !drop {
		limbTable := limbFieldTable(limbs)
		for j := range limbRows {
			tables[LimbsCommitment+j] = limbTable[j*size : (j+1)*size]
		}
	}
	proof := &Proof{}
	var incomingVars int
	if seg.From > 0 {
		incomingVars = streamVars(&tr.Layers[seg.From-1].Output)
	}
	partVars := segmentPartVars(l, max(incomingVars, cacheVars(steps)), cfg.partVars)
	parts := layoutParts(l, partVars)
	if proof.Tensors, err = commitLayoutParts(srs, stacked, partVars, parts[0]); err != nil {
		return nil, nil, err
	}
	if proof.Multiplicities, err = pcs.CommitParts(srs, multTable, partVars); err != nil {
		return nil, nil, err
	}
	var rows [][]fr.Element
	if !drop {
		rows = tables[LimbsCommitment : LimbsCommitment+limbRows]
	}
	if proof.Limbs, err = commitLimbRows(srs, limbs, rows, size, partVars, parts[1:]); err != nil {
		return nil, nil, err
	}
	var boundary []fr.Element
	if l.Boundary >= 0 {
		boundary = make([]fr.Element, 1<<boundaryVars(l))
		copy(boundary, blockOf(l, stacked, l.Boundary))
		c, err := pcs.Commit(srs, boundary)
		if err != nil {
			return nil, nil, err
		}
		proof.Boundary = &c
		tables = append(tables, boundary)
	}
	var incoming []fr.Element
	if seg.From > 0 {
		if incoming, err = incomingTable(&tr.Layers[seg.From-1].Output); err != nil {
			return nil, nil, err
		}
		c, err := pcs.Commit(srs, incoming)
		if err != nil {
			return nil, nil, err
		}
		proof.Incoming = &c
		tables = append(tables, incoming)
	}
	cache := make([]*cacheData, len(steps))
	proof.Cache = make([]CacheProof, len(steps))
	if len(steps) == 0 {
		proof.Cache = nil
	}
	for b := range steps {
		if cache[b], err = newCacheData(tr, l, &steps[b], cfg.forgeWrites); err != nil {
			return nil, nil, err
		}
		var cs [cacheCommitments]pcs.Commitment
		for j, tab := range cache[b].tables {
			if cs[j], err = pcs.Commit(srs, tab); err != nil {
				return nil, nil, err
			}
			tables = append(tables, tab)
		}
		p := &proof.Cache[b]
		p.KeysIn, p.ValuesIn, p.Keys, p.Values = cs[0], cs[1], cs[2], cs[3]
	}
	times.Commit = time.Since(start)

	t := newTranscript(st, seg, cfg.turn)
	t.Absorb(pcs.Digest(proof.Commitments()))

	start = time.Now()
	mDigest := []fr.Element{pcs.Digest(proof.Multiplicities)}
	var lc *lookup.CommittedClaims[fr.Element]
	if proof.Lookup, lc, err = lookup.ProveCommitted(t, mDigest, set, &lk, mult, lookup.WithTableClaims()); err != nil {
		return nil, nil, err
	}
	proof.LimbEvals = limbEvals(l, limbs, tables[LimbsCommitment:LimbsCommitment+limbRows], lc.Columns[1].Point)
	proof.Functions = functionEvals(l, stacked, lc.Columns[1].Point)
	t.Absorb(proof.LimbEvals...)
	absorbFunctions(t, proof.Functions)
	times.GKR = time.Since(start)

	start = time.Now()
	t.Label("committed/decomposition")
	gamma := t.Challenge()
	zt := make([][]fr.Element, NbDecompositionTables)
	zt[tabS] = stacked
	// The public tables are generated, never built; so are the limb rows
	// where they are dropped (from the integers).
	pub, err := l.blockGenerators(l.publicColumns())
	if err != nil {
		return nil, nil, err
	}
	gens := map[int]sumcheck.Generator[fr.Element]{}
	for k := range pub {
		gens[tabMin+k] = pub[k]
	}
	for j := range limbRows {
		zt[tabLimbs+j] = tables[LimbsCommitment+j]
		if drop {
			gens[tabLimbs+j] = limbGenerator(limbs[j*size : (j+1)*size])
		}
	}
	var zc []poly.Claim[fr.Element]
	if proof.Decomposition, zc, err = sumcheck.ProveZero(t, zt, relation(gamma), sumcheck.Generate(gens)); err != nil {
		return nil, nil, err
	}
	zt, pub, gens = nil, nil, nil

	t.Label("committed/requant")
	var rqs []*model.Requant
	Requants(tr, seg, func(r *model.Requant) { rqs = append(rqs, r) })
	groups := projectionGroups(tr, seg)
	points := requantPoints(t, rqs, sharedRows(groups))
	for q, rq := range rqs {
		sp := spec(rq)
		v, err := requant.EvaluateAcc[fr.Element](&sp, rq.Out.Data, rq.Rem.Data, points[q])
		if err != nil {
			return nil, nil, err
		}
		proof.Accumulators = append(proof.Accumulators, v)
	}
	t.Absorb(proof.Accumulators...)
	rho := t.Challenge()
	sum := requantSum(rqs, points, proof.Accumulators, rho)
	g := hugepage.Make[fr.Element](size)
	weight := field.One[fr.Element]()
	for q, rq := range rqs {
		w := weightTable(rq, points[q])
		out, rem := &l.Blocks[l.Index[&rq.Out]], &l.Blocks[l.Index[&rq.Rem]]
		var cOut fr.Element
		p := pow2(rq.Shift)
		cOut.Mul(&weight, &p)
		for i := range w {
			var a fr.Element
			a.Mul(&w[i], &cOut)
			g[out.Offset+i].Add(&g[out.Offset+i], &a)
			a.Mul(&w[i], &weight)
			g[rem.Offset+i].Add(&g[rem.Offset+i], &a)
		}
		weight.Mul(&weight, &rho)
	}
	one := field.One[fr.Element]()
	sc, opening, err := sumcheck.Prove(t, [][]fr.Element{g, stacked}, []sumcheck.Term[fr.Element]{{Coefficient: one, Factors: []int{0, 1}}}, sum)
	if err != nil {
		return nil, nil, err
	}
	proof.Requant = sc
	proof.RequantEval = opening.Evaluations[1]
	t.Absorb(proof.RequantEval)
	var inputs []poly.Claim[fr.Element]
	index := requantIndex(rqs)
	if proof.Projections, inputs, err = proveProjections(t, groups, index, points, proof.Accumulators); err != nil {
		return nil, nil, err
	}

	gps, err := gatedProducts(tr, seg, l, index)
	if err != nil {
		return nil, nil, err
	}
	var pEnds [][]fr.Element
	if proof.Products, pEnds, err = proveFactors(t, "committed/product", productSteps(l, gps, stacked, points, proof.Accumulators)); err != nil {
		return nil, nil, err
	}
	rts, err := rotationsOf(tr, seg, l, index)
	if err != nil {
		return nil, nil, err
	}
	var rtEnds [][]fr.Element
	if proof.Rotations, rtEnds, err = proveFactors(t, "committed/rope", rotationSteps(l, rts, stacked, points, proof.Accumulators)); err != nil {
		return nil, nil, err
	}
	ats, err := attentionContractions(tr, seg, l, index, cfg.turn != nil)
	if err != nil {
		return nil, nil, err
	}
	for n := range ats {
		if k := &ats[n]; k.Cached {
			d := cache[k.Layer-seg.From]
			if k.cache = d.readValues; k.Scores {
				k.cache = d.readKeys
			}
		}
	}
	var atEnds [][]fr.Element
	if proof.Attention, atEnds, err = proveFactors(t, "committed/attention", contractionSteps(l, ats, stacked, points, proof.Accumulators)); err != nil {
		return nil, nil, err
	}
	var keyEnds [][]fr.Element
	if proof.Keys, keyEnds, err = proveKeys(t, l, ats, stacked, points, proof.Attention, atEnds); err != nil {
		return nil, nil, err
	}
	cacheClaims, err := proveCache(t, l, steps, cache, cacheReads(ats, points, atEnds, proof.Attention, keyEnds, proof.Keys), proof.Cache, proof.cacheCommitment())
	if err != nil {
		return nil, nil, err
	}
	nss, err := normSteps(tr, seg, l, index)
	if err != nil {
		return nil, nil, err
	}
	var nEnds [][3][]fr.Element
	if proof.Norms, nEnds, err = proveNorms(t, l, nss, stacked, incoming, points, proof.Accumulators); err != nil {
		return nil, nil, err
	}
	sms, err := softmaxSteps(l)
	if err != nil {
		return nil, nil, err
	}
	var smEnds []SoftmaxEnds
	if proof.Softmax, smEnds, err = proveSoftmax(t, l, sms, stacked); err != nil {
		return nil, nil, err
	}
	res, err := residualsOf(tr, seg, l)
	if err != nil {
		return nil, nil, err
	}
	rPoint, rEvals := proveResiduals(t, l, res, stacked, incoming)
	proof.ResidualEvals = rEvals
	ePoint := embeddingPoint(t, tr, l, seg.From == 0)
	var eValue fr.Element
	if ePoint != nil {
		eValue = poly.Evaluate[fr.Element](blockOf(l, stacked, l.Index[&tr.Embedding]), ePoint)
	}
	am, err := newArgmaxStep(tr, l, pass, seg)
	if err != nil {
		return nil, nil, err
	}
	var amPoint []fr.Element
	if proof.Argmax, amPoint, err = proveArgmax(t, l, am, stacked); err != nil {
		return nil, nil, err
	}

	var bPoint []fr.Element
	if l.Boundary >= 0 {
		t.Label("committed/boundary")
		bPoint = t.Challenges(boundaryVars(l))
		proof.BoundaryEval = poly.Evaluate[fr.Element](boundary, bPoint)
		t.Absorb(proof.BoundaryEval)
	}
	times.SumCheck = time.Since(start)

	start = time.Now()
	claims := batchClaims(l, lc, zc, opening.Point, proof, bPoint, groups, inputs)
	claims = append(claims, residualClaims(l, res, rPoint, rEvals, proof.incomingCommitment())...)
	claims = append(claims, embeddingClaim(tr, l, ePoint, eValue)...)
	claims = append(claims, productClaims(l, gps, pEnds, proof.Products)...)
	claims = append(claims, rotationClaims(l, rts, rtEnds, proof.Rotations)...)
	claims = append(claims, contractionClaims(l, ats, points, atEnds, proof.Attention, keyEnds, proof.Keys)...)
	claims = append(claims, cacheClaims...)
	claims = append(claims, argmaxClaims(l, am, amPoint, proof.Argmax)...)
	claims = append(claims, normClaims(l, nss, nEnds, proof.Norms, proof.incomingCommitment())...)
	claims = append(claims, softmaxClaims(l, sms, smEnds, proof.Softmax)...)
	claims = append(claims, tableClaims(len(tables), lc)...)
	for _, d := range lookup.DenseColumns(set) {
		tables = append(tables, outputTable(&set.Tables[d.Table]))
	}
	var open []pcs.GroupOption
	if drop {
		// The limb rows are generated from the integers: the opening
		// stores their first folds only.
		gens := map[int]sumcheck.Generator[fr.Element]{}
		for j := range limbRows {
			gens[LimbsCommitment+j] = limbGenerator(limbs[j*size : (j+1)*size])
		}
		open = append(open, pcs.Generate(gens))
	}
	if proof.Opening, err = pcs.OpenGroupParts(t, srs, tables, claims, partVars, open...); err != nil {
		return nil, nil, err
	}
	times.Open = time.Since(start)
	return proof, times, nil
}

// dropLimbVars is the stacked MLE's size (in variables) from which the
// prover never builds the limb rows in the field: it commits them part
// by part from the integers, the lookup argument reads the integers,
// and the decomposition zero-check and the grouped opening generate them
// (sumcheck.Generate, pcs.Generate), storing their first folds only. At
// 2²² entries a row (a GPT-2-small block at 64 rows, its LM-head segment
// at 16) the rows are 1 GB in the field; at 2²⁴ (the LM-head segment at
// 64 rows) 4 GB. Below that size generating them cost more than the
// memory was worth when the rows were rebuilt twice and each entry's
// conversion was a multiplication (the pass at 16 rows, where a block's
// stacked MLE has 2²⁰ entries, lost 4 s); with the conversion a table
// read, a lower threshold is not measured yet. A test lowers it to
// prove every segment both ways.
var dropLimbVars = 22

// limbGenerator generates a limb row in the field from its integers for
// the decomposition zero-check (sumcheck.Generate), with its zero
// granules.
func limbGenerator(row []uint16) sumcheck.Generator[fr.Element] {
	g := sumcheck.Generator[fr.Element]{Fill: func(dst []fr.Element, start int) {
		limbsToField(dst, row[start:start+len(dst)])
	}}
	if q := len(row) / poly.Granule; q >= 2 {
		g.Zero = make([]bool, q)
		parallel.Execute(q, 64, func(start, end int) {
			for k := start; k < end; k++ {
				g.Zero[k] = !slices.ContainsFunc(row[k*poly.Granule:(k+1)*poly.Granule], func(v uint16) bool { return v != 0 })
			}
		})
	}
	return g
}

// limbFieldTable returns the limb rows' integers as field elements,
// converted on every core.
func limbFieldTable(limbs []uint16) []fr.Element {
	t := hugepage.Make[fr.Element](len(limbs))
	parallel.Execute(len(limbs), 1<<13, func(start, end int) {
		limbsToField(t[start:end], limbs[start:end])
	})
	return t
}

// limbsToField writes the integers src into dst as field elements on the
// calling goroutine, reading them from a table of every 2-byte value:
// 2.5 ns an entry where the conversion took 16 (Montgomery form is a
// multiplication), and in a large segment the rows are converted
// several times (the commitments, the zero-check, the opening).
func limbsToField(dst []fr.Element, src []uint16) {
	t := limbValues()
	for i, v := range src {
		dst[i] = t[v]
	}
}

// limbValues returns the field elements 0, 1, …, 2¹⁶ − 1.
var limbValues = sync.OnceValue(func() *[1 << 16]fr.Element {
	t := new([1 << 16]fr.Element)
	for v := range t {
		t[v].SetUint64(uint64(v))
	}
	return t
})

// SharedRows maps each projection of segment seg of tr that shares its
// group's input rows to the group's first projection: its accumulator
// point takes that projection's row coordinates. Used by the tests of
// package gadgets/committed, which call [VerifyRequants] with it.
func SharedRows(tr *model.Trace, seg inference.Segment) map[*model.Requant]*model.Requant {
	return sharedRows(projectionGroups(tr, seg))
}

// VerifyRequants runs the verifier's requantization step after
// [VerifyLookups]: under label "committed/requant" it draws each
// requantization's accumulator point (rqs in [Requants] order, shared
// rows as [SharedRows] gives them), absorbs the claimed accumulators,
// draws ρ, checks the degree-2 sum-check of the batched identities over
// the stacked MLE against the public weight G at its end point, and
// absorbs s there. It returns the points and the end point (the claim
// on s there is proof.RequantEval). The in-circuit twin is
// gadgets/committed.VerifyRequants.
func VerifyRequants(t *pcs.Transcript, l *Layout, rqs []*model.Requant, shared map[*model.Requant]*model.Requant, proof *Proof) ([][]fr.Element, []fr.Element, error) {
	if len(proof.Accumulators) != len(rqs) {
		return nil, nil, fmt.Errorf("%w: %d accumulator values for %d requantizations", ErrRejected, len(proof.Accumulators), len(rqs))
	}
	t.Label("committed/requant")
	points := requantPoints(t, rqs, shared)
	t.Absorb(proof.Accumulators...)
	rho := t.Challenge()
	sum := requantSum(rqs, points, proof.Accumulators, rho)
	end, expected, err := sumcheck.Verify(t, sum, 2, l.NbVars, proof.Requant)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: requantization: %w", ErrRejected, err)
	}
	g := requantWeight(l, rqs, points, rho, end)
	g.Mul(&g, &proof.RequantEval)
	if !g.Equal(&expected) {
		return nil, nil, fmt.Errorf("%w: requantization: the final value does not match", ErrRejected)
	}
	t.Absorb(proof.RequantEval)
	return points, end, nil
}

// requantPoints draws each requantization's accumulator point; a
// projection that shares its group's rows (shared) takes the row
// coordinates of the group's first projection and draws its column
// coordinates.
func requantPoints(t *pcs.Transcript, rqs []*model.Requant, shared map[*model.Requant]*model.Requant) [][]fr.Element {
	points := make([][]fr.Element, len(rqs))
	index := requantIndex(rqs)
	for q, rq := range rqs {
		_, n, _ := poly.TensorVars(rq.Out.Shape)
		if first, ok := shared[rq]; ok {
			rows := poly.Log2Ceil(rq.Out.Shape[0])
			points[q] = append(append([]fr.Element(nil), points[index[first]][:rows]...), t.Challenges(n-rows)...)
			continue
		}
		points[q] = t.Challenges(n)
	}
	return points
}

// requantIndex maps each requantization to its position.
func requantIndex(rqs []*model.Requant) map[*model.Requant]int {
	out := map[*model.Requant]int{}
	for q, rq := range rqs {
		out[rq] = q
	}
	return out
}

// requantSum is Σ_q ρ^q·(Acc_q + 2^(Shift−1)·C_q), the sum of the batched
// requantization sum-check.
func requantSum(rqs []*model.Requant, points [][]fr.Element, acc []fr.Element, rho fr.Element) fr.Element {
	var sum fr.Element
	weight := field.One[fr.Element]()
	for q, rq := range rqs {
		c := validWeight(rq, points[q])
		h := halfShift(rq)
		c.Mul(&c, &h)
		c.Add(&c, &acc[q])
		c.Mul(&c, &weight)
		sum.Add(&sum, &c)
		weight.Mul(&weight, &rho)
	}
	return sum
}

// requantWeight is the MLE at point of the sum-check's public table G.
func requantWeight(l *Layout, rqs []*model.Requant, points [][]fr.Element, rho fr.Element, point []fr.Element) fr.Element {
	var res fr.Element
	weight := field.One[fr.Element]()
	for q, rq := range rqs {
		for _, part := range []struct {
			t     *model.Tensor
			scale fr.Element
		}{{&rq.Out, pow2(rq.Shift)}, {&rq.Rem, field.One[fr.Element]()}} {
			b := l.Index[part.t]
			ind := l.indicator(b, point)
			phi := weightEval(rq, point[l.NbVars-l.Blocks[b].NbVars:], points[q])
			ind.Mul(&ind, &phi)
			ind.Mul(&ind, &part.scale)
			ind.Mul(&ind, &weight)
			res.Add(&res, &ind)
		}
		weight.Mul(&weight, &rho)
	}
	return res
}

// batchClaims lists every claim on the commitments, in a fixed order: the
// limb column and multiplicity claims of the lookup, the zero-check's
// claims on the stacked MLE and the limb rows, the requantization
// sum-check's claim on the stacked MLE, the boundary link.
func batchClaims(l *Layout, lc *lookup.CommittedClaims[fr.Element], zc []poly.Claim[fr.Element], end []fr.Element, proof *Proof, bPoint []fr.Element, groups []ProjectionGroup, inputs []poly.Claim[fr.Element]) []pcs.Claim {
	claims := []pcs.Claim{
		{Commitment: MultiplicitiesCommitment, Point: lc.Multiplicities.Point, Value: lc.Multiplicities.Value},
		{Commitment: TensorsCommitment, Point: zc[tabS].Point, Value: zc[tabS].Value},
	}
	claims = append(claims, limbClaims(l, lc.Columns[1].Point, proof.LimbEvals)...)
	for j := range limbRows {
		claims = append(claims, pcs.Claim{Commitment: LimbsCommitment + j, Point: zc[tabLimbs+j].Point, Value: zc[tabLimbs+j].Value})
	}
	claims = append(claims, functionClaims(l, lc.Columns[1].Point, proof.Functions)...)
	claims = append(claims, pcs.Claim{Commitment: TensorsCommitment, Point: end, Value: proof.RequantEval})
	for k, g := range groups {
		claims = append(claims, pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(l.Index[g.X], inputs[k].Point), Value: inputs[k].Value})
	}
	if proof.Boundary != nil {
		blk := &l.Blocks[l.Boundary]
		local := bPoint[len(bPoint)-blk.NbVars:]
		// The boundary's own MLE has at least one variable: a leading
		// zero coordinate when the tensor has a single entry.
		claims = append(claims,
			pcs.Claim{Commitment: boundaryCommitment, Point: bPoint, Value: proof.BoundaryEval},
			pcs.Claim{Commitment: TensorsCommitment, Point: l.Point(l.Boundary, local), Value: boundaryLink(bPoint, blk.NbVars, proof.BoundaryEval)})
	}
	return claims
}

// boundaryLink returns the value of the boundary block's MLE at the last
// k coordinates of point given the boundary MLE's value there: the same
// when the MLE has k variables, divided by 1 − point[0] (the padding
// variable) when the block has none.
func boundaryLink(point []fr.Element, k int, v fr.Element) fr.Element {
	if len(point) == k {
		return v
	}
	var d fr.Element
	d.SetOne()
	d.Sub(&d, &point[0])
	d.Inverse(&d)
	d.Mul(&d, &v)
	return d
}

// LookupClaims are the claims [VerifyLookups] leaves: the LogUp
// instance's (columns, multiplicities, function tables) and the
// decomposition zero-check's on each of its tables (tabS, then the public
// tables, then the limb rows).
type LookupClaims struct {
	Lookup        *lookup.CommittedClaims[fr.Element]
	Decomposition []poly.Claim[fr.Element]
}

// VerifyLookups runs the verifier's first steps on a transcript that has
// absorbed the statement, the segment ([NewTranscript]) and the
// commitments' digest: the LogUp instance over the layout's slots (id
// column against the layout, columns a and b against the slots' values),
// the slots' values, and the decomposition zero-check with its public
// tables. The in-circuit twin is gadgets/committed.VerifyLookups.
func VerifyLookups(t *pcs.Transcript, l *Layout, set *table.Set, ids *TableIDs, proof *Proof) (*LookupClaims, error) {
	if proof == nil || proof.Lookup == nil || proof.Decomposition == nil {
		return nil, fmt.Errorf("%w: incomplete proof", ErrRejected)
	}
	if len(proof.LimbEvals) != l.limbSlots() || len(proof.Functions) != len(l.Functions) {
		return nil, fmt.Errorf("%w: %d limb slot and %d function values for %d and %d", ErrRejected, len(proof.LimbEvals), len(proof.Functions), l.limbSlots(), len(l.Functions))
	}
	mDigest := []fr.Element{pcs.Digest(proof.Multiplicities)}
	lc, err := lookup.VerifyCommitted(t, mDigest, set, []int{1 << l.LookupVars}, proof.Lookup, lookup.WithTableClaims())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if id := idEval(l, ids, lc.Columns[0].Point); !id.Equal(&lc.Columns[0].Value) {
		return nil, fmt.Errorf("%w: the lookups' id column is not the layout's", ErrRejected)
	}
	// Columns a and b are the slots' values at the point's local
	// coordinates, given by the prover.
	a, b := lookupColumnEvals(l, lc.Columns[1].Point, proof.LimbEvals, proof.Functions)
	if !a.Equal(&lc.Columns[1].Value) || !b.Equal(&lc.Columns[2].Value) {
		return nil, fmt.Errorf("%w: the lookup rows' values do not give the lookup columns' claims", ErrRejected)
	}
	t.Absorb(proof.LimbEvals...)
	absorbFunctions(t, proof.Functions)

	t.Label("committed/decomposition")
	gamma := t.Challenge()
	zc, err := sumcheck.VerifyZero(t, l.NbVars, NbDecompositionTables, relation(gamma), proof.Decomposition)
	if err != nil {
		return nil, fmt.Errorf("%w: decomposition: %w", ErrRejected, err)
	}
	for k, c := range l.publicColumns() {
		if v := l.blockSum(zc[tabMin+k].Point, c); !v.Equal(&zc[tabMin+k].Value) {
			return nil, fmt.Errorf("%w: decomposition: public table %d does not match the layout", ErrRejected, k)
		}
	}
	return &LookupClaims{Lookup: lc, Decomposition: zc}, nil
}

// Verify checks a committed segment proof of model m for the generation
// pass and the statement st against m's verifying key vk
// ([NewVerifyingKey]), and returns the accumulator claims left to
// the protocols that will prove them. The caller checks st against the
// model and the pass's prompt and output.
func Verify(vk *VerifyingKey, m *model.Model, st statement.Statement, pass Pass, seg inference.Segment, proof *Proof) (*Claims, error) {
	view, err := passView(vk, m, pass)
	if err != nil {
		return nil, err
	}
	_, claims, err := verify(vk, m, view, st, pass, seg, proof, nil)
	return claims, err
}

// passView checks the key and the pass and returns the pass's shapes.
func passView(vk *VerifyingKey, m *model.Model, pass Pass) (*model.Trace, error) {
	if vk == nil || vk.PCS == nil {
		return nil, fmt.Errorf("%w: no verifying key", ErrRejected)
	}
	if err := pass.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	view, err := inference.ShapePass(m, pass.Rows)
	if begins := pass.Begins(); begins != nil {
		view, err = m.ForwardStacked(make([]int, pass.Rows), begins)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return view, nil
}

// VerifyPass checks the committed proofs of a whole pass: proofs[k] of
// segment segs[k], the segments covering the model's blocks in order
// (the LM head in the last), each verified as by [Verify] against the
// pass's shapes computed once, and their chain ([CheckChain]). Every
// accumulator claim must have been proven by the segments' own steps.
// Library API, the native verification of a pass (as [VerifyTurn] is of
// a turn), used by this package's tests; the commands call
// [VerifyPassChecks], which also returns what the segment circuits take.
func VerifyPass(vk *VerifyingKey, m *model.Model, st statement.Statement, pass Pass, segs []inference.Segment, proofs []*Proof) error {
	_, err := VerifyPassChecks(vk, m, st, pass, segs, proofs)
	return err
}

// VerifyPassChecks is [VerifyPass] returning each segment's
// pairing-check scalars ([Shape.VerifyField]), which its segment
// circuit takes as public inputs.
func VerifyPassChecks(vk *VerifyingKey, m *model.Model, st statement.Statement, pass Pass, segs []inference.Segment, proofs []*Proof) ([]*pcs.GroupCheck, error) {
	if len(segs) == 0 || len(segs) != len(proofs) {
		return nil, fmt.Errorf("%w: %d proofs for %d segments", ErrRejected, len(proofs), len(segs))
	}
	view, err := passView(vk, m, pass)
	if err != nil {
		return nil, err
	}
	if err := checkCut(segs, len(view.Layers), m.Config.Vocab); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	checks := make([]*pcs.GroupCheck, len(segs))
	for k, seg := range segs {
		check, claims, err := verify(vk, m, view, st, pass, seg, proofs[k], nil)
		if err != nil {
			return nil, fmt.Errorf("segment %d %v: %w", k, seg, err)
		}
		if len(claims.Accumulators) > 0 {
			return nil, fmt.Errorf("%w: segment %d leaves %d accumulator claims unproven", ErrRejected, k, len(claims.Accumulators))
		}
		checks[k] = check
	}
	if err := CheckChain(segs, proofs); err != nil {
		return nil, err
	}
	if err := checkChosen(segs, proofs); err != nil {
		return nil, err
	}
	return checks, nil
}

// checkCut refuses segments that are not a cut of a pass of nbLayers
// blocks and a vocabulary of vocab: segments of blocks covering [0,
// nbLayers) in order, the last with the LM head, or without it
// (NoHead) and followed by chunks covering [0, vocab) in order.
func checkCut(segs []inference.Segment, nbLayers, vocab int) error {
	next, k := 0, 0
	for ; k < len(segs) && !segs[k].Chunk(); k++ {
		seg := segs[k]
		if seg.From != next || checkSegment(seg, nbLayers, vocab) != nil {
			return fmt.Errorf("segment %d is %v, want blocks from %d", k, seg, next)
		}
		next = seg.To
	}
	if next != nbLayers {
		return fmt.Errorf("the segments end at block %d of %d", next, nbLayers)
	}
	if !segs[k-1].NoHead {
		if k != len(segs) {
			return fmt.Errorf("segment %d is %v after the LM head", k, segs[k])
		}
		return nil
	}
	if k == len(segs) {
		return fmt.Errorf("no segment proves the LM head")
	}
	next = 0
	for ; k < len(segs); k++ {
		seg := segs[k]
		if !seg.Chunk() || seg.VocabFrom != next || checkSegment(seg, nbLayers, vocab) != nil {
			return fmt.Errorf("segment %d is %v, want a chunk of the LM head from column %d", k, seg, next)
		}
		next = seg.VocabTo
	}
	if next != vocab {
		return fmt.Errorf("the chunks end at column %d of %d", next, vocab)
	}
	return nil
}

// checkChosen checks that the chunks of the LM head state the same chosen
// logits: each bounds the margins of its columns by them, and the one
// holding an output token shows its logit is the chosen one.
func checkChosen(segs []inference.Segment, proofs []*Proof) error {
	var first *ArgmaxProof
	for k, seg := range segs {
		if !seg.Chunk() {
			continue
		}
		p := proofs[k].Argmax
		if first == nil {
			first = p
			continue
		}
		if !slices.EqualFunc(first.Chosen, p.Chosen, func(a, b fr.Element) bool { return a.Equal(&b) }) {
			return fmt.Errorf("%w: segment %d states other chosen logits than the first chunk", ErrRejected, k)
		}
	}
	return nil
}

// verify is [Verify] on the pass's shapes view: the field part, then
// the group part (one pairing check) on the proof's commitments and the
// model's fixed table commitments.
func verify(vk *VerifyingKey, m *model.Model, view *model.Trace, st statement.Statement, pass Pass, seg inference.Segment, proof *Proof, turn *Turn) (*pcs.GroupCheck, *Claims, error) {
	if vk == nil {
		return nil, nil, fmt.Errorf("%w: no verifying key", ErrRejected)
	}
	opts := []Option{WithPartVars(vk.PartVars), WithLimbBits(vk.LimbBits)}
	if turn != nil {
		opts = append(opts, WithTurn(*turn))
	}
	s, err := NewShape(view, seg, pass, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	check, claims, err := s.VerifyField(m, st, proof)
	if err != nil {
		return nil, nil, err
	}
	fixed, err := tableCommitments(vk, s.Set)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	commitments := append(proof.Commitments(), fixed...)
	if err := pcs.VerifyGroup(vk.PCS, commitments, &proof.Opening.Opening, check); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return check, claims, nil
}

// VerifyField runs the field part of the verifier of a segment proof of
// model m for the statement st: everything but the group part of the
// grouped opening. It returns the scalars of the opening's pairing check,
// on the proof's commitments ([Proof.Commitments]) followed by the
// fixed commitments to the function tables of the segment's table set
// ([lookup.DenseColumns] order), and the accumulator claims left to
// other protocols. The segment circuits (gadgets/committed) compute the
// same scalars; the aggregator completes the check.
func (s *Shape) VerifyField(m *model.Model, st statement.Statement, proof *Proof) (*pcs.GroupCheck, *Claims, error) {
	l, view, seg := s.Layout, s.Layout.View, s.Segment
	if proof == nil || proof.Lookup == nil || proof.Decomposition == nil || proof.Opening == nil {
		return nil, nil, fmt.Errorf("%w: incomplete proof", ErrRejected)
	}
	if (proof.Boundary != nil) != (l.Boundary >= 0) {
		return nil, nil, fmt.Errorf("%w: a boundary commitment is present exactly when the segment is not the last", ErrRejected)
	}
	if proof.Boundary == nil && !proof.BoundaryEval.IsZero() {
		// The last segment has no boundary: its value field is zero, so
		// that no byte of an encoded proof goes unchecked.
		return nil, nil, fmt.Errorf("%w: a boundary value without a boundary commitment", ErrRejected)
	}
	if (proof.Incoming != nil) != (seg.From > 0) {
		return nil, nil, fmt.Errorf("%w: an incoming commitment is present exactly when the segment is not the first", ErrRejected)
	}
	if len(proof.Cache) != len(s.Cache) {
		return nil, nil, fmt.Errorf("%w: the cache proofs of %d blocks, the turn's segment has %d", ErrRejected, len(proof.Cache), len(s.Cache))
	}
	rqs := s.Requants
	if len(proof.Accumulators) != len(rqs) {
		return nil, nil, fmt.Errorf("%w: %d accumulator values for %d requantizations", ErrRejected, len(proof.Accumulators), len(rqs))
	}
	parts := s.Parts()
	if len(proof.Multiplicities) != len(parts[MultiplicitiesCommitment]) {
		return nil, nil, fmt.Errorf("%w: %d commitments to the multiplicities' parts, want %d", ErrRejected, len(proof.Multiplicities), len(parts[MultiplicitiesCommitment]))
	}
	if len(proof.Tensors) != len(parts[TensorsCommitment]) {
		return nil, nil, fmt.Errorf("%w: %d commitments to the tensors' parts, the layout has %d", ErrRejected, len(proof.Tensors), len(parts[TensorsCommitment]))
	}
	for j := range proof.Limbs {
		if len(proof.Limbs[j]) != len(parts[LimbsCommitment+j]) {
			return nil, nil, fmt.Errorf("%w: %d commitments to limb row %d's parts, the layout has %d", ErrRejected, len(proof.Limbs[j]), j, len(parts[LimbsCommitment+j]))
		}
	}
	rejected := func(err error) (*pcs.GroupCheck, *Claims, error) {
		return nil, nil, fmt.Errorf("%w: %w", ErrRejected, err)
	}

	t := newTranscript(st, seg, s.config.turn)
	t.Absorb(pcs.Digest(proof.Commitments()))

	lp, err := VerifyLookups(t, l, s.Set, s.IDs, proof)
	if err != nil {
		return nil, nil, err
	}
	lc, zc := lp.Lookup, lp.Decomposition
	points, end, err := VerifyRequants(t, l, rqs, s.Shared, proof)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := s.VerifyProjections(t, points, proof.Accumulators, proof.Projections)
	if err != nil {
		return rejected(err)
	}
	pEnds, err := s.VerifyProducts(t, points, proof.Accumulators, proof.Products)
	if err != nil {
		return rejected(err)
	}
	rtEnds, err := s.VerifyRotations(t, points, proof.Accumulators, proof.Rotations)
	if err != nil {
		return rejected(err)
	}
	atEnds, keyEnds, err := s.VerifyContractions(t, points, proof.Accumulators, proof.Attention, proof.Keys)
	if err != nil {
		return rejected(err)
	}
	cacheClaims, err := verifyCache(t, l, s.Cache, cacheReads(s.Contractions, points, atEnds, proof.Attention, keyEnds, proof.Keys), proof.Cache, proof.cacheCommitment())
	if err != nil {
		return rejected(err)
	}
	nEnds, err := s.VerifyNorms(t, points, proof.Accumulators, proof.Norms)
	if err != nil {
		return rejected(err)
	}
	smEnds, err := s.VerifySoftmax(t, proof.Softmax)
	if err != nil {
		return rejected(err)
	}
	rPoint, err := s.VerifyResiduals(t, proof.ResidualEvals)
	if err != nil {
		return rejected(err)
	}
	ePoint := s.EmbeddingPoint(t)
	var eValue fr.Element
	if ePoint != nil {
		if eValue, err = embeddingValue(m, s.Pass.Tokens(), view.Start, view.Begins, ePoint); err != nil {
			return rejected(err)
		}
	}
	amPoint, err := s.VerifyArgmax(t, proof.Argmax)
	if err != nil {
		return rejected(err)
	}
	bPoint := s.BoundaryPoint(t, proof.BoundaryEval)

	gps, rts, ats, nss, sms, res := s.Products, s.Rotations, s.Contractions, s.Norms, s.Softmax, s.Residuals
	claims := batchClaims(l, lc, zc, end, proof, bPoint, s.Groups, inputs)
	claims = append(claims, residualClaims(l, res, rPoint, proof.ResidualEvals, proof.incomingCommitment())...)
	claims = append(claims, embeddingClaim(view, l, ePoint, eValue)...)
	claims = append(claims, productClaims(l, gps, pEnds, proof.Products)...)
	claims = append(claims, rotationClaims(l, rts, rtEnds, proof.Rotations)...)
	claims = append(claims, contractionClaims(l, ats, points, atEnds, proof.Attention, keyEnds, proof.Keys)...)
	claims = append(claims, cacheClaims...)
	claims = append(claims, argmaxClaims(l, s.Argmax, amPoint, proof.Argmax)...)
	claims = append(claims, normClaims(l, nss, nEnds, proof.Norms, proof.incomingCommitment())...)
	claims = append(claims, softmaxClaims(l, sms, smEnds, proof.Softmax)...)
	nbCommitments := s.NbCommitments()
	claims = append(claims, tableClaims(nbCommitments, lc)...)
	check, err := pcs.VerifyGroupFieldParts(t, nbCommitments+len(lookup.DenseColumns(s.Set)), claims, proof.Opening, s.PartVars())
	if err != nil {
		return rejected(err)
	}
	if check.Commitments, err = SelectParts(check.Commitments, s.OpeningParts(), s.Parts()); err != nil {
		return rejected(err)
	}
	projected := s.projected()
	out := &Claims{}
	for q, rq := range rqs {
		if !projected[rq] {
			out.Accumulators = append(out.Accumulators, poly.Claim[fr.Element]{Point: points[q], Value: proof.Accumulators[q]})
			out.Requants = append(out.Requants, rq)
		}
	}
	return check, out, nil
}
