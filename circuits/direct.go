package circuits

import (
	"fmt"
	"math/big"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gattention "github.com/veriformer/veriformer/gadgets/attention"
	gembedding "github.com/veriformer/veriformer/gadgets/embedding"
	glinear "github.com/veriformer/veriformer/gadgets/linear"
	"github.com/veriformer/veriformer/gadgets/nonlinear"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	grequant "github.com/veriformer/veriformer/gadgets/requant"
	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/attention"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/protocol/requant"
	"github.com/veriformer/veriformer/statement"
)

// Direct is the circuit of the direct design: one BN254 circuit that
// verifies a whole inference of one model (inference.Verify, step for
// step), with the model's weights and tables as constants. Its one public
// input is the statement digest (statement.Digest) of the model id, input
// digest and output digest, which are private.
type Direct struct {
	StatementDigest frontend.Variable `gnark:",public"`
	ModelID         frontend.Variable
	InputDigest     frontend.Variable
	OutputDigest    frontend.Variable

	// Request holds the prompt and output in buffers of the bucket's
	// rows, with their lengths; Targets[i] is the argmax of row i of the
	// logits: the output token T[i + 1] on a live row (asserted), the
	// row's own argmax on a pad row.
	Request gstatement.Request
	Targets []frontend.Variable
	Tensors [][]frontend.Variable
	Layers  []LayerProof
	LMHead  glinear.Proof

	// Not a circuit variable: hidden from gnark's schema walk, which
	// would otherwise visit every weight of the layout's model at each
	// compile and witness.
	layout *Layout `gnark:"-"`
}

// LayerProof is the in-circuit form of inference.LayerProof.
type LayerProof struct {
	QKV          glinear.Proof
	Output       gattention.OutputProof
	Scores       gattention.ScoresProof
	O, MLP, Down glinear.Proof
}

// Layout is what a circuit fixes: the model, the row bucket (the rows of
// the pass: every request whose pass fits is proven by the same circuit,
// statement.Request), and the shape pass whose tensors give shapes,
// ranges and constants.
type Layout struct {
	Model   *model.Model
	Rows    int
	modelID *big.Int
	shape   *model.Trace
	index   map[*model.Tensor]int
}

// NewLayout prepares the layout of proofs of model m in a bucket of rows.
// Library API, the entry the package documentation shows (its tests use
// it); the commands, which hold the model id already, call [NewLayoutOf].
func NewLayout(m *model.Model, rows int) (*Layout, error) {
	return NewLayoutOf(m, m.ID(), rows)
}

// NewLayoutOf is NewLayout for a caller that already holds the model id
// id = m.ID(), which hashes every weight.
func NewLayoutOf(m *model.Model, id *big.Int, rows int) (*Layout, error) {
	if m.Config.Family != model.GPT2 && m.Config.Family != model.Llama {
		return nil, fmt.Errorf("circuits: the %s family is not supported", m.Config.Family)
	}
	if rows < 1 || rows > m.Config.MaxPositions {
		return nil, fmt.Errorf("circuits: a bucket of %d rows: want 1 to the context, %d", rows, m.Config.MaxPositions)
	}
	shape, err := inference.ShapePass(m, rows)
	if err != nil {
		return nil, err
	}
	return &Layout{Model: m, Rows: rows, modelID: new(big.Int).Set(id), shape: shape, index: inference.Index(shape)}, nil
}

// Placeholder returns the circuit sized for the layout, to compile.
func (l *Layout) Placeholder() (*Direct, error) {
	c := &Direct{layout: l, Request: gstatement.PlaceholderRequest(l.Rows), Targets: make([]frontend.Variable, l.Rows)}
	for _, t := range inference.Tensors(l.shape) {
		c.Tensors = append(c.Tensors, make([]frontend.Variable, len(t)))
	}
	for i := range l.shape.Layers {
		c.Layers = append(c.Layers, l.placeholderLayer(i))
	}
	c.LMHead = glinear.PlaceholderProof(l.linearShape(&l.shape.LMHead))
	return c, nil
}

// placeholderLayer sizes the proofs of block i.
func (l *Layout) placeholderLayer(i int) LayerProof {
	as := l.attentionConfig(i)
	return LayerProof{
		QKV:    glinear.PlaceholderProof(l.qkvShape(i)),
		Output: gattention.PlaceholderOutputProof(as),
		Scores: gattention.PlaceholderScoresProof(as),
		O:      glinear.PlaceholderProof(l.linearShape(&l.shape.Layers[i].O)),
		MLP:    glinear.PlaceholderProof(l.mlpShape(i)),
		Down:   glinear.PlaceholderProof(l.linearShape(&l.shape.Layers[i].Down)),
	}
}

