package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	glinear "github.com/veriformer/veriformer/gadgets/linear"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

// Proof is a native committed segment proof in circuit, laid out by the
// segment's shape: every value the verifier reads but the commitments,
// which enter as digests, and the opening's group elements, which the
// aggregator holds.
type Proof struct {
	Lookups     LookupProof
	Requant     RequantProof
	Projections []glinear.Proof
	Products    []FactorProof
	Rotations   []FactorProof
	Attention   []FactorProof
	Keys        []KeyProof
	Norms       []NormProof
	Softmax     []SoftmaxProof
	// ResidualEvals are the residual tensors' values at the residual
	// point.
	ResidualEvals []frontend.Variable
	// Argmax holds the last segment's argmax proof (empty in the
	// others).
	Argmax []ArgmaxProof
	// BoundaryEval holds the boundary's value (empty in the last
	// segment).
	BoundaryEval []frontend.Variable
	// Cache holds a turn's cache proofs, one per block (empty in a pass
	// from position 0).
	Cache   []CacheProof
	Opening OpeningProof
}

// OpeningProof is the field part of the grouped opening that the proof
// carries: the grouping sum-check and the evaluation triples (the
// digests of its points are public inputs, [Publics]).
type OpeningProof struct {
	SumCheck    gsumcheck.Proof
	Evaluations [][3]frontend.Variable
}

// PlaceholderProof sizes a Proof for a segment's shape.
func PlaceholderProof(s *native.Shape) (Proof, error) {
	lk, err := PlaceholderLookupProof(s.Layout, s.Set)
	if err != nil {
		return Proof{}, err
	}
	n, k := s.BatchVars(), s.OpeningVars()
	p := Proof{
		Lookups:       lk,
		Requant:       PlaceholderRequantProof(s.Layout, s.Requants),
		Projections:   PlaceholderProjections(s),
		Products:      PlaceholderProducts(s),
		Rotations:     PlaceholderRotations(s),
		Attention:     PlaceholderContractions(s),
		Keys:          PlaceholderKeys(s),
		Norms:         PlaceholderNorms(s),
		Softmax:       PlaceholderSoftmax(s),
		ResidualEvals: make([]frontend.Variable, len(s.Residuals.Blocks)),
		Cache:         PlaceholderCache(s),
		Opening:       OpeningProof{SumCheck: gsumcheck.PlaceholderProof(n, 2), Evaluations: make([][3]frontend.Variable, k)},
	}
	if a := PlaceholderArgmax(s); a != nil {
		p.Argmax = []ArgmaxProof{*a}
	}
	if s.Layout.Boundary >= 0 {
		p.BoundaryEval = make([]frontend.Variable, 1)
	}
	return p, nil
}

// ValueOfProof returns the assignment of a native segment proof.
func ValueOfProof(p *native.Proof) Proof {
	bp := gpcs.ValueOfGroupProof(p.Opening)
	out := Proof{
		Lookups:       ValueOfLookupProof(p),
		Requant:       ValueOfRequantProof(p),
		Projections:   ValueOfProjections(p.Projections),
		Products:      ValueOfFactors(p.Products),
		Rotations:     ValueOfFactors(p.Rotations),
		Attention:     ValueOfFactors(p.Attention),
		Keys:          ValueOfKeys(p.Keys),
		Norms:         ValueOfNorms(p.Norms),
		Softmax:       ValueOfSoftmax(p.Softmax),
		ResidualEvals: gpoly.ValuesOf(p.ResidualEvals),
		Cache:         ValueOfCache(p.Cache),
		Opening:       OpeningProof{SumCheck: bp.SumCheck, Evaluations: bp.Evaluations},
	}
	if a := ValueOfArgmax(p.Argmax); a != nil {
		out.Argmax = []ArgmaxProof{*a}
	}
	if p.Boundary != nil {
		out.BoundaryEval = []frontend.Variable{field.BigInt(&p.BoundaryEval)}
	}
	return out
}

