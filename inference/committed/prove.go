package committed

import (
	"fmt"
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
	"github.com/veriformer/veriformer/protocol/requant"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/sumcheck"
)

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

// limbValues returns the field elements 0, 1, …, 2¹⁶ − 1.
var limbValues = sync.OnceValue(func() *[1 << 16]fr.Element {
	t := new([1 << 16]fr.Element)
	for v := range t {
		t[v].SetUint64(uint64(v))
	}
	return t
})