// layerAssignment converts the proofs of one block.
func layerAssignment[E field.Scalar](lp *inference.LayerProof[E]) (LayerProof, error) {
	if lp.QKV == nil || lp.Output == nil || lp.Scores == nil || lp.O == nil || lp.MLP == nil || lp.Down == nil {
		return LayerProof{}, fmt.Errorf("circuits: incomplete layer proof")
	}
	return LayerProof{
		QKV: glinear.ValueOfProof(lp.QKV), Output: gattention.ValueOfOutputProof(lp.Output), Scores: gattention.ValueOfScoresProof(lp.Scores),
		O: glinear.ValueOfProof(lp.O), MLP: glinear.ValueOfProof(lp.MLP), Down: glinear.ValueOfProof(lp.Down),
	}, nil
}

// Assign returns the witness of a native BN254 proof of a request of the
// layout's bucket for the statement.
func (l *Layout) Assign(st statement.Statement, req statement.Request, proof *inference.Proof[bn254fr.Element]) (*Direct, error) {
	if req.Rows != l.Rows {
		return nil, fmt.Errorf("circuits: a request of a bucket of %d rows for a circuit of %d", req.Rows, l.Rows)
	}
	if len(proof.Layers) != len(l.shape.Layers) || proof.LMHead == nil {
		return nil, fmt.Errorf("circuits: proof of %d layers for a model of %d", len(proof.Layers), len(l.shape.Layers))
	}
	c, err := l.statementAssignment(st)
	if err != nil {
		return nil, err
	}
	if c.Request, err = gstatement.ValueOfRequest(req); err != nil {
		return nil, err
	}
	want := inference.Tensors(l.shape)
	if len(proof.Tensors) != len(want) {
		return nil, fmt.Errorf("circuits: proof opens %d tensors, the layout %d", len(proof.Tensors), len(want))
	}
	for i, t := range proof.Tensors {
		if len(t) != len(want[i]) {
			return nil, fmt.Errorf("circuits: opened tensor %d has %d values, want %d", i, len(t), len(want[i]))
		}
		c.Tensors = append(c.Tensors, gpoly.Ints(t))
	}
	for i := range proof.Layers {
		lp, err := layerAssignment(&proof.Layers[i])
		if err != nil {
			return nil, err
		}
		c.Layers = append(c.Layers, lp)
	}
	c.LMHead = glinear.ValueOfProof(proof.LMHead)
	// The targets: the argmax of each row of the opened logits (the
	// output token on a live row of an honest proof).
	logits := proof.Tensors[l.index[&l.shape.LMHead.Out]]
	vocab := l.shape.LMHead.Out.Shape[1]
	for i := range l.Rows {
		c.Targets = append(c.Targets, model.Argmax(logits[i*vocab:(i+1)*vocab]))
	}
	return c, nil
}

func (l *Layout) linearShape(mm *model.MatMul) linear.Config {
	return linear.Config{Rows: mm.Out.Shape[0], In: mm.Weight.Shape[1], SharedRow: true,
		Projections: []linear.Projection{{Out: mm.Weight.Shape[0], Bias: mm.Bias != nil}}}
}

func (l *Layout) mlpShape(i int) linear.Config {
	ly := &l.shape.Layers[i]
	if ly.Gate == nil {
		return l.linearShape(&ly.Up)
	}
	s := l.linearShape(ly.Gate)
	s.Projections = append(s.Projections, linear.Projection{Out: ly.Up.Weight.Shape[0], Bias: ly.Up.Bias != nil})
	return s
}

func (l *Layout) qkvShape(i int) linear.Config {
	ly := &l.shape.Layers[i]
	s := l.linearShape(&ly.Q)
	for _, mm := range []*model.MatMul{&ly.K, &ly.V} {
		s.Projections = append(s.Projections, linear.Projection{Out: mm.Weight.Shape[0], Bias: mm.Bias != nil})
	}
	return s
}

