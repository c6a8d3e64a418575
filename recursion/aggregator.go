package recursion

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/std/commitments/pedersen"
	"github.com/consensys/gnark/std/hash/poseidon2"
	"github.com/consensys/gnark/std/math/bits"
	"github.com/consensys/gnark/std/math/emulated"
	stdgroth16 "github.com/consensys/gnark/std/recursion/groth16"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/transcript"
)

// SegmentShape is what the committed aggregator must know of one
// committed segment circuit (circuits.Committed) at compile time:
// its Groth16 proof's Pedersen commitments (0 or 1, none on a public
// input), the numbers of its proof's own PCS commitments (every
// committed part: the tensors' parts come first) and of the model's
// fixed table commitments its opening reads, the opening's number of
// variables, the index and number of its multiplicities' parts and the
// indices of its boundary and incoming commitments among its own (the
// last two −1 when absent: the last segment has no boundary, the first
// no incoming stream), and for a chunk of the LM head (a segment of the
// LM head over a range of the vocabulary, inference.Segment.Chunk) the
// number of its chosen logits, one per output token (0 in the other
// segments).
type SegmentShape struct {
	NbPedersen       int
	NbCommitments    int
	NbTables         int
	NbVars           int
	Multiplicities   int
	NbMultiplicities int
	Boundary         int
	Incoming         int
	NbChosen         int
	// Turn is set for a turn's segment (native committed Turns): its
	// public inputs end with the turn's Start and Keep.
	Turn *SegmentTurn
}

// SegmentTurn is what the aggregator must know of a turn's segment: From,
// the first of its blocks, Blocks their number (0 for a chunk of the LM
// head), and Cache, the index among its own commitments of the first
// block's KeysIn (then ValuesIn, Keys, Values, and the next block's).
type SegmentTurn struct {
	From, Blocks, Cache int
}

// NbPublic is the number of public inputs of the segment circuit: the
// statement (3), the digests of the proof's commitments, of its
// multiplicities' commitment and of the opening's folds (3), then the
// scalars of the opening's pairing check: one per commitment (own parts
// then tables), one per fold, two of the quotient and three of the
// generator; then a chunk's chosen logits.
func (s SegmentShape) NbPublic() int {
	n := 3 + 3 + s.NbCommitments + s.NbTables + (s.NbVars - 1) + 5 + s.NbChosen
	if s.Turn != nil {
		n += 2
	}
	return n
}

// chunk reports whether s is a chunk of the LM head's.
func (s SegmentShape) chunk() bool { return s.NbChosen > 0 }

// Bounds of a segment shape, far above any model's: what a decoder of a
// shape from elsewhere checks before anything is allocated from it.
const (
	MaxCommitments = 1 << 12
	MaxChosen      = 1 << 16
)

// Check checks a shape's fields: their relations, and each within the
// package's bounds.
func (s SegmentShape) Check() error { return s.check() }

func (s SegmentShape) check() error {
	if s.NbCommitments > MaxCommitments || s.NbTables > MaxCommitments || s.NbChosen > MaxChosen ||
		(s.Turn != nil && (s.Turn.From > MaxCommitments || s.Turn.Blocks > MaxCommitments || s.Turn.Cache > MaxCommitments)) {
		return fmt.Errorf("recursion: committed segment shape %+v: beyond the bounds", s)
	}
	if s.NbPedersen < 0 || s.NbPedersen > 1 {
		return fmt.Errorf("recursion: committed segments must have 0 or 1 Pedersen commitments, have %d", s.NbPedersen)
	}
	if s.NbCommitments < 2 || s.NbTables < 0 || s.NbVars < 1 || s.NbVars > pcs.MaxNbVars || s.NbChosen < 0 ||
		s.Multiplicities < 1 || s.NbMultiplicities < 1 || s.Multiplicities+s.NbMultiplicities > s.NbCommitments {
		return fmt.Errorf("recursion: committed segment shape %+v", s)
	}
	for _, i := range []int{s.Boundary, s.Incoming} {
		if i < -1 || i >= s.NbCommitments || (i >= 0 && i < s.Multiplicities+s.NbMultiplicities) {
			return fmt.Errorf("recursion: committed segment shape %+v: boundary or incoming index", s)
		}
	}
	if t := s.Turn; t != nil && (t.From < 0 || t.Blocks < 0 || (t.Blocks > 0 && (t.Cache < s.Multiplicities+s.NbMultiplicities || t.Cache+cacheCommitments*t.Blocks > s.NbCommitments))) {
		return fmt.Errorf("recursion: committed turn segment shape %+v: cache indices %+v", s, *t)
	}
	return nil
}

