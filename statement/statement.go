package statement

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/transcript"
)

// TokenBits bounds token ids: every vocabulary has fewer than 2²⁰ tokens.
const TokenBits = 20

// ModelIDBits is the size of a model id: small enough to be the same
// integer in BN254 Fr, BLS12-377 Fr and BW6-761 Fr.
const ModelIDBits = 250

// Statement is what a proof proves: this model (by id), on this input,
// produced this output. Each value is below 2²⁵³ and means the same
// integer in the scalar fields of BN254, BLS12-377 and BW6-761.
type Statement struct {
	ModelID      *big.Int
	InputDigest  *big.Int
	OutputDigest *big.Int
}

// String prints the statement as three hexadecimal values.
func (s Statement) String() string {
	return fmt.Sprintf("model %#064x input %#064x output %#064x", s.ModelID, s.InputDigest, s.OutputDigest)
}

// Elements returns the statement as field elements, in the order the
// transcript absorbs them and the final proof exposes them.
func Elements[E field.Scalar, P field.Ptr[E]](s Statement) []E {
	out := make([]E, 3)
	for i, v := range []*big.Int{s.ModelID, s.InputDigest, s.OutputDigest} {
		P(&out[i]).SetBigInt(v)
	}
	return out
}

// TokensDigest is the digest of a token sequence over the field E: a
// transcript for domain "tokens" with an empty statement that absorbs the
// tokens packed by AbsorbPacked over [0, 2²⁰ − 1] (the count, then twelve
// 20-bit tokens per element on both fields); the digest is its final state.
func TokensDigest[E field.Scalar, P field.Ptr[E]](tokens []int) (E, error) {
	values := make([]int64, len(tokens))
	for i, t := range tokens {
		if t < 0 || t >= 1<<TokenBits {
			var z E
			return z, fmt.Errorf("statement: token %d is %d, outside [0, 2^%d)", i, t, TokenBits)
		}
		values[i] = int64(t)
	}
	tr := transcript.New[E, P]("tokens")
	if err := tr.AbsorbPacked(values, 0, 1<<TokenBits-1); err != nil {
		var z E
		return z, err
	}
	return tr.State(), nil
}

// New returns the statement of an inference over the field E: the model
// id, the digest of the input tokens and the digest of the output tokens.
func New[E field.Scalar, P field.Ptr[E]](m *model.Model, input, output []int) (Statement, error) {
	return Of[E, P](ModelID(m), input, output)
}

// Of is New for a model id already computed (ModelID hashes every weight):
// the statement of id with the digests of input and output over E.
func Of[E field.Scalar, P field.Ptr[E]](id *big.Int, input, output []int) (Statement, error) {
	in, err := TokensDigest[E, P](input)
	if err != nil {
		return Statement{}, fmt.Errorf("statement: input: %w", err)
	}
	out, err := TokensDigest[E, P](output)
	if err != nil {
		return Statement{}, fmt.Errorf("statement: output: %w", err)
	}
	var a, b big.Int
	P(&in).BigInt(&a)
	P(&out).BigInt(&b)
	return Statement{ModelID: new(big.Int).Set(id), InputDigest: &a, OutputDigest: &b}, nil
}

// ModelID identifies a quantized model in the direct design: SHA-256
// of the canonical encoding of everything the integer pass reads (config,
// formats, integer weights, biases, multipliers, shifts, ranges, tables)
// and of the tokenizer that gives the tokens their text (the digest of
// its normalised content and beginning-of-sequence rule,
// tokenizer.Codec.Digest), keeping the low 250 bits. The encoding is documented in
// docs/statement.md so that anyone can recompute the id from the model.
func ModelID(m *model.Model) *big.Int {
	h := sha256.New()
	w := &encoder{buf: make([]byte, 0, 1<<16), flush: func(b []byte) { h.Write(b) }}
	encodeModel(w, m)
	w.done()
	sum := h.Sum(nil)
	id := new(big.Int).SetBytes(sum)
	return id.And(id, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), ModelIDBits), big.NewInt(1)))
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

func (e *encoder) weight(w *model.Weight) {
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

func (e *encoder) table(t *model.Table) {
	if t == nil {
		e.string("")
		return
	}
	e.string(t.Name)
	_, outputs := t.Entries()
	e.int(t.Lo)
	e.ints(outputs)
}

func (e *encoder) linear(l *model.QLinear) {
	e.weight(&l.Weight)
	e.ints(l.Bias)
	e.ints(l.Multiplier)
	e.int(int64(l.Shift))
	e.int(l.OutLo)
	e.int(l.OutHi)
}

func (e *encoder) norm(n *model.QNorm) {
	e.weight(&n.Gamma)
	e.ints(n.Beta)
	e.int(n.Epsilon)
	e.int(int64(n.MaxExponent))
	e.int(n.Multiplier)
	e.int(int64(n.Shift))
}

func encodeModel(e *encoder, m *model.Model) {
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
		for _, lin := range []*model.QLinear{&l.Q, &l.K, &l.V, &l.O} {
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
	for _, r := range []model.Rescale{q.Score, q.Context, q.Product} {
		e.int(r.Multiplier)
		e.int(int64(r.Shift))
	}
	t := &q.Tables
	for _, tb := range []*model.Table{t.Activation, t.Exp, t.ExpHigh, t.RSqrt, t.RopeCos, t.RopeSin} {
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