func (l *Layout) attentionConfig(i int) attention.Config {
	hl := l.Model.Config.HeadLayout()
	a := &l.shape.Layers[i].Attention
	n := a.Query.Shape[0]
	return attention.Config{Heads: hl.Heads, KVHeads: hl.KVHeads, HeadDim: hl.HeadDim, QueryRows: n, KeyRows: a.Start + n, Start: a.Start}
}

// Define verifies the inference.
func (c *Direct) Define(api frontend.API) error {
	l := c.layout
	if l == nil {
		return fmt.Errorf("circuits: circuit without a layout (use Layout.Placeholder)")
	}
	d := &definer{api: api, l: l, check: nonlinear.New(api), seg: inference.Segment{From: 0, To: len(l.shape.Layers)},
		index: l.index, tensors: c.Tensors, targets: c.Targets, layers: c.Layers, lmHead: c.LMHead}
	api.AssertIsEqual(c.ModelID, l.modelID)
	if len(c.Request.Prompt) != l.Rows || len(c.Targets) != l.Rows {
		return fmt.Errorf("circuits: request buffers of %d tokens and %d targets for a bucket of %d rows", len(c.Request.Prompt), len(c.Targets), l.Rows)
	}
	var err error
	if d.request, err = c.Request.Bind(api, c.InputDigest, c.OutputDigest); err != nil {
		return err
	}
	if err := assertStatementDigest(api, c); err != nil {
		return err
	}
	if d.tr, err = transcript.New(api, inference.Domain, c.ModelID, c.InputDigest, c.OutputDigest); err != nil {
		return err
	}
	return d.segment()
}

// definer writes the constraints of one segment of a pass (the whole pass
// for the direct design).
type definer struct {
	api   frontend.API
	l     *Layout
	tr    *transcript.Transcript
	check *nonlinear.Checker
	seg   inference.Segment
	// index maps the segment's opened tensors (addresses in the shape
	// pass) to their position in tensors.
	index   map[*model.Tensor]int
	tensors [][]frontend.Variable
	// request is the request bound to the statement's digests, targets
	// the argmax of each row of the logits.
	request gstatement.Bound
	targets []frontend.Variable
	// boundary is the residual stream entering a segment that does not
	// start at the embedding.
	boundary []frontend.Variable
	layers   []LayerProof
	lmHead   glinear.Proof
}

// t returns the opened tensor at this address of the shape pass.
func (d *definer) t(x *model.Tensor) []frontend.Variable {
	i, ok := d.index[x]
	if !ok {
		panic(fmt.Sprintf("circuits: %s is not an opened tensor of this segment", x.Name)) // layout bug, caught at compile time
	}
	return d.tensors[i]
}

// first and last report whether the segment starts at the embedding and
// ends at the LM head.
func (d *definer) first() bool { return d.seg.From == 0 }
func (d *definer) last() bool  { return d.seg.To == len(d.l.shape.Layers) }

// segment binds the segment's opened tensors to the transcript (in their
// exact ranges for the tensors of inference.WalkExact, in their packing
// windows otherwise), asserts their element-wise relations and verifies its
// contractions.
func (d *definer) segment() error {
	s := d.l.shape
	exact := map[*model.Tensor]bool{}
	inference.WalkExact(s, d.seg, func(t *model.Tensor) { exact[t] = true })
	var absorbErr error
	i := 0
	inference.WalkSegment(s, d.seg, func(t *model.Tensor) {
		absorb := d.tr.AbsorbPacked
		if exact[t] {
			absorb = d.tr.AbsorbPackedExact
		}
		if absorbErr == nil {
			absorbErr = absorb(d.tensors[i], t.Min, t.Max)
		}
		i++
	})
	if absorbErr != nil {
		return absorbErr
	}
	if err := d.elementwise(); err != nil {
		return err
	}
	for i := d.seg.From; i < d.seg.To; i++ {
		d.tr.Label(fmt.Sprintf("layer/%d", i))
		if err := d.layer(i); err != nil {
			return fmt.Errorf("circuits: layer %d: %w", i, err)
		}
	}
	if !d.last() {
		return nil
	}
	d.tr.Label("lm_head")
	return d.linear(d.lmHead, d.t(&s.FinalNorm.Out), &s.FinalNorm.Out, []*model.MatMul{&s.LMHead})
}