// cacheCommitments is the number of a turn's commitments per block (native
// committed: KeysIn, ValuesIn, Keys, Values).
const cacheCommitments = 4

// SegmentProof is one committed segment's witnesses in the
// aggregator: its Groth16 proof and key, the points of its batch
// opening (its own commitments, the model's table commitments it reads,
// the folds and the quotient) and the scalars of the opening's check,
// which are also public inputs of its proof.
type SegmentProof struct {
	// Proof and Key are the segment's Groth16 proof and verifying key.
	Proof stdgroth16.Proof[sw_bls12377.G1Affine, sw_bls12377.G2Affine]
	Key   stdgroth16.VerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]
	// Commitments are the proof's own commitments, in the order of the
	// native Proof.Commitments.
	Commitments []sw_bls12377.G1Affine
	// Tables are the model's fixed commitments to the function tables
	// the segment's opening reads.
	Tables   []sw_bls12377.G1Affine
	Folds    []sw_bls12377.G1Affine
	Quotient sw_bls12377.G1Affine
	Scalars  gpcs.GroupScalars
	// Chosen are a chunk's chosen logits (BLS12-377 scalars, native
	// variables here), public inputs of its proof; none in the other
	// segments.
	Chosen []frontend.Variable
}

// Pass is one pass's witnesses in the aggregator: its statement's
// digests as its segments state them, a turn's states and its segments'
// proofs.
type Pass struct {
	InputDigest  frontend.Variable
	OutputDigest frontend.Variable
	// States holds a turn's StateIn and StateOut (empty otherwise).
	States []frontend.Variable

	Segments []SegmentProof
	// State is a turn's state in and the rows it keeps (one entry;
	// none otherwise).
	State []TurnState
}

// Aggregator is the BW6-761 circuit that completes the committed segment
// proofs of one or more passes of a model: per segment it recomputes the
// digests of the opening's points, verifies the segment's Groth16 proof
// on its pass's statement, those digests and the opening's scalars, and
// within each pass links each segment's boundary commitment to the next
// one's incoming commitment (a chunk of the LM head after another: their
// incoming commitments), and requires every chunk's chosen logits equal
// to the pass's first chunk's; a turn's pass has its states checked
// ([TurnState]); then it checks every segment's opening at once
// (gadgets/pcs.VerifyGroup: subgroup checks, one MSM, one pairing against
// the SRS's fixed G2 points). The model id is [ModelID] of every pass's
// segment keys, in order, and of their table commitments.
//
// Public inputs, in order: ModelID and ListDigest, the list digest
// (statement.List.ListDigest) of what the passes prove, the same two for
// every layout so that one wrapper serves them all. Each pass's segments
// state it as (ModelID, InputDigest, OutputDigest), private here: a
// request's input and output digests, a request leaf; a turn's, which
// with the states in and out the aggregator derives make a turn leaf; or
// a list's list digest and count, passed on (a list's pass is its
// aggregator's only one). The list digest is that of the passes' leaves
// in order.
type Aggregator struct {
	ModelID    frontend.Variable `gnark:",public"`
	ListDigest frontend.Variable `gnark:",public"`

	Passes []Pass

	// Not circuit variables: hidden from gnark's schema walk.
	layout []PassShape `gnark:"-"`
	key    gpcs.Key    `gnark:"-"`
}

