package inference

import (
	"fmt"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/transcript"
)

// WalkSegment visits the opened tensors of one segment in their canonical
// order: the embedding if it is the first; per block the attention norm,
// the Q, K, V projections (and RoPE), the attention scores, softmax and
// context, the output projection, the residual, the MLP norm, the MLP
// projections and activation, the residual; the final norm and the LM
// head if it has them (Segment.HasHead). It is the order in which the
// transcript absorbs them and the circuit holds them; a whole pass is the
// segment of all its blocks.
//
// Norm statistics: mean and its remainder (LayerNorm), exponent, the 1/√
// input, remainder and output, then the output and its remainder.
// Softmax: the row maxima, the high limbs of the shifted scores, the
// probabilities and their remainders.
func WalkSegment(tr *model.Trace, seg Segment, visit func(t *model.Tensor)) {
	requant := func(r *model.Requant) { visit(&r.Out); visit(&r.Rem) }
	norm := func(n *model.Norm) {
		if tr.Family == model.GPT2 {
			visit(&n.Mean)
			visit(&n.MeanRem)
		}
		visit(&n.Exponent)
		visit(&n.RSqrt.In)
		visit(&n.RSqrtRem)
		visit(&n.RSqrt.Out)
		requant(&n.Requant)
	}
	if seg.From == 0 {
		visit(&tr.Embedding)
	}
	for i := seg.From; i < seg.To; i++ {
		l := &tr.Layers[i]
		norm(&l.AttnNorm)
		requant(&l.Q.Requant)
		requant(&l.K.Requant)
		requant(&l.V.Requant)
		if l.RopeQ != nil {
			requant(&l.RopeQ.Requant)
			requant(&l.RopeK.Requant)
		}
		a := &l.Attention
		requant(&a.Scores)
		visit(&a.RowMax)
		visit(&a.ExpHigh.In)
		visit(&a.Probs)
		visit(&a.ProbRem)
		requant(&a.Context)
		requant(&l.O.Requant)
		visit(&l.Mid)
		norm(&l.MLPNorm)
		if l.Gate != nil {
			requant(&l.Gate.Requant)
		}
		requant(&l.Up.Requant)
		visit(&l.Activation.Out)
		if l.Product != nil {
			requant(l.Product)
		}
		requant(&l.Down.Requant)
		visit(&l.Output)
	}
	if seg.HasHead(len(tr.Layers)) {
		norm(&tr.FinalNorm)
		requant(&tr.LMHead.Requant)
	}
}

// WalkExact visits the opened tensors of a segment whose exact range both
// verifiers check on top of the packing window: the requantized outputs of
// every contraction (Q, K, V, the attention scores and context, O, gate,
// up, down, and the LM head in a segment with it) and the softmax row
// maxima. No element-wise check bounds them otherwise: a value in the
// window [Min, Min + 2^b) but above Max would be a pass on which the model
// itself stops with a BoundError. Every other opened tensor is either a
// remainder whose range is its window, or the output of a check that
// bounds it exactly (lookups, norms, RoPE, residual sums, products).
func WalkExact(tr *model.Trace, seg Segment, visit func(t *model.Tensor)) {
	for i := seg.From; i < seg.To; i++ {
		l := &tr.Layers[i]
		visit(&l.Q.Out)
		visit(&l.K.Out)
		visit(&l.V.Out)
		a := &l.Attention
		visit(&a.Scores.Out)
		visit(&a.RowMax)
		visit(&a.Context.Out)
		visit(&l.O.Out)
		if l.Gate != nil {
			visit(&l.Gate.Out)
		}
		visit(&l.Up.Out)
		visit(&l.Down.Out)
	}
	if seg.HasHead(len(tr.Layers)) {
		visit(&tr.LMHead.Out)
	}
}

