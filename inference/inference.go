package inference

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/attention"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/protocol/requant"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/transcript"
)

// Domain separates veriformer inference transcripts from any other use of
// the transcript.
const Domain = "veriformer/inference/v1"

// Proof proves one inference: greedy generation of g tokens after a prompt
// of s tokens, as one pass over the R tokens of a statement.Request
// (prompt, output, zeros) whose live rows s − 1 … s + g − 2 of logits
// have the output tokens as their argmax.
type Proof[E field.Scalar] struct {
	// Tensors are the opened tensors of the pass, in canonical order.
	Tensors [][]int64
	// Layers are the sum-check proofs of each block's contractions.
	Layers []LayerProof[E]
	// LMHead proves the logits' accumulator.
	LMHead *linear.Proof[E]
}

// LayerProof holds the sum-check proofs of one transformer block.
type LayerProof[E field.Scalar] struct {
	// QKV proves the Q, K, V projections of the attention norm's output.
	QKV *linear.Proof[E]
	// Output proves the context (probabilities times values), Scores the
	// scores (queries times keys).
	Output *attention.OutputProof[E]
	Scores *attention.ScoresProof[E]
	// O proves the output projection of the context.
	O *linear.Proof[E]
	// MLP proves the up projection (gate and up for Llama) of the MLP
	// norm's output, Down the down projection (of the GELU output, or of
	// the gated product for Llama).
	MLP, Down *linear.Proof[E]
}

// ErrRejected wraps every reason a proof is rejected.
var ErrRejected = errors.New("inference: proof rejected")

// Generate runs greedy decoding of g tokens after the prompt and returns
// the request of a bucket of rows (0 for the smallest that holds the
// pass, statement.Bucket) with the trace of the single pass that the
// proof covers: the pass over the request's R tokens (prompt, output,
// zeros), whose live rows have the output tokens as their argmax.
func Generate(m *model.Model, prompt []int, g, rows int) (statement.Request, *model.Trace, error) {
	if len(prompt) == 0 || g < 1 {
		return statement.Request{}, nil, fmt.Errorf("inference: need a prompt and at least one new token (got %d and %d)", len(prompt), g)
	}
	dec, err := m.Generate(prompt, g)
	if err != nil {
		return statement.Request{}, nil, err
	}
	req, err := statement.NewRequest(prompt, dec.Tokens, rows, m.Config.Vocab, m.Config.MaxPositions)
	if err != nil {
		return statement.Request{}, nil, fmt.Errorf("inference: %w", err)
	}
	tr, err := m.Forward(m.NewCache(), req.Tokens())
	if err != nil {
		return statement.Request{}, nil, err
	}
	if err := checkOutput(tr, req); err != nil {
		return statement.Request{}, nil, fmt.Errorf("inference: the pass over the sequence disagrees with decoding: %w", err)
	}
	return req, tr, nil
}

// Prove proves the inference whose pass is tr (from [Generate]) for the
// statement: the model and request it states must be those of tr.
func Prove[E field.Scalar, P field.Ptr[E]](m *model.Model, st statement.Statement, req statement.Request, tr *model.Trace) (*Proof[E], error) {
	if err := supported(m); err != nil {
		return nil, err
	}
	if rows := tr.Embedding.Shape[0]; rows != req.Rows {
		return nil, fmt.Errorf("inference: a pass of %d rows for a request of a bucket of %d", rows, req.Rows)
	}
	proof := &Proof[E]{Tensors: Tensors(tr)}
	s := newRun[E, P](m, st, tr, proof, true)
	if err := s.run(); err != nil {
		return nil, err
	}
	return proof, nil
}

// Verify checks a proof that model m, on the request's prompt, greedily
// generated its output, in a pass of the request's rows, with statement
// st (whose digests must be those of the tokens). Library API, the
// native twin of package circuits' Direct circuit: used by the tests of
// packages inference and circuits, which run both on the same proofs; the
// commands, which hold the model id and the prover's pass, call
// [VerifyPass].
func Verify[E field.Scalar, P field.Ptr[E]](m *model.Model, st statement.Statement, req statement.Request, proof *Proof[E]) error {
	if err := supported(m); err != nil {
		return err
	}
	if err := req.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	// The shapes, ranges and constants of the pass come from the model:
	// a pass over placeholder tokens of the same length, whose opened
	// tensors are then replaced by the proof's.
	view, err := ShapePass(m, req.Rows)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return VerifyPass[E, P](m, m.ID(), view, st, req, proof)
}