// NewAggregator returns the placeholder of the committed aggregator of
// the passes of layout, with the PCS key (the SRS's, circuit constants).
func NewAggregator(layout []PassShape, key gpcs.Key) (*Aggregator, error) {
	if err := checkLayout(layout); err != nil {
		return nil, err
	}
	c := &Aggregator{Passes: make([]Pass, len(layout)), layout: layout, key: key}
	for p, shape := range layout {
		pass := &c.Passes[p]
		if turn := shape.Turn; turn != nil {
			pass.States = make([]frontend.Variable, 2)
			pass.State = []TurnState{{Keys: make([]sw_bls12377.G1Affine, turn.Layers), Values: make([]sw_bls12377.G1Affine, turn.Layers)}}
		}
		pass.Segments = make([]SegmentProof, len(shape.Segments))
		for i, s := range shape.Segments {
			n := s.NbPedersen
			o := gpcs.PlaceholderGroupOpening(s.NbCommitments+s.NbTables, s.NbVars)
			pass.Segments[i] = SegmentProof{
				Chosen: make([]frontend.Variable, s.NbChosen),
				Proof: stdgroth16.Proof[sw_bls12377.G1Affine, sw_bls12377.G2Affine]{
					Commitments: make([]pedersen.Commitment[sw_bls12377.G1Affine], n),
				},
				Key: stdgroth16.VerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]{
					G1:                           struct{ K []sw_bls12377.G1Affine }{K: make([]sw_bls12377.G1Affine, 1+s.NbPublic()+n)},
					CommitmentKeys:               make([]pedersen.VerifyingKey[sw_bls12377.G2Affine], n),
					PublicAndCommitmentCommitted: make([][]int, n),
				},
				Commitments: make([]sw_bls12377.G1Affine, s.NbCommitments),
				Tables:      make([]sw_bls12377.G1Affine, s.NbTables),
				Folds:       o.Folds,
				Scalars:     o.Scalars,
			}
		}
	}
	return c, nil
}

