package committed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/lookup"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/protocol/kvcache"
	"github.com/veriformer/veriformer/protocol/linear"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/sumcheck"
)

// FormatVersion is the version of the binary encoding.
const FormatVersion = 14

// Bounds of the decoder: sum-check rounds, values per round, GKR layers,
// accumulators, column evaluations and opening bytes.
const (
	maxRounds       = 64
	maxRoundValues  = 16
	maxLayers       = 64
	maxAccumulators = 1 << 16
	maxColumns      = 16
	maxOpeningBytes = 1 << 20
	maxProjections  = 1 << 12
	maxResiduals    = 1 << 12
	maxCacheBlocks  = 1 << 10
	maxParts        = 1 << (pcs.MaxNbVars - PartVars)
)

var magic = []byte("veriformer/committed")

// MarshalBinary writes the proof: the magic string, FormatVersion, then
// its fields in declaration order — G1 points compressed (48 bytes),
// scalars canonical (32 bytes), counts as 4-byte big-endian integers
// (before the parts of the tensors and of each limb row), a presence
// byte before the boundary, the opening as pcs encodes it behind its
// length.
func (p *Proof) MarshalBinary() ([]byte, error) {
	if p.Lookup == nil || p.Decomposition == nil || p.Opening == nil {
		return nil, errors.New("committed: encode: incomplete proof")
	}
	w := &writer{}
	w.buf.Write(magic)
	w.count(FormatVersion)
	w.points(p.Tensors)
	w.points(p.Multiplicities)
	for j := range p.Limbs {
		w.points(p.Limbs[j])
	}
	if p.Boundary != nil {
		w.buf.WriteByte(1)
		w.point(p.Boundary)
	} else {
		w.buf.WriteByte(0)
	}
	w.scalar(&p.BoundaryEval)
	if p.Incoming != nil {
		w.buf.WriteByte(1)
		w.point(p.Incoming)
	} else {
		w.buf.WriteByte(0)
	}
	w.count(len(p.LimbEvals))
	for j := range p.LimbEvals {
		w.scalar(&p.LimbEvals[j])
	}
	w.count(len(p.Functions))
	for f := range p.Functions {
		w.scalar(&p.Functions[f].In)
		w.scalar(&p.Functions[f].Out)
	}
	w.fraction(&p.Lookup.Witness)
	w.fraction(&p.Lookup.Table)
	w.scalar(&p.Lookup.MultiplicityEval)
	w.scalars(p.Lookup.ColumnEvals)
	w.scalars(p.Lookup.TableEvals)
	w.rounds(p.Decomposition.SumCheck.Rounds)
	w.scalars(p.Decomposition.Evaluations)
	w.scalars(p.Accumulators)
	w.rounds(p.Requant.Rounds)
	w.scalar(&p.RequantEval)
	w.count(len(p.Projections))
	for _, lp := range p.Projections {
		if lp == nil || lp.Merge != nil {
			return nil, errors.New("committed: encode: a projection proof is missing or has unshared rows")
		}
		w.scalars(lp.Biases)
		w.rounds(lp.SumCheck.Rounds)
		w.scalars(lp.Inputs)
		w.scalars(lp.Weights)
	}
	w.factors(p.Products)
	w.factors(p.Rotations)
	w.factors(p.Attention)
	w.count(len(p.Keys))
	for k := range p.Keys {
		w.rounds(p.Keys[k].SumCheck.Rounds)
		w.scalar(&p.Keys[k].K)
	}
	w.count(len(p.Norms))
	for k := range p.Norms {
		n := &p.Norms[k]
		for j := range n.Rows {
			w.scalar(&n.Rows[j])
		}
		w.rounds(n.Variance.Rounds)
		for j := range n.VarianceEvals {
			w.scalar(&n.VarianceEvals[j])
		}
		w.rounds(n.Scale.Rounds)
		for j := range n.ScaleEvals {
			w.scalar(&n.ScaleEvals[j])
		}
	}
	w.count(len(p.Softmax))
	for k := range p.Softmax {
		sm := &p.Softmax[k]
		w.rounds(sm.Zero.SumCheck.Rounds)
		w.scalars(sm.Zero.Evaluations)
		for j := range sm.Rows {
			w.scalar(&sm.Rows[j])
		}
		w.rounds(sm.OneHot.Rounds)
		for j := range sm.OneHotEvals {
			w.scalar(&sm.OneHotEvals[j])
		}
	}
	if a := p.Argmax; a != nil {
		// 1: Chosen; 2: Chosen and Local (a chunk's); the targets first,
		// a count and one 4-byte value each.
		if a.Local == nil {
			w.buf.WriteByte(1)
		} else {
			w.buf.WriteByte(2)
		}
		w.count(len(a.Targets))
		for _, t := range a.Targets {
			w.count(t)
		}
		w.scalars(a.Chosen)
		if a.Local != nil {
			w.scalars(a.Local)
		}
		w.scalar(&a.MarginsEval)
		w.rounds(a.SumCheck.Rounds)
		w.scalar(&a.LogitsEval)
	} else {
		w.buf.WriteByte(0)
	}
	w.scalars(p.ResidualEvals)
	w.count(len(p.Cache))
	for k := range p.Cache {
		c := &p.Cache[k]
		w.points([]pcs.Commitment{c.KeysIn, c.ValuesIn, c.Keys, c.Values})
		for _, rd := range []*kvcache.Proof[fr.Element]{c.ReadKeys, c.ReadValues} {
			w.scalar(&rd.Prev)
			w.rounds(rd.Shift.Rounds)
			w.scalar(&rd.New)
		}
		w.scalar(&c.KeysEval)
		w.scalar(&c.ValuesEval)
		for _, wr := range []*kvcache.WritesProof[fr.Element]{c.WriteKeys, c.WriteValues} {
			w.rounds(wr.Shift.Rounds)
			w.scalar(&wr.New)
		}
	}
	opening, err := p.Opening.MarshalBinary()
	if err != nil {
		return nil, err
	}
	w.count(len(opening))
	w.buf.Write(opening)
	return w.buf.Bytes(), nil
}

