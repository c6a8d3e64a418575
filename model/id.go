package model

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/big"
)

// IDBits is the size of a model's id: small enough to be the same
// integer in BN254 Fr, BLS12-377 Fr and BW6-761 Fr (statement.ModelIDBits).
const IDBits = 250

// ID identifies the quantized model, and is the direct design's model
// id: SHA-256 of the canonical encoding of everything the integer pass
// reads (config, formats, integer weights, biases, multipliers, shifts,
// ranges, tables) and of the tokenizer that gives the tokens their text
// (the digest of its normalised content and beginning-of-sequence rule,
// tokenizer.Codec.Digest), keeping the low [IDBits] bits. The encoding is
// documented in docs/statement.md so that anyone can recompute the id
// from the model.
func (m *Model) ID() *big.Int {
	h := sha256.New()
	w := &encoder{buf: make([]byte, 0, 1<<16), flush: func(b []byte) { h.Write(b) }}
	encodeModel(w, m)
	w.done()
	sum := h.Sum(nil)
	id := new(big.Int).SetBytes(sum)
	return id.And(id, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), IDBits), big.NewInt(1)))
}

// encoder writes little-endian integers and length-prefixed strings.
type encoder struct {
	buf   []byte
	flush func([]byte)
}

func (e *encoder) int(v int64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(v))
	if len(e.buf) >= 1<<15 {
		e.done()
	}
}

func (e *encoder) float(v float64) { e.int(int64(math.Float64bits(v))) }

func (e *encoder) string(s string) {
	e.int(int64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) ints(vs []int64) {
	e.int(int64(len(vs)))
	for _, v := range vs {
		e.int(v)
	}
}

func (e *encoder) weight(w *Weight) {
	e.string(w.Name)
	e.int(int64(len(w.Shape)))
	for _, d := range w.Shape {
		e.int(int64(d))
	}
	e.int(int64(len(w.Data)))
	for _, v := range w.Data {
		e.buf = append(e.buf, byte(v))
	}
}

func (e *encoder) done() {
	e.flush(e.buf)
	e.buf = e.buf[:0]
}

func (e *encoder) table(t *Table) {
	if t == nil {
		e.string("")
		return
	}
	e.string(t.Name)
	_, outputs := t.Entries()
	e.int(t.Lo)
	e.ints(outputs)
}

func (e *encoder) linear(l *QLinear) {
	e.weight(&l.Weight)
	e.ints(l.Bias)
	e.ints(l.Multiplier)
	e.int(int64(l.Shift))
	e.int(l.OutLo)
	e.int(l.OutHi)
}

func (e *encoder) norm(n *QNorm) {
	e.weight(&n.Gamma)
	e.ints(n.Beta)
	e.int(n.Epsilon)
	e.int(int64(n.MaxExponent))
	e.int(n.Multiplier)
	e.int(int64(n.Shift))
}

func encodeModel(e *encoder, m *Model) {
	c := &m.Config
	e.string("veriformer/model/v2")
	e.string(string(c.Family))
	for _, v := range []int{c.Vocab, c.Hidden, c.Layers, c.Heads, c.KVHeads, c.Intermediate, c.MaxPositions} {
		e.int(int64(v))
	}
	e.float(c.RopeTheta)
	q := m.Quant
	f := q.Formats
	for _, v := range []int{f.Residual, f.Normed, f.QK, f.Value, f.Context, f.Gate, f.Up, f.Hidden, f.Logit} {
		e.int(int64(v))
	}
	e.ints(q.TokenEmbedding)
	e.ints(q.PositionEmbedding)
	for i := range q.Layers {
		l := &q.Layers[i]
		e.norm(&l.AttnNorm)
		for _, lin := range []*QLinear{&l.Q, &l.K, &l.V, &l.O} {
			e.linear(lin)
		}
		e.norm(&l.MLPNorm)
		if l.Gate != nil {
			e.linear(l.Gate)
		}
		e.linear(&l.Up)
		e.linear(&l.Down)
	}
	e.norm(&q.FinalNorm)
	e.linear(&q.LMHead)
	for _, r := range []Rescale{q.Score, q.Context, q.Product} {
		e.int(r.Multiplier)
		e.int(int64(r.Shift))
	}
	t := &q.Tables
	for _, tb := range []*Table{t.Activation, t.Exp, t.ExpHigh, t.RSqrt, t.RopeCos, t.RopeSin} {
		e.table(tb)
	}
	e.int(int64(q.RopePositions))
	if m.Tokenizer == nil {
		e.int(0)
		return
	}
	digest := m.Tokenizer.Digest()
	e.int(1)
	e.buf = append(e.buf, digest[:]...)
}