// Publics are a segment circuit's public inputs, in order: the
// statement (model id, input and output digests), the digests of the
// proof's commitments ([pcs.Digest] of native Proof.Commitments) and of
// its multiplicities' commitment alone, the digest of the opening's
// folds, and the scalars of the opening's pairing check (native
// pcs.GroupCheck: one per commitment — the proof's, then the model's
// fixed table commitments — one per fold, two of the quotient and
// three of the generator). The opening's quotient W is absorbed after
// the last challenge, so the field part reads nothing after it: its
// digest is not an input, W enters the aggregator's pairing check
// alone. The aggregator recomputes every digest from the points and
// completes the pairing check with the scalars. A chunk of the LM head
// also has its chosen logits (native ArgmaxProof.Chosen), which the
// aggregator requires equal in every chunk of a pass; the other segments
// have none. A turn's segment also has Turn = (Start, Keep): the state
// in's row count, which the aggregator takes from the state in, and the
// rows the turn caches (native TurnKeep), which it adds to it.
type Publics struct {
	Statement   [3]frontend.Variable
	Digest      frontend.Variable
	MDigest     frontend.Variable
	FoldDigest  frontend.Variable
	Commitments []frontend.Variable
	Folds       []frontend.Variable
	Quotient    [2]frontend.Variable
	Generator   [3]frontend.Variable
	Chosen      []frontend.Variable
	Turn        []frontend.Variable
}

// PlaceholderPublics returns the public inputs of the segment circuit of
// shape s, sized, to compile.
func PlaceholderPublics(s *native.Shape) (Publics, error) {
	p, err := PlaceholderProof(s)
	if err != nil {
		return Publics{}, err
	}
	n := len(p.Opening.Evaluations)
	var chosen []frontend.Variable
	if s.Segment.Chunk() {
		chosen = make([]frontend.Variable, s.Pass.Rows)
	}
	var turn []frontend.Variable
	if s.Turn() != nil {
		turn = make([]frontend.Variable, 2)
	}
	return Publics{
		Commitments: make([]frontend.Variable, s.NbParts()+s.NbTableParts()),
		Folds:       make([]frontend.Variable, max(n-1, 0)),
		Chosen:      chosen,
		Turn:        turn,
	}, nil
}

// ValueOfPublics returns the public inputs of the segment circuit for a
// native proof of the statement st and the scalars of its opening's check
// (native Shape.VerifyField).
func ValueOfPublics(s *native.Shape, st statement.Statement, proof *native.Proof, check *pcs.GroupCheck) Publics {
	stmt := statement.Elements[fr.Element](st)
	d := pcs.Digest(proof.Commitments())
	md := pcs.Digest(proof.Multiplicities)
	bp := gpcs.ValueOfGroupProof(proof.Opening)
	p := Publics{
		Digest: field.BigInt(&d), MDigest: field.BigInt(&md),
		FoldDigest:  bp.FoldDigest,
		Commitments: gpoly.ValuesOf(check.Commitments),
		Folds:       gpoly.ValuesOf(check.Folds),
		Quotient:    [2]frontend.Variable(gpoly.ValuesOf(check.Quotient[:])),
		Generator:   [3]frontend.Variable(gpoly.ValuesOf(check.Generator[:])),
	}
	if s.Segment.Chunk() && proof.Argmax != nil {
		p.Chosen = gpoly.ValuesOf(proof.Argmax.Chosen)
	}
	if t := s.Turn(); t != nil {
		p.Turn = []frontend.Variable{t.Start, native.TurnKeep(s.Pass)}
	}
	for i := range stmt {
		p.Statement[i] = field.BigInt(&stmt[i])
	}
	return p
}

// VerifySegment is the whole segment circuit's check, for a segment of
// shape s of model m: the request (its prompt and output in buffers of
// the bucket's rows, its lengths) against the statement's digests
// (gadgets/statement.Request.Bind), then [Verify], then its pairing-check
// scalars equal to the public ones (and a chunk's chosen logits to its
// public ones). The model id is not checked here: it seeds the
// transcript, and the aggregator derives it from the segments' verifying
// keys (package recursion), which fix the model since its weights are
// constants of the circuits.
func VerifySegment(api frontend.API, m *model.Model, s *native.Shape, pub Publics, req gstatement.Request, p Proof) error {
	if len(req.Prompt) != s.Pass.Rows {
		return fmt.Errorf("committed: request buffers of %d tokens for a bucket of %d rows", len(req.Prompt), s.Pass.Rows)
	}
	bound, err := req.Bind(api, pub.Statement[1], pub.Statement[2])
	if err != nil {
		return err
	}
	var turn *Turn
	if s.Turn() != nil {
		if len(pub.Turn) != 2 {
			return fmt.Errorf("committed: a turn's segment without its start and its kept rows")
		}
		start, err := privateCopy(api, pub.Turn[0])
		if err != nil {
			return err
		}
		keep, err := privateCopy(api, pub.Turn[1])
		if err != nil {
			return err
		}
		api.AssertIsEqual(keep, turnKeep(api, req.PromptLen, req.OutputLen, s.Pass.Rows))
		turn = &Turn{Start: start, Keep: keep}
	}
	return verifyBound(api, m, s, pub, &bound, p, turn)
}