// elementwise asserts the segment's element-wise steps: the embedding rows
// (first segment), every norm, softmax, activation and residual add of its
// blocks, and the final norm and argmax of each output token (last).
func (d *definer) elementwise() error {
	s := d.l.shape
	input := d.boundary
	if d.first() {
		input = d.t(&s.Embedding)
		if err := d.embedding(input); err != nil {
			return fmt.Errorf("embedding: %w", err)
		}
	}
	for i := d.seg.From; i < d.seg.To; i++ {
		if err := d.layerChecks(&s.Layers[i], input); err != nil {
			return fmt.Errorf("layer %d: %w", i, err)
		}
		input = d.t(&s.Layers[i].Output)
	}
	if !d.last() {
		return nil
	}
	if err := d.norm(&s.FinalNorm, input, s.FinalNorm.Input.Min, s.FinalNorm.Input.Max); err != nil {
		return err
	}
	// Every row's argmax is its target; a live row's target is the
	// output token T[i + 1]. A pad row's is free: the statement says
	// nothing of it.
	logits := d.t(&s.LMHead.Out)
	vocab := s.LMHead.Out.Shape[1]
	api := d.api
	for i, u := range d.targets {
		api.AssertIsEqual(api.Mul(d.request.Live[i], api.Sub(u, d.request.Tokens[i+1])), 0)
		d.check.Argmax(logits[i*vocab:(i+1)*vocab], u, model.LogitBits)
	}
	return nil
}

// embedding asserts x[r] = E[T_r] + P[r] for the pass's tokens with
// gembedding.CheckRows: a random linear combination of each row and a
// lookup in a table of one combination per vocabulary entry. Its challenge
// comes from a fork of the transcript after every opened tensor (x among
// them) was absorbed, and the tokens are fixed by the statement's digests
// (Request.Bind); the fork leaves the transcript itself untouched, so the
// native verifier, which compares the rows directly, needs no
// counterpart.
func (d *definer) embedding(x []frontend.Variable) error {
	api, m := d.api, d.l.Model
	tokens := d.request.Tokens[:d.l.Rows]
	fork, err := transcript.Resume(api, d.tr.State())
	if err != nil {
		return err
	}
	fork.Label("embedding")
	var pos []int64
	if m.Quant.PositionEmbedding != nil {
		pos = m.Quant.PositionEmbedding[:len(tokens)*m.Config.Hidden]
	}
	return gembedding.CheckRows(api, m.Quant.TokenEmbedding, m.Config.Vocab, m.Config.Hidden, pos, tokens, x, fork.Challenge())
}

// layerChecks asserts the element-wise steps of one block whose input is
// the opened tensor input.
func (d *definer) layerChecks(ly *model.Layer, input []frontend.Variable) error {
	hl := d.l.Model.Config.HeadLayout()
	if err := d.norm(&ly.AttnNorm, input, ly.Input.Min, ly.Input.Max); err != nil {
		return err
	}
	if ly.RopeQ != nil {
		for _, r := range []struct {
			rope  *model.Rope
			in    *model.Tensor
			heads int
		}{{ly.RopeQ, &ly.Q.Out, hl.Heads}, {ly.RopeK, &ly.K.Out, hl.KVHeads}} {
			spec := nonlinear.RopeSpec{Rows: r.in.Shape[0], Start: d.l.shape.Start, Heads: r.heads, HeadDim: hl.HeadDim,
				Cos: r.rope.Cos.Table, Sin: r.rope.Sin.Table, Multiplier: r.rope.Multiplier[0], Shift: r.rope.Shift,
				OutLo: r.rope.Out.Min, OutHi: r.rope.Out.Max}
			if err := d.check.Rope(spec, d.t(r.in), d.t(&r.rope.Out), d.t(&r.rope.Rem)); err != nil {
				return err
			}
		}
	}
	a := &ly.Attention
	cube := a.Scores.Out.Shape
	if err := d.check.Softmax(nonlinear.SoftmaxShape{Heads: cube[0], Rows: cube[1], Start: a.Start}, a.ExpLow.Table,
		d.t(&a.Scores.Out), d.t(&a.RowMax), d.t(&a.ExpHigh.In), d.t(&a.Probs), d.t(&a.ProbRem)); err != nil {
		return err
	}
	if err := d.check.Sum(input, d.t(&ly.O.Out), d.t(&ly.Mid), ly.Mid.Min, ly.Mid.Max); err != nil {
		return err
	}
	if err := d.norm(&ly.MLPNorm, d.t(&ly.Mid), ly.Mid.Min, ly.Mid.Max); err != nil {
		return err
	}
	if ly.Gate != nil {
		if err := d.check.Lookup(ly.Activation.Table, d.t(&ly.Gate.Out), d.t(&ly.Activation.Out)); err != nil {
			return err
		}
		p := ly.Product
		if err := d.check.Product(d.t(&ly.Activation.Out), d.t(&ly.Up.Out), d.t(&p.Out), d.t(&p.Rem), p.Multiplier[0], p.Shift, p.Out.Min, p.Out.Max); err != nil {
			return err
		}
	} else if err := d.check.Lookup(ly.Activation.Table, d.t(&ly.Up.Out), d.t(&ly.Activation.Out)); err != nil {
		return err
	}
	return d.check.Sum(d.t(&ly.Mid), d.t(&ly.Down.Out), d.t(&ly.Output), ly.Output.Min, ly.Output.Max)
}

