package inference

import (
	"fmt"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/protocol/nonlinear"
	"github.com/veriformer/veriformer/statement"
)

// checkOutput checks that the live rows s − 1 ≤ i < n of the logits have
// the request's output tokens T[i + 1] as their argmax (ties to the
// smallest index); the pad rows are stated nothing about.
func checkOutput(tr *model.Trace, req statement.Request) error {
	logits := tr.Logits()
	rows, vocab := logits.Shape[0], logits.Shape[1]
	if rows != req.Rows {
		return fmt.Errorf("a pass of %d rows for a request of a bucket of %d", rows, req.Rows)
	}
	for k, tok := range req.Output {
		row := len(req.Prompt) - 1 + k
		if err := nonlinear.CheckArgmax(logits.Data[row*vocab:(row+1)*vocab], tok); err != nil {
			return fmt.Errorf("output token %d: %w", k, err)
		}
	}
	return nil
}

// checkPass runs every element-wise check of a pass over tokens on its
// opened tensors: the embedding, the norms, RoPE (Llama), the softmax, the
// activation (GELU, or SiLU and the gated product), the residual adds.
func checkPass(m *model.Model, tr *model.Trace, tokens []int) error {
	return checkSegment(m, tr, Segment{From: 0, To: len(tr.Layers)}, tokens)
}

// checkSegment runs the element-wise checks of one segment: the embedding
// if it is the first, its blocks, the final norm if it is the last (the
// caller checks the argmax).
func checkSegment(m *model.Model, tr *model.Trace, seg Segment, tokens []int) error {
	if seg.From == 0 {
		if err := checkEmbedding(m, tr, tokens); err != nil {
			return err
		}
	}
	withMean := m.Config.Family == model.GPT2
	for i := seg.From; i < seg.To; i++ {
		if err := checkLayer(m, tr, &tr.Layers[i], withMean); err != nil {
			return fmt.Errorf("layer %d: %w", i, err)
		}
	}
	if seg.To != len(tr.Layers) {
		return nil
	}
	return nonlinear.CheckNorm(&tr.FinalNorm, withMean)
}

func checkLayer(m *model.Model, tr *model.Trace, l *model.Layer, withMean bool) error {
	if err := nonlinear.CheckNorm(&l.AttnNorm, withMean); err != nil {
		return err
	}
	if l.RopeQ != nil {
		if err := nonlinear.CheckRope(l.RopeQ, tr.Start, m.Config.HeadLayout().Heads); err != nil {
			return err
		}
		if err := nonlinear.CheckRope(l.RopeK, tr.Start, m.Config.HeadLayout().KVHeads); err != nil {
			return err
		}
	}
	if err := nonlinear.CheckSoftmax(&l.Attention); err != nil {
		return err
	}
	if err := nonlinear.CheckSum(&l.Input, &l.O.Out, &l.Mid); err != nil {
		return err
	}
	if err := nonlinear.CheckNorm(&l.MLPNorm, withMean); err != nil {
		return err
	}
	if err := nonlinear.CheckLookup(&l.Activation); err != nil {
		return err
	}
	if l.Product != nil {
		if err := nonlinear.CheckProduct(&l.Activation.Out, &l.Up.Out, l.Product); err != nil {
			return err
		}
	}
	return nonlinear.CheckSum(&l.Mid, &l.Down.Out, &l.Output)
}

// checkEmbedding checks embedding[r] = E[token_r] + P[r].
func checkEmbedding(m *model.Model, tr *model.Trace, tokens []int) error {
	q := m.Quant
	d := m.Config.Hidden
	emb := tr.Embedding.Data
	if len(emb) != len(tokens)*d {
		return fmt.Errorf("embedding of %d values for %d tokens", len(emb), len(tokens))
	}
	for r, tok := range tokens {
		if tok < 0 || tok >= m.Config.Vocab {
			return fmt.Errorf("token %d = %d outside the vocabulary", r, tok)
		}
		for i := range d {
			want := q.TokenEmbedding[tok*d+i]
			if q.PositionEmbedding != nil {
				want += q.PositionEmbedding[r*d+i]
			}
			if emb[r*d+i] != want {
				return fmt.Errorf("embedding[%d][%d] = %d, want %d", r, i, emb[r*d+i], want)
			}
		}
	}
	return nil
}
