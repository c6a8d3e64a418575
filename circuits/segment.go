package circuits

import (
	"fmt"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	glinear "github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/gadgets/nonlinear"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// Segment is the circuit of one segment of the aggregated proof shape
// (Groth16 over BLS12-377): it verifies inference.VerifySegment step for
// step. Its public inputs follow the recursion package's segment contract:
// ModelID, InputDigest, OutputDigest, ChainIn, ChainOut.
//
// The first segment computes both token digests (its embedding reads the
// prompt and all output tokens but the last) and asserts that ChainIn is
// the statement-seeded transcript state; every other segment opens the
// previous segment's state and the residual stream at the cut and asserts
// that they give ChainIn. The last segment asserts the output digest and
// the argmax of every output token. ModelID is the aggregated shape's
// model id (recursion.ModelID over the segments' verifying keys): the
// circuit only binds it into the transcript.
//
// A middle segment uses none of ModelID, InputDigest and OutputDigest, the
// last does not use ModelID: each input a segment does not use enters one
// constraint of its own (its square), so that the segment's Groth16 proof
// holds for one value of it only (a public input in no constraint has a
// zero verifying-key point, and any value verifies). The aggregator gives
// every segment the statement's values (docs/recursion.md, "Segment
// contract").
type Segment struct {
	ModelID      frontend.Variable `gnark:",public"`
	InputDigest  frontend.Variable `gnark:",public"`
	OutputDigest frontend.Variable `gnark:",public"`
	ChainIn      frontend.Variable `gnark:",public"`
	ChainOut     frontend.Variable `gnark:",public"`

	Prompt   []frontend.Variable
	Output   []frontend.Variable
	Previous frontend.Variable
	Boundary []frontend.Variable
	Tensors  [][]frontend.Variable
	Layers   []LayerProof
	LMHead   glinear.Proof

	// Not circuit variables: hidden from gnark's schema walk, which
	// would otherwise visit every weight of the layout's model at each
	// compile and witness.
	layout *Layout               `gnark:"-"`
	seg    inference.Segment     `gnark:"-"`
	index  map[*model.Tensor]int `gnark:"-"`
}

// SegmentPlaceholder returns the circuit of one segment, to compile.
func (l *Layout) SegmentPlaceholder(seg inference.Segment) (*Segment, error) {
	if seg.From < 0 || seg.To > len(l.shape.Layers) || seg.From >= seg.To || seg.Chunk() || seg.NoHead {
		return nil, fmt.Errorf("circuits: segment %v of a model of %d blocks", seg, len(l.shape.Layers))
	}
	c := &Segment{layout: l, seg: seg, index: inference.SegmentIndex(l.shape, seg), Previous: 0}
	if seg.From == 0 || seg.To == len(l.shape.Layers) {
		c.Prompt, c.Output = make([]frontend.Variable, l.PromptLen), make([]frontend.Variable, l.OutputLen)
	}
	if seg.From > 0 {
		c.Boundary = make([]frontend.Variable, len(l.shape.Layers[seg.From-1].Output.Data))
	}
	for _, t := range inference.SegmentTensors(l.shape, seg) {
		c.Tensors = append(c.Tensors, make([]frontend.Variable, len(t)))
	}
	for i := seg.From; i < seg.To; i++ {
		c.Layers = append(c.Layers, l.placeholderLayer(i))
	}
	if seg.To == len(l.shape.Layers) {
		c.LMHead = glinear.PlaceholderProof(l.linearShape(&l.shape.LMHead))
	}
	return c, nil
}

// AssignSegment returns the witness of a native segment proof (BLS12-377)
// between the chain values chainIn and chainOut.
func (l *Layout) AssignSegment(seg inference.Segment, st statement.Statement, prompt, output []int, chainIn, chainOut bls12377fr.Element, proof *inference.SegmentProof[bls12377fr.Element]) (*Segment, error) {
	c, err := l.SegmentPlaceholder(seg)
	if err != nil {
		return nil, err
	}
	c.ModelID, c.InputDigest, c.OutputDigest = st.ModelID, st.InputDigest, st.OutputDigest
	c.ChainIn, c.ChainOut = chainIn.String(), chainOut.String()
	if c.Prompt != nil {
		if len(prompt) != l.PromptLen || len(output) != l.OutputLen {
			return nil, fmt.Errorf("circuits: %d prompt and %d output tokens for a circuit of %d and %d", len(prompt), len(output), l.PromptLen, l.OutputLen)
		}
		c.Prompt, c.Output = ints(prompt), ints(output)
	}
	if seg.From > 0 {
		if len(proof.Boundary) != len(c.Boundary) {
			return nil, fmt.Errorf("circuits: boundary of %d values, want %d", len(proof.Boundary), len(c.Boundary))
		}
		c.Previous = proof.Previous.String()
		c.Boundary = int64s(proof.Boundary)
	}
	if len(proof.Tensors) != len(c.Tensors) || len(proof.Layers) != len(c.Layers) {
		return nil, fmt.Errorf("circuits: segment proof of %d tensors and %d layers, want %d and %d", len(proof.Tensors), len(proof.Layers), len(c.Tensors), len(c.Layers))
	}
	for i, t := range proof.Tensors {
		if len(t) != len(c.Tensors[i]) {
			return nil, fmt.Errorf("circuits: opened tensor %d has %d values, want %d", i, len(t), len(c.Tensors[i]))
		}
		c.Tensors[i] = int64s(t)
	}
	for i := range proof.Layers {
		lp, err := layerAssignment(&proof.Layers[i])
		if err != nil {
			return nil, err
		}
		c.Layers[i] = lp
	}
	if seg.To == len(l.shape.Layers) {
		if proof.LMHead == nil {
			return nil, fmt.Errorf("circuits: last segment without an LM head proof")
		}
		c.LMHead = glinear.ValueOfProof(proof.LMHead)
	}
	return c, nil
}

// Define verifies the segment.
func (c *Segment) Define(api frontend.API) error {
	if c.layout == nil {
		return fmt.Errorf("circuits: segment circuit without a layout (use Layout.SegmentPlaceholder)")
	}
	d := &definer{api: api, l: c.layout, check: nonlinear.New(api), seg: c.seg, index: c.index, tensors: c.Tensors,
		prompt: c.Prompt, output: c.Output, boundary: c.Boundary, layers: c.Layers, lmHead: c.LMHead}
	var err error
	if d.first() || d.last() {
		if err := d.digests(c.InputDigest, c.OutputDigest); err != nil {
			return err
		}
	} else {
		bindUnused(api, c.InputDigest, c.OutputDigest)
	}
	if !d.first() {
		bindUnused(api, c.ModelID)
	}
	if d.first() {
		if d.tr, err = transcript.New(api, inference.Domain, c.ModelID, c.InputDigest, c.OutputDigest); err != nil {
			return err
		}
		api.AssertIsEqual(d.tr.State(), c.ChainIn)
	} else {
		digest, err := boundaryDigest(api, c.Boundary, &c.layout.shape.Layers[c.seg.From-1].Output)
		if err != nil {
			return err
		}
		link, err := transcript.Resume(api, c.Previous)
		if err != nil {
			return err
		}
		link.Absorb(digest)
		api.AssertIsEqual(link.State(), c.ChainIn)
		if d.tr, err = transcript.Resume(api, c.Previous); err != nil {
			return err
		}
	}
	if err := d.segment(); err != nil {
		return err
	}
	out := d.tr.State()
	if !d.last() {
		own := &c.layout.shape.Layers[c.seg.To-1].Output
		digest, err := boundaryDigest(api, d.t(own), own)
		if err != nil {
			return err
		}
		d.tr.Absorb(digest)
		out = d.tr.State()
	}
	api.AssertIsEqual(out, c.ChainOut)
	return nil
}

// bindUnused puts each public input of vs into one constraint, vs[i]² =
// w for a new internal w, so that a Groth16 proof fixes its value without
// constraining it.
func bindUnused(api frontend.API, vs ...frontend.Variable) {
	for _, v := range vs {
		api.Mul(v, v)
	}
}
