package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/sumcheck"
)

// RopeProof proves one RoPE rotation's accumulator claim: a degree-3
// sum-check and the input's MLE at its end point and at the end point
// with the half-head coordinate flipped.
type RopeProof struct {
	SumCheck      sumcheck.Proof[fr.Element]
	Input, Paired fr.Element
}

// rotation is one RoPE rotation of a segment (queries or keys of a
// block): its requantization's index, its input's block, the rotation
// (for the cos and sin values, which depend on positions only), the
// number of variables and the coordinate of the half-head bit.
type rotation struct {
	q, in int
	rope  *model.Rope
	vars  int
	flip  int
}

// rotationsOf lists the RoPE rotations of the segment's blocks (Llama):
// queries then keys of each block. Their inputs are the Q and K
// projections' outputs; the rotation pairs column h·hd + j with
// h·hd + j + hd/2, which is one flipped bit of the column index when hd
// and the width are powers of two (refused otherwise).
func rotationsOf(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int) ([]rotation, error) {
	var out []rotation
	for i := seg.From; i < seg.To; i++ {
		ly := &tr.Layers[i]
		if ly.RopeQ == nil {
			continue
		}
		for _, rr := range []struct {
			rope *model.Rope
			in   *model.Tensor
		}{{ly.RopeQ, &ly.Q.Out}, {ly.RopeK, &ly.K.Out}} {
			in, ok := l.Index[rr.in]
			q, okQ := index[&rr.rope.Requant]
			if !ok || !okQ {
				return nil, fmt.Errorf("committed: rotation of block %d: its input or requantization is not committed", i)
			}
			shape := rr.in.Shape
			half := rr.rope.Cos.Out.Shape[1]
			if len(shape) != 2 || !poly.IsPowerOfTwo(shape[1]) || !poly.IsPowerOfTwo(2*half) || shape[1]%(2*half) != 0 {
				return nil, fmt.Errorf("committed: rotation %s: width %v and head dimension %d must be powers of two", rr.rope.Out.Name, shape, 2*half)
			}
			dims, vars, err := poly.TensorVars(shape)
			if err != nil {
				return nil, err
			}
			if l.Blocks[l.Index[&rr.rope.Out]].NbVars != vars {
				return nil, fmt.Errorf("committed: rotation %s: input and output of different shapes", rr.rope.Out.Name)
			}
			out = append(out, rotation{q: q, in: in, rope: rr.rope, vars: vars, flip: dims[0] + dims[1] - poly.Log2Ceil(2*half)})
		}
	}
	return out, nil
}

// tables returns the public tables C and S′ over the rotation's padded
// shape: for row r and column c = h·hd + j′, C = cos[r][j′ mod hd/2] and
// S′ = ∓sin[r][j′ mod hd/2] (− for the first half of a head, + for the
// second), zero in the padding, so that
// Acc = In·C + In(paired)·S′ entry by entry.
func (rt *rotation) tables() ([]fr.Element, []fr.Element) {
	rows, width := rt.rope.Input.Shape[0], rt.rope.Input.Shape[1]
	half := rt.rope.Cos.Out.Shape[1]
	c := make([]fr.Element, 1<<rt.vars)
	s := make([]fr.Element, 1<<rt.vars)
	cols := 1 << (rt.vars - poly.Log2Ceil(rows))
	for r := range rows {
		for col := range width {
			j := col % (2 * half)
			k := r*half + j%half
			i := r*cols + col
			c[i].SetInt64(rt.rope.Cos.Out.Data[k])
			sin := rt.rope.Sin.Out.Data[k]
			if j < half {
				sin = -sin
			}
			s[i].SetInt64(sin)
		}
	}
	return c, s
}

// flipped returns point with the half-head coordinate replaced by its
// complement: the MLE of the paired input at point.
func (rt *rotation) flipped(point []fr.Element) []fr.Element {
	out := append([]fr.Element(nil), point...)
	one := field.One[fr.Element]()
	out[rt.flip].Sub(&one, &out[rt.flip])
	return out
}