// VerifyBatchSegment is [VerifySegment] for a segment of a batch's pass
// (native "Batches"): the batch's requests (gadgets/statement.BatchRequest)
// against the statement (model id, list digest, number of requests)
// with BatchRequest.Bind, then [Verify] with the layout they give, then
// the scalars as VerifySegment.
func VerifyBatchSegment(api frontend.API, m *model.Model, s *native.Shape, pub Publics, req gstatement.BatchRequest, p Proof) error {
	if !stacked(s) || s.Turn() != nil {
		return fmt.Errorf("committed: a batch's requests for a shape that is not a batch's pass")
	}
	if len(req.Requests) == 0 || len(req.Requests[0].Prompt) != s.Pass.Rows {
		return fmt.Errorf("committed: a batch's requests for another bucket than the pass's %d rows", s.Pass.Rows)
	}
	bound, err := req.Bind(api, pub.Statement[1], pub.Statement[2])
	if err != nil {
		return err
	}
	return verifyBound(api, m, s, pub, &bound, p, nil)
}

// verifyBound is the segment's check after the request's binding:
// [Verify], then the pairing-check scalars (and a chunk's chosen logits)
// equal to the public ones.
func verifyBound(api frontend.API, m *model.Model, s *native.Shape, pub Publics, bound *gstatement.Bound, p Proof, turn *Turn) error {
	check, err := Verify(api, m, s, pub.Statement[:], bound, pub.Digest, pub.MDigest, pub.FoldDigest, p, turn)
	if err != nil {
		return err
	}
	assertAll := func(got, want []frontend.Variable) error {
		if len(got) != len(want) {
			return fmt.Errorf("committed: %d scalars for %d", len(got), len(want))
		}
		for i := range got {
			api.AssertIsEqual(got[i], want[i])
		}
		return nil
	}
	if err := assertAll(check.Commitments, pub.Commitments); err != nil {
		return err
	}
	if err := assertAll(check.Folds, pub.Folds); err != nil {
		return err
	}
	if err := assertAll(check.Quotient[:], pub.Quotient[:]); err != nil {
		return err
	}
	if s.Segment.Chunk() {
		if len(p.Argmax) != 1 {
			return fmt.Errorf("committed: a chunk without its argmax proof")
		}
		if err := assertAll(p.Argmax[0].Chosen, pub.Chosen); err != nil {
			return err
		}
	}
	return assertAll(check.Generator[:], pub.Generator[:])
}