// UnmarshalProof reads a proof written by [Proof.MarshalBinary]. Every
// count is bounded by a constant and by the bytes left before anything is
// allocated; points must be compressed, canonical and in G1, scalars
// canonical. It never panics (fuzzed).
func UnmarshalProof(data []byte) (*Proof, error) {
	if !bytes.HasPrefix(data, magic) {
		return nil, errors.New("committed: decode: not a committed segment proof")
	}
	r := &reader{data: data[len(magic):]}
	if v := r.count(FormatVersion, 1); r.err == nil && v != FormatVersion {
		return nil, fmt.Errorf("committed: decode: format version %d, want %d", v, FormatVersion)
	}
	p := &Proof{Lookup: &lookup.CommittedProof[fr.Element]{}, Decomposition: &sumcheck.ZeroCheckProof[fr.Element]{}, Opening: &pcs.GroupProof{}}
	p.Tensors = r.points()
	p.Multiplicities = r.points()
	for j := range p.Limbs {
		p.Limbs[j] = r.points()
	}
	switch b := r.byte(); {
	case r.err != nil:
	case b == 1:
		p.Boundary = &pcs.Commitment{}
		r.point(p.Boundary)
	case b != 0:
		r.fail(fmt.Errorf("boundary flag %d", b))
	}
	r.scalar(&p.BoundaryEval)
	if r.err == nil && p.Boundary == nil && !p.BoundaryEval.IsZero() {
		r.fail(errors.New("a boundary value without a boundary commitment"))
	}
	switch b := r.byte(); {
	case r.err != nil:
	case b == 1:
		p.Incoming = &pcs.Commitment{}
		r.point(p.Incoming)
	case b != 0:
		r.fail(fmt.Errorf("incoming flag %d", b))
	}
	if n := r.count(maxAccumulators, 32); r.err == nil && n > 0 {
		p.LimbEvals = make([]fr.Element, n)
		for j := range p.LimbEvals {
			r.scalar(&p.LimbEvals[j])
		}
	}
	if nf := r.count(maxAccumulators, 64); r.err == nil && nf > 0 {
		p.Functions = make([]FunctionEval, nf)
		for f := range p.Functions {
			r.scalar(&p.Functions[f].In)
			r.scalar(&p.Functions[f].Out)
		}
	}
	r.fraction(&p.Lookup.Witness)
	r.fraction(&p.Lookup.Table)
	r.scalar(&p.Lookup.MultiplicityEval)
	p.Lookup.ColumnEvals = r.scalars(maxColumns)
	p.Lookup.TableEvals = r.scalars(maxAccumulators)
	p.Decomposition.SumCheck.Rounds = r.rounds()
	p.Decomposition.Evaluations = r.scalars(NbDecompositionTables)
	p.Accumulators = r.scalars(maxAccumulators)
	p.Requant.Rounds = r.rounds()
	r.scalar(&p.RequantEval)
	nb := r.count(maxProjections, 16)
	for range nb {
		if r.err != nil {
			break
		}
		lp := &linear.Proof[fr.Element]{}
		lp.Biases = r.scalars(maxColumns)
		lp.SumCheck.Rounds = r.rounds()
		lp.Inputs = r.scalars(maxColumns)
		lp.Weights = r.scalars(maxColumns)
		p.Projections = append(p.Projections, lp)
	}
	p.Products = r.factors()
	p.Rotations = r.factors()
	p.Attention = r.factors()
	nk := r.count(maxProjections, 4+32)
	for range nk {
		if r.err != nil {
			break
		}
		var k KeyProof
		k.SumCheck.Rounds = r.rounds()
		r.scalar(&k.K)
		p.Keys = append(p.Keys, k)
	}
	nn := r.count(maxProjections, (nbNormRows+nbVarianceEvals+nbScaleEvals)*32)
	for range nn {
		if r.err != nil {
			break
		}
		var n NormProof
		for j := range n.Rows {
			r.scalar(&n.Rows[j])
		}
		n.Variance.Rounds = r.rounds()
		for j := range n.VarianceEvals {
			r.scalar(&n.VarianceEvals[j])
		}
		n.Scale.Rounds = r.rounds()
		for j := range n.ScaleEvals {
			r.scalar(&n.ScaleEvals[j])
		}
		p.Norms = append(p.Norms, n)
	}
	ns := r.count(maxProjections, 6*32)
	for range ns {
		if r.err != nil {
			break
		}
		sm := SoftmaxProof{Zero: &sumcheck.ZeroCheckProof[fr.Element]{}}
		sm.Zero.SumCheck.Rounds = r.rounds()
		sm.Zero.Evaluations = r.scalars(nbSoftmaxTables)
		for j := range sm.Rows {
			r.scalar(&sm.Rows[j])
		}
		sm.OneHot.Rounds = r.rounds()
		for j := range sm.OneHotEvals {
			r.scalar(&sm.OneHotEvals[j])
		}
		p.Softmax = append(p.Softmax, sm)
	}
	switch b := r.byte(); {
	case r.err != nil:
	case b == 1 || b == 2:
		a := &ArgmaxProof{}
		if n := r.count(maxAccumulators, 4); r.err == nil {
			a.Targets = make([]int, n)
			for i := range a.Targets {
				a.Targets[i] = r.count(1<<statement.TokenBits-1, 0)
			}
		}
		a.Chosen = r.scalars(maxAccumulators)
		if b == 2 {
			a.Local = r.scalars(maxAccumulators)
		}
		r.scalar(&a.MarginsEval)
		a.SumCheck.Rounds = r.rounds()
		r.scalar(&a.LogitsEval)
		p.Argmax = a
	case b != 0:
		r.fail(fmt.Errorf("argmax flag %d", b))
	}
	p.ResidualEvals = r.scalars(maxResiduals)
	if nc := r.count(maxCacheBlocks, 4*48+8*32); r.err == nil && nc > 0 {
		p.Cache = make([]CacheProof, nc)
		for k := range p.Cache {
			c := &p.Cache[k]
			if pts := r.points(); r.err == nil {
				if len(pts) != cacheCommitments {
					r.fail(fmt.Errorf("%d cache commitments of a block, want %d", len(pts), cacheCommitments))
					break
				}
				c.KeysIn, c.ValuesIn, c.Keys, c.Values = pts[0], pts[1], pts[2], pts[3]
			}
			c.ReadKeys, c.ReadValues = &kvcache.Proof[fr.Element]{}, &kvcache.Proof[fr.Element]{}
			for _, rd := range []*kvcache.Proof[fr.Element]{c.ReadKeys, c.ReadValues} {
				r.scalar(&rd.Prev)
				rd.Shift.Rounds = r.rounds()
				r.scalar(&rd.New)
			}
			r.scalar(&c.KeysEval)
			r.scalar(&c.ValuesEval)
			c.WriteKeys, c.WriteValues = &kvcache.WritesProof[fr.Element]{}, &kvcache.WritesProof[fr.Element]{}
			for _, wr := range []*kvcache.WritesProof[fr.Element]{c.WriteKeys, c.WriteValues} {
				wr.Shift.Rounds = r.rounds()
				r.scalar(&wr.New)
			}
		}
	}
	n := r.count(maxOpeningBytes, 1)
	if r.err == nil {
		if err := p.Opening.UnmarshalBinary(r.take(n)); err != nil {
			r.fail(err)
		}
	}
	if r.err == nil && len(r.data) != 0 {
		r.fail(fmt.Errorf("%d trailing bytes", len(r.data)))
	}
	if r.err != nil {
		return nil, fmt.Errorf("committed: decode: %w", r.err)
	}
	return p, nil
}

