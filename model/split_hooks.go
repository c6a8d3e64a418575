package model

import "fmt"

// The functions of this file expose the steps of [Model.Forward] one by one
// for a caller that computes the projections' accumulators somewhere else
// (package split has them computed on encrypted activations) and runs the
// rest of the pass itself. Each step applies exactly the rule Forward
// applies, so a pass assembled from them with exact accumulators produces
// Forward's tensors bit for bit.

// Embed returns the embedding rows of tokens at positions start…start+n−1:
// E[token] (plus P[position] for GPT-2), checked against the residual range.
func (m *Model) Embed(tokens []int, start int) (Tensor, error) {
	return m.embed(tokens, start, nil)
}

// EmbedStacked returns the embedding rows of a stacked pass
// (ForwardStacked): row r at its position within its request, r −
// begins[r].
func (m *Model) EmbedStacked(tokens, begins []int) (Tensor, error) {
	if err := CheckBegins(begins, len(tokens)); err != nil {
		return Tensor{}, err
	}
	return m.embed(tokens, 0, begins)
}

// embed is Embed, with begins EmbedStacked.
func (m *Model) embed(tokens []int, start int, begins []int) (Tensor, error) {
	c := &m.Config
	q := m.Quant
	if err := checkTokens(c, tokens, positions(start, len(tokens), begins)-len(tokens)); err != nil {
		return Tensor{}, err
	}
	d := c.Hidden
	emb := make([]int64, len(tokens)*d)
	for r, tok := range tokens {
		copy(emb[r*d:(r+1)*d], q.TokenEmbedding[tok*d:(tok+1)*d])
		if c.Family == GPT2 {
			pos := position(start, r, begins)
			for i, p := range q.PositionEmbedding[pos*d : (pos+1)*d] {
				emb[r*d+i] += p
			}
		}
	}
	lo, hi := rangeOf(ResidualBits)
	if err := checkRange("embedding", emb, lo, hi); err != nil {
		return Tensor{}, err
	}
	return tensor("embedding", []int{len(tokens), d}, emb, q.Formats.Residual, lo, hi), nil
}

// NormRows applies the quantized norm q to the rows of in ([rows, d]).
func (m *Model) NormRows(name string, q *QNorm, in Tensor) (Norm, error) {
	return m.norm(name, q, in, in.Shape[0])
}

// ProjectAcc finishes the projection q of in ([rows, In]) from its
// accumulator without bias, acc[r·Out+j] = Σᵢ in[r][i]·Wq[j][i]: it adds
// the bias (GPT-2) and requantizes, exactly as [Model.Forward] does after
// [MatMulInt]. acc is not modified.
func ProjectAcc(name string, q *QLinear, in Tensor, acc []int64) (MatMul, error) {
	rows, out := in.Shape[0], q.Weight.Shape[0]
	if len(acc) != rows*out {
		return MatMul{}, fmt.Errorf("model: %s: accumulator has %d values, want %d", name, len(acc), rows*out)
	}
	full := acc
	if q.Bias != nil {
		full = make([]int64, len(acc))
		for i, a := range acc {
			full[i] = a + q.Bias[i%out]
		}
	}
	bound := int64(1) << accumulatorBits
	r, err := requant(name, tensor(name+".acc", []int{rows, out}, full, q.InFrac, -bound, bound), q.Multiplier, q.Shift, q.OutFrac, q.OutLo, q.OutHi)
	if err != nil {
		return MatMul{}, err
	}
	return MatMul{Name: name, Input: in, Weight: &q.Weight, Bias: q.Bias, Requant: r}, nil
}

// RopeRows rotates in ([rows, heads·hd]) at positions start…start+rows−1
// (Llama).
func (m *Model) RopeRows(name string, in Tensor, heads, start int) (*Rope, error) {
	return m.rope(name, in, in.Shape[0], heads, start, nil)
}

// AttendRows runs causal attention of the query rows q ([n, Heads·hd]) at
// positions start…start+n−1 against keys and values ([start+n,
// KVHeads·hd]), in the head layout (Config.HeadLayout).
func (m *Model) AttendRows(name string, q, keys, values Tensor, start int) (Attention, error) {
	n := q.Shape[0]
	kvd := m.Config.HeadLayout().KVDim()
	if len(keys.Data) != (start+n)*kvd || len(values.Data) != (start+n)*kvd {
		return Attention{}, fmt.Errorf("model: %s: keys and values must hold %d rows of width %d", name, start+n, kvd)
	}
	return m.attention(name, q, keys, values, n, start, nil)
}

// AddResidual returns a + b checked against the residual range.
func AddResidual(name string, a, b Tensor) (Tensor, error) {
	return add(name, a, b)
}

// MLPHidden returns the input of the down projection: GELU(up) for GPT-2
// (gate nil), the requantized SiLU(gate) ⊙ up for Llama.
func (m *Model) MLPHidden(name string, gate *MatMul, up MatMul) (Tensor, error) {
	actIn := up.Out
	if gate != nil {
		actIn = gate.Out
	}
	act, err := m.Quant.Tables.Activation.apply(name+".act.in", actIn.Data)
	if err != nil {
		return Tensor{}, err
	}
	lo, hi := rangeOf(ActivationBits)
	if gate == nil {
		return tensor(name+".act", actIn.Shape, act, actIn.Frac, lo, hi), nil
	}
	prod := make([]int64, len(act))
	for i, a := range act {
		prod[i] = a * up.Out.Data[i]
	}
	pb := hi * hi
	q := m.Quant
	r, err := requant(name+".product", tensor(name+".product.acc", actIn.Shape, prod, actIn.Frac+up.Out.Frac, -pb, pb), []int64{q.Product.Multiplier}, q.Product.Shift, q.Formats.Hidden, lo, hi)
	if err != nil {
		return Tensor{}, err
	}
	return r.Out, nil
}
