package committed

import (
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
)

// SoftmaxProof is native.SoftmaxProof in circuit: one attention's
// softmax zero-check, its row values at ρ′ (Exp and OneHot at
// (ρ′, ½, …, ½), RowSum at ρ′), and the one-hot sum-check with its end
// values (OneHot, lo, hi).
type SoftmaxProof struct {
	Zero        gsumcheck.ZeroCheckProof
	Rows        [3]frontend.Variable
	OneHot      gsumcheck.Proof
	OneHotEvals [3]frontend.Variable
}

// PlaceholderSoftmax sizes the softmax proofs of a segment: per
// attention, a zero-check over the cube's coordinates of the relation's
// degree and a degree-2 one-hot sum-check over the same coordinates.
func PlaceholderSoftmax(s *native.Shape) []SoftmaxProof {
	out := make([]SoftmaxProof, len(s.Softmax))
	for k, st := range s.Softmax {
		h, i, j := st.Vars()
		maxFactors := 0
		for _, rt := range st.Relation() {
			maxFactors = max(maxFactors, len(rt.Factors))
		}
		out[k] = SoftmaxProof{
			Zero:   gsumcheck.PlaceholderZeroCheckProof(h+i+j, len(st.Blocks()), maxFactors),
			OneHot: gsumcheck.PlaceholderProof(h+i+j, 2),
		}
	}
	return out
}

// ValueOfSoftmax returns the assignment of native softmax proofs. A
// proof without zero-check (which the native verifier rejects) has an
// empty one, which does not fit a placeholder.
func ValueOfSoftmax(ps []native.SoftmaxProof) []SoftmaxProof {
	out := make([]SoftmaxProof, len(ps))
	for k := range ps {
		p := &ps[k]
		if p.Zero != nil {
			out[k].Zero = gsumcheck.ValueOfZeroCheckProof(p.Zero)
		}
		out[k].OneHot = gsumcheck.ValueOfProof(&p.OneHot)
		for m := range 3 {
			out[k].Rows[m] = field.BigInt(&p.Rows[m])
			out[k].OneHotEvals[m] = field.BigInt(&p.OneHotEvals[m])
		}
	}
	return out
}

// SoftmaxEnds are a softmax step's points in circuit, as
// native.SoftmaxEnds: the zero-check's end point, ρ′ over the (h, i)
// coordinates, and the one-hot sum-check's end point.
type SoftmaxEnds struct {
	Zero, Rows, OneHot []frontend.Variable
}