type writer struct{ buf bytes.Buffer }

func (w *writer) count(n int) { w.buf.Write(binary.BigEndian.AppendUint32(nil, uint32(n))) }

// points writes a count and the points.
func (w *writer) points(ps []pcs.Commitment) {
	w.count(len(ps))
	for i := range ps {
		w.point(&ps[i])
	}
}

func (w *writer) point(p *bls12377.G1Affine) {
	b := p.Bytes()
	w.buf.Write(b[:])
}

func (w *writer) scalar(x *fr.Element) {
	b := x.Bytes()
	w.buf.Write(b[:])
}

func (w *writer) scalars(xs []fr.Element) {
	w.count(len(xs))
	for i := range xs {
		w.scalar(&xs[i])
	}
}

func (w *writer) rounds(rs [][]fr.Element) {
	w.count(len(rs))
	for _, r := range rs {
		w.scalars(r)
	}
}

func (w *writer) fraction(f *lookup.FractionProof[fr.Element]) {
	for i := range f.Root {
		w.scalar(&f.Root[i])
	}
	w.count(len(f.Layers))
	for i := range f.Layers {
		w.rounds(f.Layers[i].SumCheck.Rounds)
		for k := range f.Layers[i].Evals {
			w.scalar(&f.Layers[i].Evals[k])
		}
	}
}