// VerifyPass is Verify for a caller that already holds the model id
// (m.ID()) and a pass of m over req.Rows rows: [ShapePass], or the
// prover's own trace of the same length, whose shapes, ranges and
// constants are the same. It takes view over: the proof's opened tensors
// replace view's.
func VerifyPass[E field.Scalar, P field.Ptr[E]](m *model.Model, id *big.Int, view *model.Trace, st statement.Statement, req statement.Request, proof *Proof[E]) error {
	if err := supported(m); err != nil {
		return err
	}
	if err := req.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	want, err := statement.Of[E, P](id, req.Prompt, req.Output)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if st.ModelID == nil || st.InputDigest == nil || st.OutputDigest == nil ||
		want.ModelID.Cmp(st.ModelID) != 0 || want.InputDigest.Cmp(st.InputDigest) != 0 || want.OutputDigest.Cmp(st.OutputDigest) != 0 {
		return fmt.Errorf("%w: the statement is not that of this model and these tokens", ErrRejected)
	}
	if view == nil || len(view.Embedding.Data) != req.Rows*m.Config.Hidden {
		return fmt.Errorf("%w: the pass given is not one of %d rows", ErrRejected, req.Rows)
	}
	if err := bind(view, Segment{From: 0, To: len(view.Layers)}, proof.Tensors); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if err := checkPass(m, view, req.Tokens()); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	if err := checkOutput(view, req); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	s := newRun[E, P](m, st, view, proof, false)
	if err := s.run(); err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return nil
}

// supported reports whether the pipeline proves this model's family.
func supported(m *model.Model) error {
	switch m.Config.Family {
	case model.GPT2, model.Llama:
		return nil
	}
	return fmt.Errorf("inference: the %s family is not supported", m.Config.Family)
}

// protocolRun runs the transcript of one proof: the prover fills the proof,
// the verifier checks it, both derive the same challenges.
type protocolRun[E field.Scalar, P field.Ptr[E]] struct {
	m     *model.Model
	tr    *model.Trace
	seg   Segment
	t     *transcript.Transcript[E, P]
	proof *Proof[E]
	prove bool
}

func newRun[E field.Scalar, P field.Ptr[E]](m *model.Model, st statement.Statement, tr *model.Trace, proof *Proof[E], prove bool) *protocolRun[E, P] {
	return &protocolRun[E, P]{m: m, tr: tr, seg: Segment{From: 0, To: len(tr.Layers)},
		t: transcript.New[E, P](Domain, statement.Elements[E, P](st)...), proof: proof, prove: prove}
}

// run binds the opened tensors of the segment, then proves or verifies
// every contraction in order.
func (s *protocolRun[E, P]) run() error {
	var err error
	WalkSegment(s.tr, s.seg, func(t *model.Tensor) {
		if err == nil {
			err = s.t.AbsorbPacked(t.Data, t.Min, t.Max)
		}
	})
	if err != nil {
		return err
	}
	n := s.seg.To - s.seg.From
	if s.prove {
		s.proof.Layers = make([]LayerProof[E], n)
	} else if len(s.proof.Layers) != n {
		return fmt.Errorf("inference: %d layer proofs for %d layers", len(s.proof.Layers), n)
	}
	for i := s.seg.From; i < s.seg.To; i++ {
		s.t.Label(fmt.Sprintf("layer/%d", i))
		if err := s.layer(i); err != nil {
			return fmt.Errorf("inference: layer %d: %w", i, err)
		}
	}
	if s.seg.To != len(s.tr.Layers) {
		return nil
	}
	s.t.Label("lm_head")
	lm := &s.tr.LMHead
	return s.linear(&s.proof.LMHead, &lm.Input, []*model.MatMul{lm})
}