func (d *definer) norm(nm *model.Norm, input []frontend.Variable, inLo, inHi int64) error {
	gamma := make([]int64, len(nm.Gamma.Data))
	for i, g := range nm.Gamma.Data {
		gamma[i] = int64(g)
	}
	withMean := d.l.Model.Config.Family == model.GPT2
	spec := nonlinear.NormSpec{Rows: nm.Input.Shape[0], N: nm.Input.Shape[1], WithMean: withMean, Epsilon: nm.Epsilon,
		MaxExponent: nm.MaxExponent, RSqrt: nm.RSqrt.Table, Gamma: gamma, Beta: nm.Beta, Multiplier: nm.Multiplier[0],
		Shift: nm.Shift, OutLo: nm.Out.Min, OutHi: nm.Out.Max, InLo: inLo, InHi: inHi}
	t := nonlinear.NormTensors{Input: input, Exponent: d.t(&nm.Exponent), Small: d.t(&nm.RSqrt.In),
		SmallRem: d.t(&nm.RSqrtRem), RSqrt: d.t(&nm.RSqrt.Out), Out: d.t(&nm.Out), Rem: d.t(&nm.Rem)}
	if withMean {
		t.Mean, t.MeanRem = d.t(&nm.Mean), d.t(&nm.MeanRem)
	}
	return d.check.Norm(spec, t)
}

func (d *definer) layer(i int) error {
	s := d.l.shape
	ly := &s.Layers[i]
	p := d.layers[i-d.seg.From]
	if err := d.linear(p.QKV, d.t(&ly.AttnNorm.Out), &ly.AttnNorm.Out, []*model.MatMul{&ly.Q, &ly.K, &ly.V}); err != nil {
		return fmt.Errorf("qkv: %w", err)
	}
	if err := d.attention(i, p); err != nil {
		return fmt.Errorf("attention: %w", err)
	}
	if err := d.linear(p.O, d.t(&ly.Attention.Context.Out), &ly.Attention.Context.Out, []*model.MatMul{&ly.O}); err != nil {
		return fmt.Errorf("output projection: %w", err)
	}
	mlp := []*model.MatMul{&ly.Up}
	hidden := &ly.Activation.Out
	if ly.Gate != nil {
		mlp = []*model.MatMul{ly.Gate, &ly.Up}
		hidden = &ly.Product.Out
	}
	if err := d.linear(p.MLP, d.t(&ly.MLPNorm.Out), &ly.MLPNorm.Out, mlp); err != nil {
		return fmt.Errorf("mlp up: %w", err)
	}
	if err := d.linear(p.Down, d.t(hidden), hidden, []*model.MatMul{&ly.Down}); err != nil {
		return fmt.Errorf("mlp down: %w", err)
	}
	return nil
}

// accClaim draws a point and returns the claim on the accumulator of r
// that its opened output and remainder determine.
func (d *definer) accClaim(r *model.Requant, index []int, nbVars int) (gpoly.Claim, error) {
	point := d.tr.Challenges(nbVars)
	spec := requant.Spec{Shape: r.Out.Shape, Multiplier: r.Multiplier, Shift: r.Shift, OutLo: r.Out.Min, OutHi: r.Out.Max}
	v, err := grequant.EvaluateAcc(d.api, &spec, d.t(&r.Out), d.t(&r.Rem), index, point)
	if err != nil {
		return gpoly.Claim{}, err
	}
	return gpoly.Claim{Point: point, Value: v}, nil
}