// relink points the tensors that the model's trace shares between steps
// (a step's input is an earlier step's output) at their sources, after the
// opened tensors were replaced.
func relink(tr *model.Trace) {
	in := tr.Embedding
	for i := range tr.Layers {
		l := &tr.Layers[i]
		l.Input = in
		l.AttnNorm.Input = in
		l.Q.Input, l.K.Input, l.V.Input = l.AttnNorm.Out, l.AttnNorm.Out, l.AttnNorm.Out
		a := &l.Attention
		a.Query, a.Keys, a.Values = l.Q.Out, l.K.Out, l.V.Out
		if l.RopeQ != nil {
			l.RopeQ.Input, l.RopeK.Input = l.Q.Out, l.K.Out
			a.Query, a.Keys = l.RopeQ.Out, l.RopeK.Out
		}
		l.O.Input = a.Context.Out
		l.MLPNorm.Input = l.Mid
		l.Up.Input = l.MLPNorm.Out
		hidden := l.Activation.Out
		if l.Gate != nil {
			l.Gate.Input = l.MLPNorm.Out
			l.Activation.In = l.Gate.Out
			hidden = l.Product.Out
		} else {
			l.Activation.In = l.Up.Out
		}
		l.Down.Input = hidden
		in = l.Output
	}
	tr.FinalNorm.Input = in
	tr.LMHead.Input = tr.FinalNorm.Out
}

// Tensors returns the values of the opened tensors of a pass, in canonical
// order.
func Tensors(tr *model.Trace) [][]int64 {
	var out [][]int64
	WalkSegment(tr, Segment{From: 0, To: len(tr.Layers)}, func(t *model.Tensor) { out = append(out, t.Data) })
	return out
}

// bind replaces the opened tensors of a segment of a trace (in canonical
// order) by the given values, checking their sizes, their packing windows
// and, for the tensors of [WalkExact], their exact ranges, and relinks the
// shared tensors.
func bind(tr *model.Trace, seg Segment, values [][]int64) error {
	exact := map[*model.Tensor]bool{}
	WalkExact(tr, seg, func(t *model.Tensor) { exact[t] = true })
	i := 0
	var err error
	WalkSegment(tr, seg, func(t *model.Tensor) {
		if err != nil {
			return
		}
		if i >= len(values) {
			err = fmt.Errorf("inference: the proof opens %d tensors, the model needs more", len(values))
			return
		}
		v := values[i]
		i++
		if err = checkWindow(t, v); err != nil {
			return
		}
		if exact[t] {
			if err = checkExact(t, v); err != nil {
				return
			}
		}
		t.Data = v
	})
	if err != nil {
		return err
	}
	if i != len(values) {
		return fmt.Errorf("inference: the proof opens %d tensors, the model needs %d", len(values), i)
	}
	relink(tr)
	return nil
}

// checkWindow checks that values fit tensor t: its size, and the window
// [Min, Min + 2^b) ⊇ [Min, Max] that the transcript's packing (and the
// circuit's range check) enforces. The exact ranges are checked by the
// element-wise checks or, for the tensors of [WalkExact], by [checkExact].
func checkWindow(t *model.Tensor, v []int64) error {
	if len(v) != len(t.Data) {
		return fmt.Errorf("inference: opened tensor %s has %d values, want %d", t.Name, len(v), len(t.Data))
	}
	layout, err := transcript.Layout(t.Min, t.Max, 254)
	if err != nil {
		return err
	}
	for k, x := range v {
		if x < t.Min || (uint64(x)-uint64(t.Min))>>layout.Bits != 0 {
			return fmt.Errorf("inference: opened tensor %s[%d] = %d outside [%d, %d + 2^%d)", t.Name, k, x, t.Min, t.Min, layout.Bits)
		}
	}
	return nil
}

// checkExact checks that values lie in the exact range [Min, Max] of t.
func checkExact(t *model.Tensor, v []int64) error {
	for k, x := range v {
		if x < t.Min || x > t.Max {
			return fmt.Errorf("inference: opened tensor %s[%d] = %d outside its range [%d, %d]", t.Name, k, x, t.Min, t.Max)
		}
	}
	return nil
}

// ShapePass returns a pass of the model over rows placeholder tokens: its
// shapes, ranges and constants are those of every pass of that length,
// whatever the tokens. Verifiers and circuits take their layout from it.
func ShapePass(m *model.Model, rows int) (*model.Trace, error) {
	if rows < 1 || rows > m.Config.MaxPositions {
		return nil, fmt.Errorf("inference: a pass of %d rows (context %d)", rows, m.Config.MaxPositions)
	}
	return m.Forward(m.NewCache(), make([]int, rows))
}

// Index maps each opened tensor of a pass (by its address in tr) to its
// position in the canonical order.
func Index(tr *model.Trace) map[*model.Tensor]int {
	out := map[*model.Tensor]int{}
	WalkSegment(tr, Segment{From: 0, To: len(tr.Layers)}, func(t *model.Tensor) { out[t] = len(out) })
	return out
}