// Define implements frontend.Circuit.
func (c *Aggregator) Define(api frontend.API) error {
	if len(c.Passes) != len(c.layout) {
		return errors.New("recursion: committed aggregator without its layout")
	}
	if err := checkLayout(c.layout); err != nil {
		return err
	}
	scalars, verifier, err := newSegmentVerifier(api)
	if err != nil {
		return err
	}
	modelID, err := c.assertModelID(api, scalars)
	if err != nil {
		return err
	}

	digest := func(points []sw_bls12377.G1Affine) (emulated.Element[sw_bls12377.ScalarField], error) {
		d, err := gpcs.PointsDigest(api, points)
		if err != nil {
			return emulated.Element[sw_bls12377.ScalarField]{}, err
		}
		return scalarFromBits(scalars, bits.ToBinary(api, d, bits.WithNbDigits(gpcs.DigestBits))), nil
	}
	var openings []gpcs.GroupOpening
	for p := range c.Passes {
		pass, shape := &c.Passes[p], c.layout[p]
		if len(pass.Segments) != len(shape.Segments) {
			return fmt.Errorf("recursion: pass %d has %d segments, its shape %d", p, len(pass.Segments), len(shape.Segments))
		}
		inputDigest := scalarFromBits(scalars, canonicalBLS12377Bits(api, pass.InputDigest))
		outputDigest := scalarFromBits(scalars, canonicalBLS12377Bits(api, pass.OutputDigest))
		var turnPublic []emulated.Element[sw_bls12377.ScalarField]
		if shape.Turn != nil {
			if len(pass.State) != 1 || len(pass.States) != 2 {
				return fmt.Errorf("recursion: pass %d, a turn's, without its state", p)
			}
			st := &pass.State[0]
			// Start = Rows and Keep as the segments' public inputs
			// (below 2^32: far below either field).
			turnPublic = []emulated.Element[sw_bls12377.ScalarField]{
				scalarFromBits(scalars, bits.ToBinary(api, st.Rows, bits.WithNbDigits(32))),
				scalarFromBits(scalars, bits.ToBinary(api, st.Keep, bits.WithNbDigits(32))),
			}
		}
		for i := range pass.Segments {
			s, sh := &pass.Segments[i], shape.Segments[i]
			if len(s.Commitments) != sh.NbCommitments || len(s.Tables) != sh.NbTables || len(s.Folds) != sh.NbVars-1 ||
				len(s.Scalars.Commitments) != sh.NbCommitments+sh.NbTables || len(s.Scalars.Folds) != sh.NbVars-1 {
				return fmt.Errorf("recursion: pass %d, committed segment %d does not have its shape", p, i)
			}
			public := []emulated.Element[sw_bls12377.ScalarField]{modelID, inputDigest, outputDigest}
			for _, points := range [][]sw_bls12377.G1Affine{s.Commitments, s.Commitments[sh.Multiplicities : sh.Multiplicities+sh.NbMultiplicities], s.Folds} {
				d, err := digest(points)
				if err != nil {
					return err
				}
				public = append(public, d)
			}
			// The scalars are native variables (gpcs.GroupScalars):
			// their canonical bits make the proof's public inputs, which
			// binds them as the pairing check uses them.
			if len(s.Chosen) != sh.NbChosen {
				return fmt.Errorf("recursion: pass %d, committed segment %d has %d chosen logits, its shape %d", p, i, len(s.Chosen), sh.NbChosen)
			}
			for _, list := range [][]frontend.Variable{s.Scalars.Commitments, s.Scalars.Folds, s.Scalars.Quotient[:], s.Scalars.Generator[:], s.Chosen} {
				for _, v := range list {
					public = append(public, scalarFromBits(scalars, canonicalBLS12377Bits(api, v)))
				}
			}
			if sh.Turn != nil {
				public = append(public, turnPublic...)
			}
			if err := verifier.AssertProof(s.Key, s.Proof, stdgroth16.Witness[sw_bls12377.ScalarField]{Public: public}, stdgroth16.WithSubgroupCheck()); err != nil {
				return fmt.Errorf("recursion: verify pass %d's committed segment %d: %w", p, i, err)
			}
			openings = append(openings, gpcs.GroupOpening{
				Commitments: append(append([]sw_bls12377.G1Affine(nil), s.Commitments...), s.Tables...),
				Folds:       s.Folds,
				Quotient:    s.Quotient,
				Scalars:     s.Scalars,
			})
		}
		if err := linkSegments(api, shape.Segments, pass.Segments); err != nil {
			return err
		}
		if shape.Turn != nil {
			if err := checkStates(api, pass, shape); err != nil {
				return err
			}
		}
	}
	if err := c.assertListDigest(api); err != nil {
		return err
	}
	return gpcs.VerifyGroup(api, c.key, openings)
}

// assertModelID asserts the public ModelID: [ModelID] of every pass's
// segment keys, in order, and of the digest of their table commitments,
// hashed as ModelID hashes keys and a graph digest; it returns the id as
// the segments' scalar.
func (c *Aggregator) assertModelID(api frontend.API, scalars *emulated.Field[sw_bls12377.ScalarField]) (emulated.Element[sw_bls12377.ScalarField], error) {
	var tables []sw_bls12377.G1Affine
	k := 0
	for p := range c.Passes {
		for i := range c.Passes[p].Segments {
			tables = append(tables, c.Passes[p].Segments[i].Tables...)
			k++
		}
	}
	tablesDigest, err := gpcs.PointsDigest(api, tables)
	if err != nil {
		return emulated.Element[sw_bls12377.ScalarField]{}, err
	}
	hasher, err := poseidon2.New(api)
	if err != nil {
		return emulated.Element[sw_bls12377.ScalarField]{}, fmt.Errorf("recursion: poseidon2: %w", err)
	}
	hasher.Write(transcript.ConstantBig(modelIDLabel, ecc.BW6_761.ScalarField()), k, c.layout[0].Segments[0].NbPedersen)
	for p := range c.Passes {
		for i := range c.Passes[p].Segments {
			hasher.Write(segmentKeyVariables(&c.Passes[p].Segments[i].Key)...)
		}
	}
	hasher.Write(tablesDigest)
	idBits := bits.ToBinary(api, hasher.Sum())[:ModelIDBits]
	api.AssertIsEqual(c.ModelID, bits.FromBinary(api, idBits))
	return scalarFromBits(scalars, idBits), nil
}