// ropeTerms is In·C·eq + Paired·S′·eq over the tables (eq, In, C, Paired, S′).
func ropeTerms() []sumcheck.Term[fr.Element] {
	one := field.One[fr.Element]()
	return []sumcheck.Term[fr.Element]{
		{Coefficient: one, Factors: []int{0, 1, 2}},
		{Coefficient: one, Factors: []int{0, 3, 4}},
	}
}

// proveRotations proves every rotation's accumulator claim (points[q],
// acc[q]).
func proveRotations(t *pcs.Transcript, l *Layout, rts []rotation, stacked []fr.Element, points [][]fr.Element, acc []fr.Element) ([]RopeProof, [][]fr.Element, error) {
	if len(rts) == 0 {
		return nil, nil, nil
	}
	t.Label("committed/rope")
	proofs := make([]RopeProof, len(rts))
	ends := make([][]fr.Element, len(rts))
	for k := range rts {
		rt := &rts[k]
		blk := &l.Blocks[rt.in]
		in := stacked[blk.Offset : blk.Offset+1<<blk.NbVars]
		bit := 1 << (rt.vars - 1 - rt.flip)
		paired := make([]fr.Element, len(in))
		for i := range in {
			paired[i] = in[i^bit]
		}
		c, s := rt.tables()
		eq := poly.EqTable[fr.Element](points[rt.q])
		sc, opening, err := sumcheck.Prove(t, [][]fr.Element{eq, in, c, paired, s}, ropeTerms(), acc[rt.q])
		if err != nil {
			return nil, nil, fmt.Errorf("committed: rotation: %w", err)
		}
		proofs[k] = RopeProof{SumCheck: sc, Input: opening.Evaluations[1], Paired: opening.Evaluations[3]}
		t.Absorb(proofs[k].Input, proofs[k].Paired)
		ends[k] = opening.Point
	}
	return proofs, ends, nil
}

// verifyRotations replays the rotations' sum-checks, evaluating the
// public tables C and S′ at their end points, and returns the end points.
func verifyRotations(t *pcs.Transcript, rts []rotation, points [][]fr.Element, acc []fr.Element, proofs []RopeProof) ([][]fr.Element, error) {
	if len(proofs) != len(rts) {
		return nil, fmt.Errorf("%d rotation proofs for %d rotations", len(proofs), len(rts))
	}
	if len(rts) == 0 {
		return nil, nil
	}
	t.Label("committed/rope")
	ends := make([][]fr.Element, len(rts))
	for k := range rts {
		rt := &rts[k]
		end, expected, err := sumcheck.Verify(t, acc[rt.q], 3, rt.vars, proofs[k].SumCheck)
		if err != nil {
			return nil, fmt.Errorf("rotation %s: %w", rt.rope.Out.Name, err)
		}
		c, s := rt.tables()
		cv, sv := poly.Evaluate[fr.Element](c, end), poly.Evaluate[fr.Element](s, end)
		var a, b fr.Element
		a.Mul(&proofs[k].Input, &cv)
		b.Mul(&proofs[k].Paired, &sv)
		a.Add(&a, &b)
		eq := poly.Eq[fr.Element](points[rt.q], end)
		a.Mul(&a, &eq)
		if !a.Equal(&expected) {
			return nil, fmt.Errorf("rotation %s: the final value does not match", rt.rope.Out.Name)
		}
		t.Absorb(proofs[k].Input, proofs[k].Paired)
		ends[k] = end
	}
	return ends, nil
}

// rotationClaims are the claims of the input's values on its block: at
// the end point and at the end point with the half-head bit flipped.
func rotationClaims(l *Layout, rts []rotation, ends [][]fr.Element, proofs []RopeProof) []pcs.Claim {
	var out []pcs.Claim
	for k := range rts {
		rt := &rts[k]
		out = append(out,
			pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(rt.in, ends[k]), Value: proofs[k].Input},
			pcs.Claim{Commitment: tensorsCommitment, Point: l.Point(rt.in, rt.flipped(ends[k])), Value: proofs[k].Paired})
	}
	return out
}
