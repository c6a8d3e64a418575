package split

import (
	"context"
	"fmt"
	"time"

	"github.com/veriformer/veriformer/model"
)

// Step is one generated token with the logits it was chosen from (the
// last row of the pass, at the logit format).
type Step struct {
	Token  int
	Logits []int64
}

// Generate greedily decodes n tokens after prompt: the prompt as one pass
// (all its rows in each request; a prompt longer than the server's row
// limit as consecutive passes over its pieces, which gives the same
// logits), then one pass per generated token with only the new row (the
// client's KV cache holds the earlier keys and values). emit, if not nil,
// receives each step as soon as it is known.
func (c *Client) Generate(ctx context.Context, prompt []int, n int, emit func(Step)) ([]Step, error) {
	m := c.cfg.Model
	if n < 1 {
		return nil, fmt.Errorf("split: generate: want at least one new token, got %d", n)
	}
	if len(prompt)+n-1 > m.Config.MaxPositions {
		return nil, fmt.Errorf("split: generate: prompt of %d tokens plus %d new exceeds the context length %d", len(prompt), n, m.Config.MaxPositions)
	}
	cache := m.NewCache()
	input := prompt
	var steps []Step
	for i := range n {
		start := time.Now()
		before := c.Stats
		logits, err := c.pass(ctx, cache, input)
		if err != nil {
			return steps, fmt.Errorf("split: generate token %d: %w", i, err)
		}
		s := Step{Token: model.Argmax(logits), Logits: logits}
		spent := (c.Stats.Encrypt - before.Encrypt) + (c.Stats.Transfer - before.Transfer) + (c.Stats.ServerCompute - before.ServerCompute) +
			(c.Stats.Decrypt - before.Decrypt) + (c.Stats.Check - before.Check)
		c.Stats.ClientCompute += max(0, time.Since(start)-spent)
		steps = append(steps, s)
		if emit != nil {
			emit(s)
		}
		input = []int{s.Token}
	}
	return steps, nil
}

// pass runs tokens through the model in pieces of at most the server's
// row limit and returns the logits of the last row.
func (c *Client) pass(ctx context.Context, cache *model.Cache, tokens []int) ([]int64, error) {
	var logits []int64
	for len(tokens) > 0 {
		rows := min(len(tokens), c.maxRows)
		var err error
		if logits, err = c.forward(ctx, cache, tokens[:rows]); err != nil {
			return nil, err
		}
		tokens = tokens[rows:]
	}
	return logits, nil
}

// forward runs one pass over tokens at positions cache.Len… and returns
// the logits of the last row; it appends the new keys and values to cache
// only when the whole pass succeeds.
func (c *Client) forward(ctx context.Context, cache *model.Cache, tokens []int) ([]int64, error) {
	m := c.cfg.Model
	cfg := &m.Config
	q := m.Quant
	hl := cfg.HeadLayout()
	start, rows, kvd := cache.Len, len(tokens), hl.KVDim()
	h, err := m.Embed(tokens, start)
	if err != nil {
		return nil, err
	}
	keys := make([][]int64, cfg.Layers)
	values := make([][]int64, cfg.Layers)
	for li := range q.Layers {
		ql := &q.Layers[li]
		p := fmt.Sprintf("layer.%d.", li)
		attnNorm, err := m.NormRows(p+"attn_norm", &ql.AttnNorm, h)
		if err != nil {
			return nil, err
		}
		accs, err := c.products(ctx, li, RoundQKV, attnNorm.Out)
		if err != nil {
			return nil, err
		}
		var qkv [3]model.MatMul
		for i, pr := range projections(ql, RoundQKV) {
			if qkv[i], err = model.ProjectAcc(p+pr.Name, pr.Q, attnNorm.Out, accs[i]); err != nil {
				return nil, err
			}
		}
		query, key, value := qkv[0].Out, qkv[1].Out, qkv[2].Out
		if cfg.Family == model.Llama {
			rq, err := m.RopeRows(p+"rope_q", query, hl.Heads, start)
			if err != nil {
				return nil, err
			}
			rk, err := m.RopeRows(p+"rope_k", key, hl.KVHeads, start)
			if err != nil {
				return nil, err
			}
			query, key = rq.Out, rk.Out
		}
		keys[li] = append(cache.Keys[li][:start*kvd:start*kvd], key.Data...)
		values[li] = append(cache.Values[li][:start*kvd:start*kvd], value.Data...)
		kvShape := []int{start + rows, kvd}
		keysT := model.Tensor{Name: p + "keys", Shape: kvShape, Data: keys[li], Frac: key.Frac, Min: key.Min, Max: key.Max}
		valuesT := model.Tensor{Name: p + "values", Shape: kvShape, Data: values[li], Frac: value.Frac, Min: value.Min, Max: value.Max}
		att, err := m.AttendRows(p+"attn", query, keysT, valuesT, start)
		if err != nil {
			return nil, err
		}
		ctxOut := att.Context.Out
		if accs, err = c.products(ctx, li, RoundOutput, ctxOut); err != nil {
			return nil, err
		}
		o, err := model.ProjectAcc(p+"o", &ql.O, ctxOut, accs[0])
		if err != nil {
			return nil, err
		}
		mid, err := model.AddResidual(p+"mid", h, o.Out)
		if err != nil {
			return nil, err
		}
		mlpNorm, err := m.NormRows(p+"mlp_norm", &ql.MLPNorm, mid)
		if err != nil {
			return nil, err
		}
		if accs, err = c.products(ctx, li, RoundMLP, mlpNorm.Out); err != nil {
			return nil, err
		}
		var gate *model.MatMul
		if ql.Gate != nil {
			g, err := model.ProjectAcc(p+"gate", ql.Gate, mlpNorm.Out, accs[0])
			if err != nil {
				return nil, err
			}
			gate, accs = &g, accs[1:]
		}
		up, err := model.ProjectAcc(p+"up", &ql.Up, mlpNorm.Out, accs[0])
		if err != nil {
			return nil, err
		}
		hidden, err := m.MLPHidden(p+"mlp", gate, up)
		if err != nil {
			return nil, err
		}
		if accs, err = c.products(ctx, li, RoundDown, hidden); err != nil {
			return nil, err
		}
		down, err := model.ProjectAcc(p+"down", &ql.Down, hidden, accs[0])
		if err != nil {
			return nil, err
		}
		if h, err = model.AddResidual(p+"output", mid, down.Out); err != nil {
			return nil, err
		}
	}
	final, err := m.NormRows("final_norm", &q.FinalNorm, h)
	if err != nil {
		return nil, err
	}
	w := &q.LMHead.Weight
	acc := model.MatMulInt(final.Out.Data, rows, cfg.Hidden, w.Data, cfg.Vocab, nil)
	lm, err := model.ProjectAcc("lm_head", &q.LMHead, final.Out, acc)
	if err != nil {
		return nil, err
	}
	cache.Len = start + rows
	copy(cache.Keys, keys)
	copy(cache.Values, values)
	return lm.Out.Data[(rows-1)*cfg.Vocab:], nil
}
