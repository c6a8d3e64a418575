package committed

import (
	"errors"
	"math/big"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/linear"
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
