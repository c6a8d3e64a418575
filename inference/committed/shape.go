package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/lookup/table"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
)

// Shape is what the verifier of one segment derives from the pass's
// shapes alone, before it reads a proof: the layout, the lookups' table
// set, and every step of the verifier with the blocks it reads. The
// in-circuit verifier (gadgets/committed) is built from it, so the
// segment circuit's layout is the native verifier's.
type Shape struct {
	// Trace is the shape pass (inference.ShapePass): shapes and ranges,
	// no data. The steps are computed on Layout.View, which is Trace but
	// in a chunk of the LM head (headChunk).
	Trace   *model.Trace
	Segment inference.Segment
	Pass    Pass
	Layout  *Layout
	Set     *table.Set
	IDs     *TableIDs
	// Requants are the segment's requantizations ([Requants] order) and
	// Index their positions; Shared maps a projection to the first of
	// its group, whose row coordinates its point takes.
	Requants []*model.Requant
	Index    map[*model.Requant]int
	Shared   map[*model.Requant]*model.Requant
	// The steps after the requantizations, in the verifier's order.
	Groups       []ProjectionGroup
	Products     []GatedProduct
	Rotations    []Rotation
	Contractions []Contraction
	Norms        []*NormStep
	Softmax      []*SoftmaxStep
	Residuals    *Residuals
	// Argmax is the argmax step of a segment with the LM head (nil in
	// the others).
	Argmax *ArgmaxStep
	// Cache has, in a turn, the cache step of each block of the segment.
	Cache []CacheStep

	config config
	// parts is [Shape.Parts], computed once.
	parts [][]int
}

// NewShape computes the shape of segment seg of the pass over the shape
// pass view, for proofs made with the options opts.
func NewShape(view *model.Trace, seg inference.Segment, pass Pass, opts ...Option) (*Shape, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	s := &Shape{Trace: view, Segment: seg, Pass: pass, config: cfg}
	if s.Layout, err = NewLayout(view, seg, pass, opts...); err != nil {
		return nil, err
	}
	l := s.Layout
	view = l.View
	if s.Set, s.IDs, err = TableSet(l); err != nil {
		return nil, err
	}
	if s.Cache, err = cacheSteps(view, seg, l, cfg.turn, pass); err != nil {
		return nil, err
	}
	s.parts = ownParts(l, s.PartVars(), s.Set.NbVars, l.Boundary >= 0, seg.From > 0, len(s.Cache))
	Requants(view, seg, func(r *model.Requant) { s.Requants = append(s.Requants, r) })
	s.Index = requantIndex(s.Requants)
	s.Groups = projectionGroups(view, seg)
	s.Shared = sharedRows(s.Groups)
	if s.Products, err = gatedProducts(view, seg, l, s.Index); err != nil {
		return nil, err
	}
	if s.Rotations, err = rotationsOf(view, seg, l, s.Index); err != nil {
		return nil, err
	}
	if s.Contractions, err = attentionContractions(view, seg, l, s.Index, cfg.turn != nil); err != nil {
		return nil, err
	}
	if s.Norms, err = normSteps(view, seg, l, s.Index); err != nil {
		return nil, err
	}
	if s.Softmax, err = softmaxSteps(l); err != nil {
		return nil, err
	}
	if s.Residuals, err = residualsOf(view, seg, l); err != nil {
		return nil, err
	}
	if s.Argmax, err = newArgmaxStep(view, l, pass, seg); err != nil {
		return nil, err
	}
	return s, nil
}

// The verifier's steps after [VerifyRequants], in its order, each under
// its label and each the twin of a function of gadgets/committed.

// VerifyProjections checks the projection proofs from the accumulator
// claims (points and acc as VerifyRequants leaves them), and the claims
// they leave on the model's weights and biases; it returns the claims on
// the groups' inputs.
func (s *Shape) VerifyProjections(t *pcs.Transcript, points [][]fr.Element, acc []fr.Element, proofs []*linear.Proof[fr.Element]) ([]poly.Claim[fr.Element], error) {
	return verifyProjections(t, s.Groups, s.Index, points, acc, proofs)
}

// VerifyProducts replays the gated products' sum-checks (label
// "committed/product") and returns their end points.
func (s *Shape) VerifyProducts(t *pcs.Transcript, points [][]fr.Element, acc []fr.Element, proofs []FactorProof) ([][]fr.Element, error) {
	return verifyFactors(t, "committed/product", productSteps(s.Layout, s.Products, nil, points, acc), proofs)
}

// VerifyRotations replays the RoPE rotations' sum-checks (label
// "committed/rope") and returns their end points.
func (s *Shape) VerifyRotations(t *pcs.Transcript, points [][]fr.Element, acc []fr.Element, proofs []FactorProof) ([][]fr.Element, error) {
	return verifyFactors(t, "committed/rope", rotationSteps(s.Layout, s.Rotations, nil, points, acc), proofs)
}