func (s *protocolRun[E, P]) layer(i int) error {
	l := &s.tr.Layers[i]
	p := &s.proof.Layers[i-s.seg.From]
	if err := s.linear(&p.QKV, &l.AttnNorm.Out, []*model.MatMul{&l.Q, &l.K, &l.V}); err != nil {
		return fmt.Errorf("qkv: %w", err)
	}
	if err := s.attention(p, l); err != nil {
		return fmt.Errorf("attention: %w", err)
	}
	if err := s.linear(&p.O, &l.Attention.Context.Out, []*model.MatMul{&l.O}); err != nil {
		return fmt.Errorf("output projection: %w", err)
	}
	mlp := []*model.MatMul{&l.Up}
	hidden := &l.Activation.Out
	if l.Gate != nil {
		mlp = []*model.MatMul{l.Gate, &l.Up}
		hidden = &l.Product.Out
	}
	if err := s.linear(&p.MLP, &l.MLPNorm.Out, mlp); err != nil {
		return fmt.Errorf("mlp up: %w", err)
	}
	if err := s.linear(&p.Down, hidden, []*model.MatMul{&l.Down}); err != nil {
		return fmt.Errorf("mlp down: %w", err)
	}
	return nil
}

// accClaim draws a point for the accumulator of r (shape of r.Out, padded
// by index) and returns the claim that its opened output and remainder
// determine there.
func (s *protocolRun[E, P]) accClaim(r *model.Requant, index []int, nbVars int) (poly.Claim[E], error) {
	point := s.t.Challenges(nbVars)
	spec := requant.Spec{Shape: r.Out.Shape, Multiplier: r.Multiplier, Shift: r.Shift, OutLo: r.Out.Min, OutHi: r.Out.Max}
	v, err := requant.EvaluateAccIndexed[E, P](&spec, r.Out.Data, r.Rem.Data, index, point)
	if err != nil {
		return poly.Claim[E]{}, err
	}
	return poly.Claim[E]{Point: point, Value: v}, nil
}

// linear proves or verifies the matmuls mms of one input x (opened): the
// claims on their accumulators share one row point. It then checks the
// claims the protocol leaves on x and on the weights and biases.
func (s *protocolRun[E, P]) linear(slot **linear.Proof[E], x *model.Tensor, mms []*model.MatMul) error {
	rows, in := x.Shape[0], x.Shape[1]
	cfg := linear.Config{Rows: rows, In: in, SharedRow: true}
	rowVars := poly.Log2Ceil(rows)
	rowPoint := s.t.Challenges(rowVars)
	var claims []poly.Claim[E]
	for _, mm := range mms {
		out := mm.Weight.Shape[0]
		cfg.Projections = append(cfg.Projections, linear.Projection{Out: out, Bias: mm.Bias != nil})
		colPoint := s.t.Challenges(poly.Log2Ceil(out))
		spec := requant.Spec{Shape: mm.Out.Shape, Multiplier: mm.Multiplier, Shift: mm.Shift, OutLo: mm.Out.Min, OutHi: mm.Out.Max}
		point := poly.Concat(rowPoint, colPoint)
		v, err := requant.EvaluateAcc[E, P](&spec, mm.Out.Data, mm.Rem.Data, point)
		if err != nil {
			return err
		}
		claims = append(claims, poly.Claim[E]{Point: point, Value: v})
	}
	var got linear.Claims[E]
	var err error
	if s.prove {
		w := linear.Witness{X: x.Data}
		for _, mm := range mms {
			w.Weights = append(w.Weights, mm.Weight.Data)
			w.Biases = append(w.Biases, mm.Bias)
		}
		*slot, got, err = linear.Prove(s.t, cfg, w, claims)
	} else {
		if *slot == nil {
			return fmt.Errorf("missing proof")
		}
		got, err = linear.Verify(s.t, cfg, *slot, claims)
	}
	if err != nil {
		return err
	}
	if err := checkTensorClaim[E, P](x, got.Input); err != nil {
		return err
	}
	for k, mm := range mms {
		w, err := linear.EvaluateWeight[E, P](mm.Weight.Data, mm.Weight.Shape[0], in, got.Weights[k].Point)
		if err != nil {
			return err
		}
		if !P(&w).Equal(&got.Weights[k].Value) {
			return fmt.Errorf("claim on %s does not match the model's weights", mm.Weight.Name)
		}
		if mm.Bias != nil {
			b, err := linear.EvaluateBias[E, P](mm.Bias, got.Biases[k].Point)
			if err != nil {
				return err
			}
			if !P(&b).Equal(&got.Biases[k].Value) {
				return fmt.Errorf("claim on the bias of %s does not match the model's", mm.Name)
			}
		}
	}
	return nil
}

