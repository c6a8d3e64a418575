package committed

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/sumcheck"
)

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