// VerifyContractions replays the attention contractions' sum-checks
// (label "committed/attention") and the scores' key sum-checks (label
// "committed/keys"), and returns the end points of both.
func (s *Shape) VerifyContractions(t *pcs.Transcript, points [][]fr.Element, acc []fr.Element, proofs []FactorProof, keys []KeyProof) (ends, keyEnds [][]fr.Element, err error) {
	if ends, err = verifyFactors(t, "committed/attention", contractionSteps(s.Layout, s.Contractions, nil, points, acc), proofs); err != nil {
		return nil, nil, err
	}
	if keyEnds, err = verifyKeys(t, s.Contractions, points, proofs, ends, keys); err != nil {
		return nil, nil, err
	}
	return ends, keyEnds, nil
}

// VerifyNorms replays the norm steps (label "committed/norm"); it
// returns, per norm, ρ₁ and the two sum-checks' end points.
func (s *Shape) VerifyNorms(t *pcs.Transcript, points [][]fr.Element, acc []fr.Element, proofs []NormProof) ([][3][]fr.Element, error) {
	return verifyNorms(t, s.Norms, proofs, points, acc)
}

// VerifySoftmax replays the softmax steps (label "committed/softmax").
func (s *Shape) VerifySoftmax(t *pcs.Transcript, proofs []SoftmaxProof) ([]SoftmaxEnds, error) {
	return verifySoftmax(t, s.Softmax, proofs)
}

// VerifyResiduals replays the residual step (label "committed/residual")
// and returns its point (nil without residual adds).
func (s *Shape) VerifyResiduals(t *pcs.Transcript, evals []fr.Element) ([]fr.Element, error) {
	return verifyResiduals(t, s.Layout, s.Residuals, evals)
}

// EmbeddingPoint draws the embedding's point in the first segment (label
// "committed/embedding"; nil in the others).
func (s *Shape) EmbeddingPoint(t *pcs.Transcript) []fr.Element {
	return embeddingPoint(t, s.Layout.View, s.Layout, s.Segment.From == 0)
}

// VerifyArgmax replays the argmax step of a segment with the LM head
// (label "committed/argmax") and returns its point (nil in the other
// segments).
func (s *Shape) VerifyArgmax(t *pcs.Transcript, p *ArgmaxProof) ([]fr.Element, error) {
	return verifyArgmax(t, s.Layout, s.Argmax, p)
}

// BoundaryPoint draws the point of the boundary's claim and absorbs its
// value (label "committed/boundary"); nil in a segment with the LM head.
func (s *Shape) BoundaryPoint(t *pcs.Transcript, eval fr.Element) []fr.Element {
	if s.Layout.Boundary < 0 {
		return nil
	}
	t.Label("committed/boundary")
	p := t.Challenges(boundaryVars(s.Layout))
	t.Absorb(eval)
	return p
}

// NbCommitments is the number of a segment proof's own commitments
// ([Proof.Commitments]): the tensors, the multiplicities, the limb rows,
// then the boundary (all segments but the last) and the incoming stream
// (all segments but the first).
func (s *Shape) NbCommitments() int {
	n := boundaryCommitment
	if s.Layout.Boundary >= 0 {
		n++
	}
	if s.Segment.From > 0 {
		n++
	}
	return n + cacheCommitments*len(s.Cache)
}

// PartVars is the number of variables of the parts of the segment's
// committed MLEs: the options' (default [PartVars]), or more when the
// boundary or the incoming stream has more variables (they are
// committed whole).
func (s *Shape) PartVars() int {
	var incoming int
	if s.Segment.From > 0 {
		incoming = streamVars(&s.Trace.Layers[s.Segment.From-1].Output)
	}
	return segmentPartVars(s.Layout, max(incoming, cacheVars(s.Cache)), s.config.partVars)
}

// Parts lists, per own commitment of the grouped opening (tensors,
// multiplicities, limb rows, then the boundary and the incoming stream
// when present), the parts a proof commits, in order: those the layout
// fills of the tensors and of each limb row, the one part of the others.
// The lists are the shape's own (computed once): read them, do not
// modify them.
func (s *Shape) Parts() [][]int {
	return s.parts
}

// NbParts is the number of commitments of a segment proof
// ([Proof.Commitments]): the committed parts of its own commitments.
func (s *Shape) NbParts() int {
	n := 0
	for _, p := range s.Parts() {
		n += len(p)
	}
	return n
}

// PartIndex returns the index among [Proof.Commitments] of the first
// committed part of own commitment j (MultiplicitiesCommitment,
// [Shape.BoundaryCommitment], [Shape.IncomingCommitment]).
func (s *Shape) PartIndex(j int) int {
	n := 0
	for _, p := range s.Parts()[:j] {
		n += len(p)
	}
	return n
}