// checkTensorClaim checks a claim on an opened matrix (zero-padded
// row-major layout).
func checkTensorClaim[E field.Scalar, P field.Ptr[E]](t *model.Tensor, c poly.Claim[E]) error {
	v, err := poly.EvaluateTensor[E, P](t.Data, t.Shape, c.Point)
	if err != nil {
		return err
	}
	if !P(&v).Equal(&c.Value) {
		return fmt.Errorf("claim on %s does not match its opened values", t.Name)
	}
	return nil
}

// attention proves or verifies the two halves of causal attention: the
// context accumulator from the probabilities and values, then the score
// accumulator (zero where masked) from the queries and keys.
func (s *protocolRun[E, P]) attention(p *LayerProof[E], l *model.Layer) error {
	a := &l.Attention
	hl := s.m.Config.HeadLayout()
	n := a.Query.Shape[0]
	cfg := attention.Config{Heads: hl.Heads, KVHeads: hl.KVHeads, HeadDim: hl.HeadDim, QueryRows: n, KeyRows: a.Start + n, Start: a.Start}
	scoreVars, err := cfg.ScoreVars()
	if err != nil {
		return err
	}
	scoreIndex, err := ScoreLayout(cfg, a.Scores.Out.Shape)
	if err != nil {
		return err
	}
	ctxIndex, err := poly.PaddedIndices(a.Context.Out.Shape)
	if err != nil {
		return err
	}
	_, ctxVars, _ := poly.TensorVars(a.Context.Out.Shape)
	ctx, err := s.accClaim(&a.Context, ctxIndex, ctxVars)
	if err != nil {
		return err
	}
	w := &attention.Witness{Query: a.Query.Data, Keys: a.Keys.Data, Values: a.Values.Data, Probs: a.Probs.Data}
	var oc attention.OutputClaims[E]
	if s.prove {
		p.Output, oc, err = attention.ProveOutput(s.t, cfg, w, []poly.Claim[E]{ctx})
	} else if p.Output == nil {
		return fmt.Errorf("missing output proof")
	} else {
		oc, err = attention.VerifyOutput(s.t, cfg, p.Output, []poly.Claim[E]{ctx})
	}
	if err != nil {
		return err
	}
	probs, err := poly.EvaluateIndexed[E, P](a.Probs.Data, scoreIndex, oc.Probs.Point)
	if err != nil {
		return err
	}
	if !P(&probs).Equal(&oc.Probs.Value) {
		return fmt.Errorf("claim on %s does not match its opened values", a.Probs.Name)
	}
	scores, err := s.accClaim(&a.Scores, scoreIndex, scoreVars)
	if err != nil {
		return err
	}
	var ic attention.InputClaims[E]
	if s.prove {
		p.Scores, ic, err = attention.ProveScores(s.t, cfg, w, []poly.Claim[E]{scores}, oc.PaddedValues)
	} else if p.Scores == nil {
		return fmt.Errorf("missing scores proof")
	} else {
		ic, err = attention.VerifyScores(s.t, cfg, p.Scores, []poly.Claim[E]{scores}, oc.PaddedValues)
	}
	if err != nil {
		return err
	}
	for _, check := range []struct {
		t *model.Tensor
		c poly.Claim[E]
	}{{&a.Query, ic.Query}, {&a.Keys, ic.Keys}, {&a.Values, ic.Values}} {
		if err := checkTensorClaim[E, P](check.t, check.c); err != nil {
			return err
		}
	}
	return nil
}

// ScoreLayout returns the padded index of every entry (h, i, j) of a score
// tensor of the given shape, in the attention protocol's layout.
func ScoreLayout(cfg attention.Config, shape []int) ([]int, error) {
	heads, rows, keys := shape[0], shape[1], shape[2]
	out := make([]int, 0, heads*rows*keys)
	for h := range heads {
		for i := range rows {
			for j := range keys {
				k, err := cfg.ScoreIndex(h, i, j)
				if err != nil {
					return nil, err
				}
				out = append(out, k)
			}
		}
	}
	return out, nil
}