// verifySoftmax is native Shape.VerifySoftmax in circuit, in its
// transcript order (label "committed/softmax"; per attention γ, the
// zero-check of the relation native.SoftmaxStep.Relation, ρ′, the row
// values, the one-hot sum-check of claim 0, its end values). It asserts
// the mask's and the valid entries' evaluations against the public
// tables evaluated at the zero-check's end, 2^bj·Exp(ρ′, ½) = RowSum(ρ′),
// 2^bj·OneHot(ρ′, ½) = Sel(ρ′) (one marked entry per valid row), and the
// one-hot sum-check's final value OneHot·(lo + 2¹⁶·hi + 1 − mask) with
// the mask at its end. A designd for another segment is an error.
func verifySoftmax(api frontend.API, t *transcript.Transcript, s *native.Shape, proofs []SoftmaxProof, turn *Turn, starts []frontend.Variable) ([]SoftmaxEnds, error) {
	if len(proofs) != len(s.Softmax) {
		return nil, fmt.Errorf("committed: %d softmax proofs for %d attentions", len(proofs), len(s.Softmax))
	}
	if len(proofs) == 0 {
		return nil, nil
	}
	t.Label("committed/softmax")
	ends := make([]SoftmaxEnds, len(proofs))
	for k, st := range s.Softmax {
		p := &proofs[k]
		h, i, j := st.Vars()
		vars := h + i + j
		heads, rows, _ := st.Cube()
		if len(p.Zero.SumCheck.Rounds) != vars || len(p.Zero.Evaluations) != len(st.Blocks()) || len(p.OneHot.Rounds) != vars {
			return nil, fmt.Errorf("committed: softmax %d: a designd for another attention", k)
		}
		gamma := t.Challenge()
		zc, err := gsumcheck.VerifyZero(api, t, softmaxTerms(api, st, gamma), p.Zero)
		if err != nil {
			return nil, fmt.Errorf("committed: softmax %d: %w", k, err)
		}
		end := zc[0].Point
		mask, err := softmaxMask(api, s, st, end, turn, starts)
		if err != nil {
			return nil, fmt.Errorf("committed: softmax %d: %w", k, err)
		}
		api.AssertIsEqual(mask, zc[native.SoftmaxMask].Value)
		api.AssertIsEqual(softmaxValid(api, st, end), zc[native.SoftmaxValid].Value)
		ends[k].Zero = end

		rho := t.Challenges(h + i)
		c := new(big.Int).Lsh(big.NewInt(1), uint(j))
		api.AssertIsEqual(api.Mul(c, p.Rows[0]), p.Rows[1])
		sel := api.Mul(gpoly.Prefix(api, rho[:h], heads), gpoly.Prefix(api, rho[h:], rows))
		api.AssertIsEqual(api.Mul(c, p.Rows[2]), sel)
		t.Absorb(p.Rows[:]...)
		ends[k].Rows = rho

		ohEnd, expected, err := gsumcheck.Verify(api, t, 0, 2, p.OneHot)
		if err != nil {
			return nil, fmt.Errorf("committed: softmax %d: one-hot: %w", k, err)
		}
		m, err := softmaxMask(api, s, st, ohEnd, turn, starts)
		if err != nil {
			return nil, fmt.Errorf("committed: softmax %d: %w", k, err)
		}
		got, err := gsumcheck.EvaluateTerms(api, oneHotTerms(st), []frontend.Variable{p.OneHotEvals[0], p.OneHotEvals[1], p.OneHotEvals[2], m})
		if err != nil {
			return nil, err
		}
		api.AssertIsEqual(got, expected)
		t.Absorb(p.OneHotEvals[:]...)
		ends[k].OneHot = ohEnd
	}
	return ends, nil
}

// softmaxTerms returns native.SoftmaxStep.Relation's terms for the
// challenge γ: each coefficient c·γ^p (a constant when p = 0).
func softmaxTerms(api frontend.API, st *native.SoftmaxStep, gamma frontend.Variable) []gsumcheck.Term {
	modulus := api.Compiler().Field()
	powers := []frontend.Variable{1}
	terms := st.Relation()
	out := make([]gsumcheck.Term, len(terms))
	for k, rt := range terms {
		for len(powers) <= rt.Power {
			powers = append(powers, api.Mul(powers[len(powers)-1], gamma))
		}
		c := new(big.Int).Mod(rt.Coefficient, modulus)
		var coef frontend.Variable = c
		if rt.Power > 0 {
			coef = api.Mul(powers[rt.Power], c)
		}
		out[k] = gsumcheck.Term{Coefficient: coef, Factors: rt.Factors}
	}
	return out
}

// oneHotTerms is native oneHotTerms: OneHot·(lo + 2¹⁶·hi + 1 − mask)
// over the values (OneHot, lo, hi, mask).
func oneHotTerms(st *native.SoftmaxStep) []gsumcheck.Term {
	return []gsumcheck.Term{
		{Coefficient: 1, Factors: []int{0, 1}},
		{Coefficient: st.Split(), Factors: []int{0, 2}},
		{Coefficient: 1, Factors: []int{0}},
		{Coefficient: -1, Factors: []int{0, 3}},
	}
}

// softmaxPass checks, as native, that the cube is a pass from position
// 0 over all its positions (rows = total), whose mask is the causal
// zeroifier.
func softmaxPass(st *native.SoftmaxStep) error {
	_, rows, total := st.Cube()
	if st.Start() != 0 || total != rows {
		return fmt.Errorf("softmax: a pass from position %d over %d of %d positions", st.Start(), rows, total)
	}
	return nil
}

