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

// Rotation is one RoPE rotation of a segment (queries or keys of a
// block): its requantization's index, its input's block, the rotation
// (for the cos and sin values, which depend on positions only), the
// number of variables and the coordinate of the half-head bit.
type Rotation struct {
	Q, In int
	Rope  *model.Rope
	Vars  int
	Flip  int
}

// rotationsOf lists the RoPE rotations of the segment's blocks (Llama):
// queries then keys of each block. Their inputs are the Q and K
// projections' outputs; the rotation pairs column h·hd + j with
// h·hd + j + hd/2, which is one flipped bit of the column index when hd
// and the width are powers of two, as the model's head layout
// (model.Config.HeadLayout) makes them (refused otherwise).
func rotationsOf(tr *model.Trace, seg inference.Segment, l *Layout, index map[*model.Requant]int) ([]Rotation, error) {
	var out []Rotation
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
			out = append(out, Rotation{Q: q, In: in, Rope: rr.rope, Vars: vars, Flip: dims[0] + dims[1] - poly.Log2Ceil(2*half)})
		}
	}
	return out, nil
}

// Tables returns the public tables C and S′ over the rotation's padded
// shape: for row r and column c = h·hd + j′, C = cos[r][j′ mod hd/2] and
// S′ = ∓sin[r][j′ mod hd/2] (− for the first half of a head, + for the
// second), zero in the padding, so that
// Acc = In·C + In(paired)·S′ entry by entry.
func (rt *Rotation) Tables() ([]fr.Element, []fr.Element) {
	rows, width := rt.Rope.Input.Shape[0], rt.Rope.Input.Shape[1]
	half := rt.Rope.Cos.Out.Shape[1]
	c := make([]fr.Element, 1<<rt.Vars)
	s := make([]fr.Element, 1<<rt.Vars)
	cols := 1 << (rt.Vars - poly.Log2Ceil(rows))
	for r := range rows {
		for col := range width {
			j := col % (2 * half)
			k := r*half + j%half
			i := r*cols + col
			c[i].SetInt64(rt.Rope.Cos.Out.Data[k])
			sin := rt.Rope.Sin.Out.Data[k]
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
func (rt *Rotation) flipped(point []fr.Element) []fr.Element {
	out := append([]fr.Element(nil), point...)
	one := field.One[fr.Element]()
	out[rt.Flip].Sub(&one, &out[rt.Flip])
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

// rotationSteps are the rotations' sum-checks (stacked is nil for the
// verifier, which evaluates the public tables C and S′ at the end point).
func rotationSteps(l *Layout, rts []Rotation, stacked []fr.Element, points [][]fr.Element, acc []fr.Element) []factorStep {
	steps := make([]factorStep, len(rts))
	for k := range rts {
		rt := &rts[k]
		r := points[rt.Q]
		steps[k] = factorStep{
			name: "rotation " + rt.Rope.Out.Name, sum: acc[rt.Q], vars: rt.Vars, terms: ropeTerms(), a: 1, b: 3,
			tables: func() [][]fr.Element {
				in := blockOf(l, stacked, rt.In)
				bit := 1 << (rt.Vars - 1 - rt.Flip)
				paired := make([]fr.Element, len(in))
				for i := range in {
					paired[i] = in[i^bit]
				}
				c, s := rt.Tables()
				return [][]fr.Element{poly.EqTable[fr.Element](r), in, c, paired, s}
			},
			final: func(end []fr.Element, in, paired fr.Element) fr.Element {
				c, s := rt.Tables()
				cv, sv := poly.Evaluate[fr.Element](c, end), poly.Evaluate[fr.Element](s, end)
				in.Mul(&in, &cv)
				paired.Mul(&paired, &sv)
				in.Add(&in, &paired)
				eq := poly.Eq[fr.Element](r, end)
				return *in.Mul(&in, &eq)
			},
		}
	}
	return steps
}

// rotationClaims are the claims of the input's values on its block: at
// the end point and at the end point with the half-head bit flipped.
func rotationClaims(l *Layout, rts []Rotation, ends [][]fr.Element, proofs []FactorProof) []pcs.Claim {
	return factorClaims(l, proofs, ends, func(k int, end []fr.Element) (int, int, []fr.Element, []fr.Element) {
		return rts[k].In, rts[k].In, end, rts[k].flipped(end)
	})
}