// OpeningParts is the number of parts of every commitment of the batch
// opening, the own ones then the function tables' (one each), as
// pcs.VerifyGroupFieldParts lists their scalars; the proof commits those
// of [Shape.Parts].
func (s *Shape) OpeningParts() []int {
	m := s.PartVars()
	out := []int{pcs.Parts(s.Layout.NbVars, m), pcs.Parts(s.Set.NbVars, m)}
	for range limbRows {
		out = append(out, pcs.Parts(s.Layout.NbVars, m))
	}
	for range s.NbCommitments() - boundaryCommitment {
		out = append(out, 1)
	}
	for _, d := range lookup.DenseColumns(s.Set) {
		out = append(out, pcs.Parts(tableVars(&s.Set.Tables[d.Table]), m))
	}
	return out
}

// NbTableParts is the number of the key's commitments to function
// tables the segment's opening reads ([VerifyingKey.TableCommitments]):
// every part of each.
func (s *Shape) NbTableParts() int {
	n := 0
	for _, p := range s.OpeningParts()[s.NbCommitments():] {
		n += p
	}
	return n
}

// PartIndices returns the indices among [Proof.Commitments] of the
// multiplicities' first part, the boundary's and the incoming stream's
// commitments (−1 for an absent one), as the aggregator reads them.
func (s *Shape) PartIndices() (multiplicities, boundary, incoming int) {
	boundary, incoming = -1, -1
	if s.Layout.Boundary >= 0 {
		boundary = s.PartIndex(s.BoundaryCommitment())
	}
	if s.Segment.From > 0 {
		incoming = s.PartIndex(s.IncomingCommitment())
	}
	return s.PartIndex(MultiplicitiesCommitment), boundary, incoming
}

// BoundaryCommitment is the index of the boundary's commitment (valid
// when the segment is not the last).
func (s *Shape) BoundaryCommitment() int { return boundaryCommitment }

// IncomingCommitment is the index of the incoming stream's commitment
// (valid when the segment is not the first).
func (s *Shape) IncomingCommitment() int {
	if s.Layout.Boundary >= 0 {
		return boundaryCommitment + 1
	}
	return boundaryCommitment
}

// CacheCommitment is the index of a turn's first cache commitment (the
// first block's KeysIn; [cacheCommitments] per block follow).
func (s *Shape) CacheCommitment() int {
	return s.NbCommitments() - cacheCommitments*len(s.Cache)
}

// Turn returns the turn the shape's proofs prove (nil for a pass from
// position 0).
func (s *Shape) Turn() *Turn { return s.config.turn }

// projected reports the requantizations whose accumulator claims the
// segment's own steps prove (projections, gated products, rotations,
// attention contractions, norms).
func (s *Shape) projected() map[*model.Requant]bool {
	out := map[*model.Requant]bool{}
	for _, g := range s.Products {
		out[s.Requants[g.Q]] = true
	}
	for _, rt := range s.Rotations {
		out[s.Requants[rt.Q]] = true
	}
	for _, k := range s.Contractions {
		out[s.Requants[k.Q]] = true
	}
	for _, n := range s.Norms {
		out[s.Requants[n.q]] = true
	}
	for _, g := range s.Groups {
		for _, mm := range g.MatMuls {
			out[&mm.Requant] = true
		}
	}
	return out
}

// CheckProjected returns an error when a requantization's accumulator
// claim is left to other protocols: a segment circuit proves them all.
func (s *Shape) CheckProjected() error {
	p := s.projected()
	for _, rq := range s.Requants {
		if !p[rq] {
			return fmt.Errorf("committed: the accumulator of %s is not proven by the segment", rq.Out.Name)
		}
	}
	return nil
}

// BatchVars is the number of variables of the segment's batch
// sum-check: its largest commitment's, the stacked MLE's, the table
// set's (the multiplicities and the function tables) or, in a turn, the
// cache's.
func (s *Shape) BatchVars() int {
	return max(s.Layout.NbVars, s.Set.NbVars, cacheVars(s.Cache))
}

// OpeningVars is the number of variables of the segment's HyperKZG
// opening: [Shape.BatchVars], at most [Shape.PartVars].
func (s *Shape) OpeningVars() int {
	return min(s.BatchVars(), s.PartVars())
}

// TableCommitments returns the key's fixed commitments to the function
// tables the segment's opening reads ([lookup.DenseColumns] order of its
// table set): the commitments after the proof's own in its opening.
func (vk *VerifyingKey) TableCommitments(s *Shape) ([]pcs.Commitment, error) {
	return tableCommitments(vk, s.Set)
}