// softmaxMask is the causal mask's MLE at point = (h, i, j), as native:
// Sel_H(h)·z(i, j), z the causal zeroifier over the square of the
// cube's rows, or in a turn the shifted mask [i < rows ∧ j ≤ Start + i]
// with Start a circuit variable (gadgets/poly.ShiftedCausal), or in a
// batch's pass the block-diagonal mask of the requests whose first rows
// starts marks (native BlockCausal, [blockMaskSum]).
func softmaxMask(api frontend.API, s *native.Shape, st *native.SoftmaxStep, point []frontend.Variable, turn *Turn, starts []frontend.Variable) (frontend.Variable, error) {
	h, i, _ := st.Vars()
	heads, rows, _ := st.Cube()
	if st.Begins() != nil {
		z := blockMaskSum(api, starts, gpoly.EqTable(api, point[h:h+i]), gpoly.EqTable(api, point[h+i:]))
		return api.Mul(z, gpoly.Prefix(api, point[:h], heads)), nil
	}
	if turn != nil {
		z := gpoly.ShiftedCausal(api, point[h:h+i], point[h+i:], rows, turn.Start, startBits(s))
		return api.Mul(z, gpoly.Prefix(api, point[:h], heads)), nil
	}
	if err := softmaxPass(st); err != nil {
		return nil, err
	}
	z, err := gpoly.CausalZeroifier(api, point[h:], rows)
	if err != nil {
		return nil, err
	}
	return api.Mul(z, gpoly.Prefix(api, point[:h], heads)), nil
}

// softmaxValid is the valid entries' MLE at point = (h, i, j), as
// native: the product of the three coordinates' prefixes.
func softmaxValid(api frontend.API, st *native.SoftmaxStep, point []frontend.Variable) frontend.Variable {
	h, i, _ := st.Vars()
	heads, rows, total := st.Cube()
	v := api.Mul(gpoly.Prefix(api, point[h:h+i], rows), gpoly.Prefix(api, point[h+i:], total))
	return api.Mul(v, gpoly.Prefix(api, point[:h], heads))
}

// softmaxClaims is native Shape.SoftmaxClaims in circuit: the claims on
// the stacked MLE, in the same order — per step, each committed
// zero-check table at the zero-check's end (the row tables at its (h, i)
// coordinates), Exp, RowSum and OneHot at ρ′ (Exp and OneHot at
// (ρ′, ½, …, ½)), then OneHot, lo and hi at the one-hot sum-check's end.
func softmaxClaims(s *native.Shape, ends []SoftmaxEnds, proofs []SoftmaxProof) []gpcs.Claim {
	var half fr.Element
	half.SetUint64(2)
	half.Inverse(&half)
	var out []gpcs.Claim
	for k, st := range s.Softmax {
		p, e := &proofs[k], ends[k]
		h, i, j := st.Vars()
		blocks := st.Blocks()
		for m, b := range blocks {
			if b < 0 {
				continue
			}
			point := e.Zero
			if native.SoftmaxRowTable(m) {
				point = point[:h+i]
			}
			out = append(out, blockClaim(s.Layout, b, point, p.Zero.Evaluations[m]))
		}
		halves := append([]frontend.Variable(nil), e.Rows...)
		for range j {
			halves = append(halves, field.BigInt(&half))
		}
		out = append(out,
			blockClaim(s.Layout, blocks[native.SoftmaxExp], halves, p.Rows[0]),
			blockClaim(s.Layout, blocks[native.SoftmaxSum], e.Rows, p.Rows[1]),
			blockClaim(s.Layout, st.OneHotBlock(), halves, p.Rows[2]),
			blockClaim(s.Layout, st.OneHotBlock(), e.OneHot, p.OneHotEvals[0]),
			blockClaim(s.Layout, blocks[native.SoftmaxLo], e.OneHot, p.OneHotEvals[1]),
			blockClaim(s.Layout, blocks[native.SoftmaxHi], e.OneHot, p.OneHotEvals[2]))
	}
	return out
}
