package committed

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	npoly "github.com/veriformer/veriformer/poly"
)

// RequantProof is the part of a native committed proof that
// [VerifyRequants] reads: the claimed accumulators, the batched
// requantization sum-check and the stacked MLE at its end point.
type RequantProof struct {
	Accumulators []frontend.Variable
	SumCheck     gsumcheck.Proof
	Eval         frontend.Variable
}

// PlaceholderRequantProof sizes a RequantProof for a layout and its
// requantizations.
func PlaceholderRequantProof(l *native.Layout, rqs []*model.Requant) RequantProof {
	return RequantProof{Accumulators: make([]frontend.Variable, len(rqs)), SumCheck: gsumcheck.PlaceholderProof(l.NbVars, 2)}
}

// ValueOfRequantProof returns the assignment of a native proof's part.
func ValueOfRequantProof(p *native.Proof) RequantProof {
	return RequantProof{
		Accumulators: gpoly.ValuesOf(p.Accumulators),
		SumCheck:     gsumcheck.ValueOfProof(&p.Requant),
		Eval:         field.BigInt(&p.RequantEval),
	}
}

// VerifyRequants is native.VerifyRequants in circuit, after
// [VerifyLookups]: the accumulator points (shared rows as
// native.SharedRows gives them), the accumulators, ρ, the sum-check of
// Σ_q ρ^q·(Acc_q(r_q) + 2^(k_q−1)·C_q) = Σ_x G(x)·s(x) and its final check
// against G evaluated from the layout. It returns the points and the end
// point, where the claim on s is p.Eval.
func VerifyRequants(api frontend.API, t *transcript.Transcript, l *native.Layout, rqs []*model.Requant, shared map[*model.Requant]*model.Requant, p RequantProof) ([][]frontend.Variable, []frontend.Variable, error) {
	if len(p.Accumulators) != len(rqs) {
		return nil, nil, fmt.Errorf("committed: %d accumulators for %d requantizations", len(p.Accumulators), len(rqs))
	}
	t.Label("committed/requant")
	index := map[*model.Requant]int{}
	for q, rq := range rqs {
		index[rq] = q
	}
	points := make([][]frontend.Variable, len(rqs))
	for q, rq := range rqs {
		_, n, err := npoly.TensorVars(rq.Out.Shape)
		if err != nil {
			return nil, nil, err
		}
		if first, ok := shared[rq]; ok {
			rows := npoly.Log2Ceil(rq.Out.Shape[0])
			points[q] = append(append([]frontend.Variable(nil), points[index[first]][:rows]...), t.Challenges(n-rows)...)
			continue
		}
		points[q] = t.Challenges(n)
	}
	t.Absorb(p.Accumulators...)
	rho := t.Challenge()

	var sum frontend.Variable = 0
	var weight frontend.Variable = 1
	for q, rq := range rqs {
		c := api.Mul(validWeight(api, rq, points[q]), new(big.Int).Lsh(big.NewInt(1), rq.Shift-1))
		sum = api.Add(sum, api.Mul(weight, api.Add(c, p.Accumulators[q])))
		weight = api.Mul(weight, rho)
	}
	end, expected, err := gsumcheck.Verify(api, t, sum, 2, p.SumCheck)
	if err != nil {
		return nil, nil, err
	}
	if len(end) != l.NbVars {
		return nil, nil, fmt.Errorf("committed: a requantization sum-check of %d rounds over %d variables", len(end), l.NbVars)
	}
	var g frontend.Variable = 0
	weight = 1
	for q, rq := range rqs {
		for _, part := range []struct {
			t     *model.Tensor
			scale *big.Int
		}{{&rq.Out, new(big.Int).Lsh(big.NewInt(1), rq.Shift)}, {&rq.Rem, big.NewInt(1)}} {
			b, ok := l.Index[part.t]
			if !ok {
				return nil, nil, fmt.Errorf("committed: requantization tensor %s is not committed", part.t.Name)
			}
			blk := &l.Blocks[b]
			ind := regionIndicator(api, blk.Offset, blk.NbVars, end)
			phi := weightEval(api, rq, end[l.NbVars-blk.NbVars:], points[q])
			g = api.Add(g, api.Mul(api.Mul(ind, phi), api.Mul(weight, part.scale)))
		}
		weight = api.Mul(weight, rho)
	}
	api.AssertIsEqual(api.Mul(g, p.Eval), expected)
	t.Absorb(p.Eval)
	return points, end, nil
}

// validWeight is C = Σ_x eq(r, x)·M⁻¹(x)·valid(x), as native: the
// selector of the leading dimensions times Σ_c eq(r_last, c)·M⁻¹[c].
func validWeight(api frontend.API, rq *model.Requant, r []frontend.Variable) frontend.Variable {
	inv := native.RequantInverses(rq)
	shape := rq.Out.Shape
	if len(inv) == 1 {
		return api.Mul(gpoly.ShapeSelector(api, shape, r), inv[0])
	}
	dims, _, _ := npoly.TensorVars(shape)
	leading := len(r) - dims[len(dims)-1]
	var res frontend.Variable = 1
	if len(shape) > 1 {
		res = gpoly.ShapeSelector(api, shape[:len(shape)-1], r[:leading])
	}
	eq := gpoly.EqTable(api, r[leading:])
	var sum frontend.Variable = 0
	for c := range inv {
		if inv[c].Sign() != 0 {
			sum = api.Add(sum, api.Mul(eq[c], inv[c]))
		}
	}
	return api.Mul(res, sum)
}

// weightEval is the MLE at y of x ↦ eq(r, x)·M⁻¹(x) over the output's
// padded shape, as native: per leading coordinate y·r + (1−y)(1−r), and
// over the last dimension (per-column multipliers) Σ_c M⁻¹[c]·Πᵢ (bit
// ? y·r : (1−y)(1−r)).
func weightEval(api frontend.API, rq *model.Requant, y, r []frontend.Variable) frontend.Variable {
	inv := native.RequantInverses(rq)
	dims, _, _ := npoly.TensorVars(rq.Out.Shape)
	lastVars := 0
	if len(inv) > 1 {
		lastVars = dims[len(dims)-1]
	}
	leading := len(y) - lastVars
	pair := func(i int) (one, zero frontend.Variable) {
		one = api.Mul(y[i], r[i])
		zero = api.Mul(api.Sub(1, y[i]), api.Sub(1, r[i]))
		return one, zero
	}
	var res frontend.Variable = 1
	for i := range leading {
		one, zero := pair(i)
		res = api.Mul(res, api.Add(one, zero))
	}
	if lastVars == 0 {
		return api.Mul(res, inv[0])
	}
	table := []frontend.Variable{1}
	for i := leading; i < len(y); i++ {
		one, zero := pair(i)
		next := make([]frontend.Variable, 2*len(table))
		for k := range table {
			next[2*k] = api.Mul(table[k], zero)
			next[2*k+1] = api.Mul(table[k], one)
		}
		table = next
	}
	var sum frontend.Variable = 0
	for c := range inv {
		if inv[c].Sign() != 0 {
			sum = api.Add(sum, api.Mul(table[c], inv[c]))
		}
	}
	return api.Mul(res, sum)
}