// Verify is native Shape.VerifyField in circuit: the segment's verifier
// from its transcript's seed (the statement, the segment, the
// commitments' digest) to the field part of the grouped opening, every
// step the twin of the native one. req is the request bound to the
// statement by the caller (the pass's tokens and live rows), digest and mDigest the
// digests of the proof's commitments and of its multiplicities', and
// foldDigest that of the opening's folds, and turn a turn's variables
// (nil for a pass from position 0). It returns the scalars of the
// opening's pairing check.
func Verify(api frontend.API, m *model.Model, s *native.Shape, stmt []frontend.Variable, req *gstatement.Bound, digest, mDigest, foldDigest frontend.Variable, p Proof, turn *Turn) (*gpcs.GroupCheck, error) {
	l := s.Layout
	if (turn != nil) != (s.Turn() != nil) {
		return nil, fmt.Errorf("committed: a turn's variables exactly for a turn's shape")
	}
	if turn != nil && len(s.Rotations) > 0 && (m.Quant.RopePositions < s.Turn().Capacity || m.Quant.Tables.RopeCos == nil) {
		return nil, fmt.Errorf("committed: a cache of %d rows beyond the RoPE tables' %d positions", s.Turn().Capacity, m.Quant.RopePositions)
	}
	if req == nil || len(req.Tokens) != s.Pass.Rows+1 {
		return nil, fmt.Errorf("committed: a request of another bucket than the pass's %d rows", s.Pass.Rows)
	}
	if (req.Starts != nil) != stacked(s) {
		return nil, fmt.Errorf("committed: a batch's layout exactly for a batch's shape")
	}
	if req.Starts != nil {
		if turn != nil {
			return nil, fmt.Errorf("committed: a batch's pass is not a turn")
		}
		if err := checkStarts(api, req.Starts, s.Pass.Rows); err != nil {
			return nil, err
		}
	}
	if err := s.CheckProjected(); err != nil {
		return nil, err
	}
	t, err := transcript.New(api, native.Domain, stmt...)
	if err != nil {
		return nil, err
	}
	t.Absorb(s.Segment.From, s.Segment.To)
	switch {
	case s.Segment.Chunk():
		t.Absorb(s.Segment.VocabFrom+2, s.Segment.VocabTo)
	case s.Segment.NoHead:
		t.Absorb(1)
	}
	if turn != nil {
		t.Label("committed/turn")
		t.Absorb(turn.Start, s.Turn().Capacity)
	}
	t.Absorb(digest)

	lc, err := VerifyLookups(api, t, l, s.Set, s.IDs, mDigest, p.Lookups)
	if err != nil {
		return nil, err
	}
	points, end, err := VerifyRequants(api, t, l, s.Requants, s.Shared, p.Requant)
	if err != nil {
		return nil, err
	}
	acc := p.Requant.Accumulators
	inputs, err := verifyProjections(api, t, s, points, acc, p.Projections)
	if err != nil {
		return nil, err
	}
	pEnds, err := verifyFactors(api, t, "committed/product", productSteps(api, s, points, acc), p.Products)
	if err != nil {
		return nil, err
	}
	rtEnds, err := verifyFactors(api, t, "committed/rope", rotationSteps(api, m, s, turn, req.Starts, points, acc), p.Rotations)
	if err != nil {
		return nil, err
	}
	atEnds, keyEnds, err := verifyContractions(api, t, s, turn, req.Starts, points, acc, p.Attention, p.Keys)
	if err != nil {
		return nil, err
	}
	var cacheClaims []gpcs.Claim
	if turn != nil {
		if cacheClaims, err = verifyCache(api, t, s, turn, cacheReads(s, points, atEnds, p.Attention, keyEnds, p.Keys), p.Cache); err != nil {
			return nil, err
		}
	} else if len(p.Cache) != 0 {
		return nil, fmt.Errorf("committed: cache proofs outside a turn")
	}
	nEnds, err := verifyNorms(api, t, s, points, acc, p.Norms)
	if err != nil {
		return nil, err
	}
	smEnds, err := verifySoftmax(api, t, s, p.Softmax, turn, req.Starts)
	if err != nil {
		return nil, err
	}
	rPoint, err := verifyResiduals(api, t, s, p.ResidualEvals)
	if err != nil {
		return nil, err
	}
	ePoint := embeddingPoint(t, s)
	var eValue frontend.Variable
	if ePoint != nil {
		tokens := req.Tokens[:s.Pass.Rows]
		if eValue, err = embeddingValue(api, m, s, turn, req.Starts, tokens, ePoint); err != nil {
			return nil, err
		}
	}
	var am *ArgmaxProof
	if (len(p.Argmax) == 1) != (s.Argmax != nil) || len(p.Argmax) > 1 {
		return nil, fmt.Errorf("committed: %d argmax proofs", len(p.Argmax))
	}
	if len(p.Argmax) == 1 {
		am = &p.Argmax[0]
	}
	amPoint, err := verifyArgmax(api, t, s, req, am)
	if err != nil {
		return nil, err
	}
	bPoint, err := boundaryPoint(t, s, p.BoundaryEval)
	if err != nil {
		return nil, err
	}

	claims := batchClaims(api, s, lc, end, p, bPoint, inputs)
	claims = append(claims, residualClaims(s, rPoint, p.ResidualEvals)...)
	claims = append(claims, embeddingClaim(s, ePoint, eValue)...)
	claims = append(claims, productClaims(s, pEnds, p.Products)...)
	claims = append(claims, rotationClaims(api, s, rtEnds, p.Rotations)...)
	claims = append(claims, contractionClaims(s, points, atEnds, p.Attention, keyEnds, p.Keys)...)
	claims = append(claims, cacheClaims...)
	claims = append(claims, argmaxClaims(api, s, amPoint, am)...)
	claims = append(claims, normClaims(s, nEnds, p.Norms, s.IncomingCommitment())...)
	claims = append(claims, softmaxClaims(s, smEnds, p.Softmax)...)
	first, parts := s.NbCommitments(), s.Parts()
	for k, c := range lc.Lookup.Tables {
		claims = append(claims, gpcs.Claim{Commitment: first + k, Point: c.Point, Value: c.Value})
	}
	// The quotient's digest is absorbed after the last challenge: nothing
	// reads the transcript after it.
	bp := gpcs.GroupProof{SumCheck: p.Opening.SumCheck, Evaluations: p.Opening.Evaluations, FoldDigest: foldDigest, QuotientDigest: 0}
	check, err := gpcs.VerifyGroupFieldParts(api, t, first+len(lc.Lookup.Tables), claims, bp, s.PartVars())
	if err != nil {
		return nil, err
	}
	// The scalars of the committed parts only: the layout's empty parts
	// are the identity.
	kept, err := native.SelectParts(check.Commitments, s.OpeningParts(), parts)
	if err != nil {
		return nil, err
	}
	check.Commitments = kept
	return check, nil
}