// linkSegments asserts the links between consecutive segments: segment
// i's boundary commitment is segment i + 1's incoming one, or when both
// are chunks of the LM head their incoming commitments are equal; and
// every chunk's chosen logits are the first chunk's.
func linkSegments(api frontend.API, shapes []SegmentShape, segments []SegmentProof) error {
	if len(shapes) != len(segments) {
		return fmt.Errorf("recursion: %d segments for %d shapes", len(segments), len(shapes))
	}
	first := -1 // the first chunk of the LM head
	for i := range segments {
		s, sh := &segments[i], shapes[i]
		if err := checkLink(shapes, i); err != nil {
			return err
		}
		if len(s.Commitments) != sh.NbCommitments {
			return fmt.Errorf("recursion: committed segment %d has %d commitments, its shape %d", i, len(s.Commitments), sh.NbCommitments)
		}
		if len(s.Chosen) != sh.NbChosen {
			return fmt.Errorf("recursion: committed segment %d has %d chosen logits, its shape %d", i, len(s.Chosen), sh.NbChosen)
		}
		if i+1 < len(segments) {
			next := &segments[i+1]
			b := &s.Commitments[max(sh.Boundary, 0)]
			if sh.chunk() && shapes[i+1].chunk() {
				b = &s.Commitments[sh.Incoming]
			}
			in := &next.Commitments[shapes[i+1].Incoming]
			api.AssertIsEqual(b.X, in.X)
			api.AssertIsEqual(b.Y, in.Y)
		}
		if sh.chunk() {
			if first < 0 {
				first = i
			}
			for j, v := range s.Chosen {
				api.AssertIsEqual(v, segments[first].Chosen[j])
			}
		}
	}
	return nil
}

// checkLink refuses shapes whose segments i and i + 1 cannot be linked:
// the next segment reads an incoming stream, which is segment i's
// boundary, or segment i's own incoming stream when both are chunks of
// the LM head (then with as many chosen logits).
func checkLink(shapes []SegmentShape, i int) error {
	if i+1 >= len(shapes) {
		return nil
	}
	s, next := shapes[i], shapes[i+1]
	if s.chunk() && next.chunk() {
		if s.Incoming < 0 || next.Incoming < 0 || s.NbChosen != next.NbChosen {
			return fmt.Errorf("recursion: committed chunks %d and %d do not read a stream or differ in their chosen logits", i, i+1)
		}
		return nil
	}
	if s.Boundary < 0 || next.Incoming < 0 {
		return fmt.Errorf("recursion: committed segment %d has no boundary or segment %d no incoming stream", i, i+1)
	}
	return nil
}

// CompileAggregator compiles the committed aggregator of the passes of
// layout.
func CompileAggregator(layout []PassShape, key gpcs.Key) (constraint.ConstraintSystem, error) {
	c, err := NewAggregator(layout, key)
	if err != nil {
		return nil, err
	}
	ccs, err := frontend.Compile(ecc.BW6_761.ScalarField(), r1cs.NewBuilder, c)
	if err != nil {
		return nil, fmt.Errorf("recursion: compile committed aggregator: %w", err)
	}
	return ccs, nil
}