// linear verifies the matmuls mms of the opened input x (whose shape-pass
// tensor is xs) and checks the claims left on x, the weights and biases.
func (d *definer) linear(proof glinear.Proof, x []frontend.Variable, xs *model.Tensor, mms []*model.MatMul) error {
	api := d.api
	rows, in := xs.Shape[0], xs.Shape[1]
	shape := linear.Config{Rows: rows, In: in, SharedRow: true}
	rowPoint := d.tr.Challenges(poly.Log2Ceil(rows))
	var claims []gpoly.Claim
	for _, mm := range mms {
		out := mm.Weight.Shape[0]
		shape.Projections = append(shape.Projections, linear.Projection{Out: out, Bias: mm.Bias != nil})
		colPoint := d.tr.Challenges(poly.Log2Ceil(out))
		point := append(append([]frontend.Variable(nil), rowPoint...), colPoint...)
		index, err := poly.PaddedIndices(mm.Out.Shape)
		if err != nil {
			return err
		}
		spec := requant.Spec{Shape: mm.Out.Shape, Multiplier: mm.Multiplier, Shift: mm.Shift, OutLo: mm.Out.Min, OutHi: mm.Out.Max}
		v, err := grequant.EvaluateAcc(api, &spec, d.t(&mm.Out), d.t(&mm.Rem), index, point)
		if err != nil {
			return err
		}
		claims = append(claims, gpoly.Claim{Point: point, Value: v})
	}
	got, err := glinear.Verify(api, d.tr, shape, proof, claims)
	if err != nil {
		return err
	}
	if err := d.tensorClaim(x, xs.Shape, got.Input); err != nil {
		return err
	}
	for k, mm := range mms {
		w, err := glinear.EvaluateWeight(api, mm.Weight.Data, mm.Weight.Shape[0], in, got.Weights[k].Point)
		if err != nil {
			return err
		}
		api.AssertIsEqual(w, got.Weights[k].Value)
		if mm.Bias != nil {
			b, err := glinear.EvaluateBias(api, mm.Bias, got.Biases[k].Point)
			if err != nil {
				return err
			}
			api.AssertIsEqual(b, got.Biases[k].Value)
		}
	}
	return nil
}

// tensorClaim asserts a claim on an opened tensor (zero-padded row-major
// layout).
func (d *definer) tensorClaim(x []frontend.Variable, shape []int, c gpoly.Claim) error {
	index, err := poly.PaddedIndices(shape)
	if err != nil {
		return err
	}
	d.api.AssertIsEqual(gpoly.EvaluateTensor(d.api, x, index, c.Point), c.Value)
	return nil
}

func (d *definer) attention(i int, p LayerProof) error {
	api, s := d.api, d.l.shape
	ly := &s.Layers[i]
	a := &ly.Attention
	cfg := d.l.attentionConfig(i)
	shape := cfg
	scoreVars, err := cfg.ScoreVars()
	if err != nil {
		return err
	}
	scoreIndex, err := inference.ScoreLayout(cfg, a.Scores.Out.Shape)
	if err != nil {
		return err
	}
	ctxIndex, err := poly.PaddedIndices(a.Context.Out.Shape)
	if err != nil {
		return err
	}
	_, ctxVars, _ := poly.TensorVars(a.Context.Out.Shape)
	ctx, err := d.accClaim(&a.Context, ctxIndex, ctxVars)
	if err != nil {
		return err
	}
	oc, err := gattention.VerifyOutput(api, d.tr, shape, p.Output, []gpoly.Claim{ctx})
	if err != nil {
		return err
	}
	api.AssertIsEqual(gpoly.EvaluateTensor(api, d.t(&a.Probs), scoreIndex, oc.Probs.Point), oc.Probs.Value)
	scores, err := d.accClaim(&a.Scores, scoreIndex, scoreVars)
	if err != nil {
		return err
	}
	ic, err := gattention.VerifyScores(api, d.tr, shape, p.Scores, []gpoly.Claim{scores}, oc.PaddedValues)
	if err != nil {
		return err
	}
	query, keys := &ly.Q.Out, &ly.K.Out
	if ly.RopeQ != nil {
		query, keys = &ly.RopeQ.Out, &ly.RopeK.Out
	}
	if err := d.tensorClaim(d.t(query), query.Shape, ic.Query); err != nil {
		return err
	}
	if err := d.tensorClaim(d.t(keys), keys.Shape, ic.Keys); err != nil {
		return err
	}
	return d.tensorClaim(d.t(&ly.V.Out), ly.V.Out.Shape, ic.Values)
}