// batchClaims is native batchClaims in circuit: the lookups' and the
// decomposition's claims, the requantizations' claim on s, the
// projections' claims on their inputs and the boundary's two.
func batchClaims(api frontend.API, s *native.Shape, lc *LookupClaims, end []frontend.Variable, p Proof, bPoint []frontend.Variable, inputs []gpoly.Claim) []gpcs.Claim {
	l := s.Layout
	zc := lc.Decomposition
	claims := []gpcs.Claim{
		{Commitment: native.MultiplicitiesCommitment, Point: lc.Lookup.Multiplicities.Point, Value: lc.Lookup.Multiplicities.Value},
		{Commitment: native.TensorsCommitment, Point: zc[0].Point, Value: zc[0].Value},
	}
	point := lc.Lookup.Columns[1].Point
	m := 0
	for _, sl := range l.Slots {
		if sl.Function < 0 {
			local := point[l.LookupVars-sl.NbVars:]
			claims = append(claims, gpcs.Claim{Commitment: native.LimbsCommitment + sl.Row, Point: blockPoint(l, sl.Block, local), Value: p.Lookups.LimbEvals[m]})
			m++
		}
	}
	limbs := native.NbDecompositionTables - 2*native.MaxLimbs
	for j := range 2 * native.MaxLimbs {
		claims = append(claims, gpcs.Claim{Commitment: native.LimbsCommitment + j, Point: zc[limbs+j].Point, Value: zc[limbs+j].Value})
	}
	for f, fn := range l.Functions {
		local := point[len(point)-l.Blocks[fn.In].NbVars:]
		claims = append(claims, blockClaim(l, fn.In, local, p.Lookups.Functions[f][0]), blockClaim(l, fn.Out, local, p.Lookups.Functions[f][1]))
	}
	claims = append(claims, gpcs.Claim{Commitment: native.TensorsCommitment, Point: end, Value: p.Requant.Eval})
	for k, g := range s.Groups {
		claims = append(claims, blockClaim(l, l.Index[g.X], inputs[k].Point, inputs[k].Value))
	}
	if bPoint != nil {
		blk := &l.Blocks[l.Boundary]
		local := bPoint[len(bPoint)-blk.NbVars:]
		v := p.BoundaryEval[0]
		link := v
		if len(bPoint) != blk.NbVars {
			link = api.Div(v, api.Sub(1, bPoint[0]))
		}
		claims = append(claims,
			gpcs.Claim{Commitment: s.BoundaryCommitment(), Point: bPoint, Value: v},
			blockClaim(l, l.Boundary, local, link))
	}
	return claims
}