// SegmentShapeOf returns the shape of a compiled committed segment
// circuit given its opening's layout (as SegmentShape holds it), and
// checks it against the segment contract.
func SegmentShapeOf(ccs constraint.ConstraintSystem, nbCommitments, nbTables, nbVars, multiplicities, nbMultiplicities, boundary, incoming, nbChosen int, turn *SegmentTurn) (SegmentShape, error) {
	if ccs.Field().Cmp(ecc.BLS12_377.ScalarField()) != 0 {
		return SegmentShape{}, errors.New("recursion: committed segment circuit is not over BLS12-377 Fr")
	}
	commitments, ok := ccs.GetCommitments().(constraint.Groth16Commitments)
	if !ok {
		return SegmentShape{}, errors.New("recursion: committed segment circuit is not a Groth16 (R1CS) constraint system")
	}
	s := SegmentShape{NbPedersen: len(commitments), NbCommitments: nbCommitments, NbTables: nbTables, NbVars: nbVars, Multiplicities: multiplicities, NbMultiplicities: nbMultiplicities, Boundary: boundary, Incoming: incoming, NbChosen: nbChosen, Turn: turn}
	if err := s.check(); err != nil {
		return SegmentShape{}, err
	}
	if n := ccs.GetNbPublicVariables() - 1; n != s.NbPublic() {
		return SegmentShape{}, fmt.Errorf("recursion: committed segment circuit has %d public inputs, its shape %d", n, s.NbPublic())
	}
	for i, c := range commitments.GetPublicAndCommitmentCommitted(commitments.CommitmentIndexes(), ccs.GetNbPublicVariables()) {
		if len(c) != 0 {
			return SegmentShape{}, fmt.Errorf("recursion: segment commitment %d commits to public inputs", i)
		}
	}
	return s, nil
}

// ValueOfSegmentProof returns the aggregator witness of one committed
// segment: its Groth16 proof and key, its own commitments, the table
// commitments its opening reads, the opening's proof and the scalars of
// its check (native committed Shape.VerifyField), and a chunk's chosen
// logits (native committed ArgmaxProof.Chosen; nil for other segments).
func ValueOfSegmentProof(proof groth16.Proof, key groth16.VerifyingKey, commitments, tables []pcs.Commitment, opening *pcs.Proof, check *pcs.GroupCheck, chosen []fr.Element) (SegmentProof, error) {
	p, err := stdgroth16.ValueOfProof[sw_bls12377.G1Affine, sw_bls12377.G2Affine](proof)
	if err != nil {
		return SegmentProof{}, fmt.Errorf("recursion: committed segment proof: %w", err)
	}
	vk, err := stdgroth16.ValueOfVerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT](key)
	if err != nil {
		return SegmentProof{}, fmt.Errorf("recursion: committed segment key: %w", err)
	}
	all := append(append([]pcs.Commitment(nil), commitments...), tables...)
	o := gpcs.ValueOfGroupOpening(all, opening, check)
	values := make([]frontend.Variable, len(chosen))
	for i := range chosen {
		values[i] = chosen[i].BigInt(new(big.Int))
	}
	return SegmentProof{
		Chosen:      values,
		Proof:       p,
		Key:         vk,
		Commitments: o.Commitments[:len(commitments)],
		Tables:      o.Commitments[len(commitments):],
		Folds:       o.Folds,
		Quotient:    o.Quotient,
		Scalars:     o.Scalars,
	}, nil
}

// assertListDigest asserts the public ListDigest: the list digest of
// the passes' leaves, a request's or a turn's each, or the one a list's
// segments state.
func (c *Aggregator) assertListDigest(api frontend.API) error {
	if c.layout[0].List {
		api.AssertIsEqual(c.ListDigest, c.Passes[0].InputDigest)
		return nil
	}
	leaves := make([]gstatement.Leaf, len(c.Passes))
	for p := range c.Passes {
		pass := &c.Passes[p]
		leaves[p] = gstatement.Leaf{Kind: statement.KindRequest, Input: pass.InputDigest, Output: pass.OutputDigest}
		if c.layout[p].Turn != nil {
			leaves[p] = gstatement.Leaf{Kind: statement.KindTurn, StateIn: pass.States[0], Input: pass.InputDigest, Output: pass.OutputDigest, StateOut: pass.States[1]}
		}
	}
	list, err := gstatement.ListDigestOf(api, leaves)
	if err != nil {
		return fmt.Errorf("recursion: %w", err)
	}
	api.AssertIsEqual(c.ListDigest, list)
	return nil
}