// reader decodes from data; the first error sticks and stops every later
// read.
type reader struct {
	data []byte
	err  error
}

var errShort = errors.New("unexpected end of data")

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// take returns the next n bytes, or nil and an error.
func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.data) {
		r.fail(errShort)
		return nil
	}
	out := r.data[:n]
	r.data = r.data[n:]
	return out
}

func (r *reader) byte() byte {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return b[0]
}

// count reads a count at most limit whose items take at least unit bytes
// each in what remains.
func (r *reader) count(limit, unit int) int {
	b := r.take(4)
	if b == nil {
		return 0
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(limit) {
		r.fail(fmt.Errorf("count %d above %d", n, limit))
		return 0
	}
	if uint64(n)*uint64(unit) > uint64(len(r.data)) {
		r.fail(errShort)
		return 0
	}
	return int(n)
}

func (r *reader) point(p *bls12377.G1Affine) {
	b := r.take(bls12377.SizeOfG1AffineCompressed)
	if b == nil {
		return
	}
	if b[0]&0x80 == 0 {
		r.fail(errors.New("point is not compressed"))
		return
	}
	if _, err := p.SetBytes(b); err != nil {
		r.fail(err)
		return
	}
	if c := p.Bytes(); !bytes.Equal(c[:], b) {
		r.fail(errors.New("non-canonical point encoding"))
	}
}

// points reads a count (at most maxParts) and the points.
func (r *reader) points() []pcs.Commitment {
	n := r.count(maxParts, bls12377.SizeOfG1AffineCompressed)
	if r.err != nil || n == 0 {
		return nil
	}
	out := make([]pcs.Commitment, n)
	for i := range out {
		r.point(&out[i])
	}
	return out
}

func (r *reader) scalar(x *fr.Element) {
	b := r.take(fr.Bytes)
	if b == nil {
		return
	}
	if err := x.SetBytesCanonical(b); err != nil {
		r.fail(err)
	}
}

func (r *reader) scalars(limit int) []fr.Element {
	n := r.count(limit, fr.Bytes)
	if r.err != nil {
		return nil
	}
	out := make([]fr.Element, n)
	for i := range out {
		r.scalar(&out[i])
	}
	return out
}

func (r *reader) rounds() [][]fr.Element {
	n := r.count(maxRounds, 4)
	if r.err != nil {
		return nil
	}
	out := make([][]fr.Element, n)
	for i := range out {
		out[i] = r.scalars(maxRoundValues)
	}
	return out
}

func (r *reader) fraction(f *lookup.FractionProof[fr.Element]) {
	for i := range f.Root {
		r.scalar(&f.Root[i])
	}
	n := r.count(maxLayers, 4+4*fr.Bytes)
	if r.err != nil {
		return
	}
	f.Layers = make([]lookup.FractionLayer[fr.Element], n)
	for i := range f.Layers {
		f.Layers[i].SumCheck.Rounds = r.rounds()
		for k := range f.Layers[i].Evals {
			r.scalar(&f.Layers[i].Evals[k])
		}
	}
}

func (w *writer) factors(fs []FactorProof) {
	w.count(len(fs))
	for k := range fs {
		w.rounds(fs[k].SumCheck.Rounds)
		w.scalar(&fs[k].A)
		w.scalar(&fs[k].B)
	}
}

// factors reads a list of FactorProof: a count (each at least a rounds
// count and two scalars), then each proof.
func (r *reader) factors() []FactorProof {
	n := r.count(maxProjections, 4+2*32)
	var out []FactorProof
	for range n {
		if r.err != nil {
			break
		}
		var f FactorProof
		f.SumCheck.Rounds = r.rounds()
		r.scalar(&f.A)
		r.scalar(&f.B)
		out = append(out, f)
	}
	return out
}
