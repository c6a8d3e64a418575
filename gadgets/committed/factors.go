package committed

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
)

// FactorProof is native.FactorProof in circuit: a degree-3 sum-check
// and the two committed factors' values at its end point.
type FactorProof struct {
	SumCheck gsumcheck.Proof
	A, B     frontend.Variable
}

// placeholderFactors sizes factor proofs of the given numbers of rounds.
func placeholderFactors(vars []int) []FactorProof {
	out := make([]FactorProof, len(vars))
	for k, n := range vars {
		out[k] = FactorProof{SumCheck: gsumcheck.PlaceholderProof(n, 3)}
	}
	return out
}

// ValueOfFactors returns the assignment of native factor proofs.
func ValueOfFactors(ps []native.FactorProof) []FactorProof {
	out := make([]FactorProof, len(ps))
	for k := range ps {
		v := gpoly.ValuesOf([]fr.Element{ps[k].A, ps[k].B})
		out[k] = FactorProof{SumCheck: gsumcheck.ValueOfProof(&ps[k].SumCheck), A: v[0], B: v[1]}
	}
	return out
}

// factorStep is one factor sum-check as the verifier sees it (native
// factorStep): its claim, rounds and final value from A and B.
type factorStep struct {
	name  string
	sum   frontend.Variable
	vars  int
	final func(end []frontend.Variable, a, b frontend.Variable) frontend.Variable
}

// verifyFactors is native verifyFactors in circuit: under label (none
// without steps) each step's sum-check, its final value asserted from the
// step's public parts, A and B absorbed; it returns the end points.
func verifyFactors(api frontend.API, t *transcript.Transcript, label string, steps []factorStep, proofs []FactorProof) ([][]frontend.Variable, error) {
	if len(proofs) != len(steps) {
		return nil, fmt.Errorf("committed: %s: %d proofs for %d claims", label, len(proofs), len(steps))
	}
	if len(steps) == 0 {
		return nil, nil
	}
	t.Label(label)
	ends := make([][]frontend.Variable, len(steps))
	for k, s := range steps {
		if len(proofs[k].SumCheck.Rounds) != s.vars {
			return nil, fmt.Errorf("committed: %s: %d rounds over %d variables", s.name, len(proofs[k].SumCheck.Rounds), s.vars)
		}
		end, expected, err := gsumcheck.Verify(api, t, s.sum, 3, proofs[k].SumCheck)
		if err != nil {
			return nil, fmt.Errorf("committed: %s: %w", s.name, err)
		}
		api.AssertIsEqual(s.final(end, proofs[k].A, proofs[k].B), expected)
		t.Absorb(proofs[k].A, proofs[k].B)
		ends[k] = end
	}
	return ends, nil
}

// factorClaims are the claims of each step's A and B on their blocks at
// the points blocks gives for its end point (native factorClaims).
func factorClaims(l *native.Layout, proofs []FactorProof, ends [][]frontend.Variable, blocks func(k int, end []frontend.Variable) (a, b int, pa, pb []frontend.Variable)) []gpcs.Claim {
	var out []gpcs.Claim
	for k := range proofs {
		a, b, pa, pb := blocks(k, ends[k])
		out = append(out, blockClaim(l, a, pa, proofs[k].A), blockClaim(l, b, pb, proofs[k].B))
	}
	return out
}

// Gated products (Llama's MLP): Σ eq(r, x)·Act(x)·Up(x) = Acc(r).

// PlaceholderProducts sizes the gated products' proofs of a segment.
func PlaceholderProducts(s *native.Shape) []FactorProof {
	vars := make([]int, len(s.Products))
	for k, g := range s.Products {
		vars[k] = g.Vars
	}
	return placeholderFactors(vars)
}

func productSteps(api frontend.API, s *native.Shape, points [][]frontend.Variable, acc []frontend.Variable) []factorStep {
	steps := make([]factorStep, len(s.Products))
	for k, g := range s.Products {
		r := points[g.Q]
		steps[k] = factorStep{name: fmt.Sprintf("gated product %d", k), sum: acc[g.Q], vars: g.Vars,
			final: func(end []frontend.Variable, a, b frontend.Variable) frontend.Variable {
				return api.Mul(gpoly.Eq(api, r, end), a, b)
			}}
	}
	return steps
}

func productClaims(s *native.Shape, ends [][]frontend.Variable, proofs []FactorProof) []gpcs.Claim {
	return factorClaims(s.Layout, proofs, ends, func(k int, end []frontend.Variable) (int, int, []frontend.Variable, []frontend.Variable) {
		return s.Products[k].Act, s.Products[k].Up, end, end
	})
}

// RoPE rotations: Σ eq(r, x)·(In(x)·C(x) + In(x ⊕ half)·S′(x)) = Acc(r),
// C and S′ public tables evaluated from constants.

// PlaceholderRotations sizes the rotations' proofs of a segment.
func PlaceholderRotations(s *native.Shape) []FactorProof {
	vars := make([]int, len(s.Rotations))
	for k, rt := range s.Rotations {
		vars[k] = rt.Vars
	}
	return placeholderFactors(vars)
}

func rotationSteps(api frontend.API, s *native.Shape, points [][]frontend.Variable, acc []frontend.Variable) []factorStep {
	steps := make([]factorStep, len(s.Rotations))
	for k := range s.Rotations {
		rt := &s.Rotations[k]
		r := points[rt.Q]
		steps[k] = factorStep{name: "rotation " + rt.Rope.Out.Name, sum: acc[rt.Q], vars: rt.Vars,
			final: func(end []frontend.Variable, in, paired frontend.Variable) frontend.Variable {
				c, sn := rt.Tables()
				cv := gpoly.EvaluateDense(api, gpoly.ValuesOf(c), end)
				sv := gpoly.EvaluateDense(api, gpoly.ValuesOf(sn), end)
				v := api.Add(api.Mul(in, cv), api.Mul(paired, sv))
				return api.Mul(v, gpoly.Eq(api, r, end))
			}}
	}
	return steps
}

func rotationClaims(api frontend.API, s *native.Shape, ends [][]frontend.Variable, proofs []FactorProof) []gpcs.Claim {
	return factorClaims(s.Layout, proofs, ends, func(k int, end []frontend.Variable) (int, int, []frontend.Variable, []frontend.Variable) {
		rt := &s.Rotations[k]
		flipped := append([]frontend.Variable(nil), end...)
		flipped[rt.Flip] = api.Sub(1, flipped[rt.Flip])
		return rt.In, rt.In, end, flipped
	})
}

// Attention contractions: the scores Q·Kᵀ and the context P·V, with the
// causal mask in the public weight.

// PlaceholderContractions sizes the contractions' proofs of a segment.
func PlaceholderContractions(s *native.Shape) []FactorProof {
	vars := make([]int, len(s.Contractions))
	for k := range s.Contractions {
		c := &s.Contractions[k]
		vars[k] = c.BH + c.BI + c.BJ + c.BC
	}
	return placeholderFactors(vars)
}

// split returns the end point's coordinates by group (native split).
func split(k *native.Contraction, end []frontend.Variable) (h, i, j, c []frontend.Variable) {
	if k.Scores {
		return end[:k.BH], end[k.BH : k.BH+k.BI], end[k.BH+k.BI : k.BH+k.BI+k.BJ], end[k.BH+k.BI+k.BJ:]
	}
	i, h, c, j = end[:k.BI], end[k.BI:k.BI+k.BH], end[k.BI+k.BH:k.BI+k.BH+k.BC], end[k.BI+k.BH+k.BC:]
	return h, i, j, c
}

// factorPoints are the points of a contraction's factors at its end
// point (native factorPoints).
func factorPoints(k *native.Contraction, end []frontend.Variable) (pa, pb []frontend.Variable) {
	h, i, j, c := split(k, end)
	g := h[:k.BH-k.S]
	cat := func(parts ...[]frontend.Variable) []frontend.Variable {
		var out []frontend.Variable
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	if k.Scores {
		return cat(i, h, c), cat(j, g, c)
	}
	return cat(h, i, j), cat(j, g, c)
}

// eqEval is the MLE of eq(r, ·)·mask at the end point (native eqEval):
// Σ over the unmasked pairs (a, b) of padded query and key rows of
// eq(e_i, a)·eq(e_j, b)·eq(r_i, a)·(eq(r_j, b) for the scores), times eq
// of the other groups: O(2^(BI+BJ)).
func eqEval(api frontend.API, k *native.Contraction, r, end []frontend.Variable) frontend.Variable {
	h, i, j, c := split(k, end)
	var ri, rj, rest, at []frontend.Variable
	if k.Scores {
		ri, rj = r[k.BH:k.BH+k.BI], r[k.BH+k.BI:]
		rest, at = r[:k.BH], h
	} else {
		ri = r[:k.BI]
		rest, at = r[k.BI:], append(append([]frontend.Variable(nil), h...), c...)
	}
	ei, ej := gpoly.EqTable(api, i), gpoly.EqTable(api, j)
	wi := gpoly.EqTable(api, ri)
	for a := range ei {
		ei[a] = api.Mul(ei[a], wi[a])
	}
	if rj != nil {
		wj := gpoly.EqTable(api, rj)
		for b := range ej {
			ej[b] = api.Mul(ej[b], wj[b])
		}
	}
	var sum frontend.Variable = 0
	for a := range ei {
		var row frontend.Variable = 0
		for b := range ej {
			if b <= k.Start+a {
				row = api.Add(row, ej[b])
			}
		}
		sum = api.Add(sum, api.Mul(row, ei[a]))
	}
	return api.Mul(gpoly.Eq(api, rest, at), sum)
}

func contractionSteps(api frontend.API, s *native.Shape, points [][]frontend.Variable, acc []frontend.Variable) []factorStep {
	steps := make([]factorStep, len(s.Contractions))
	for n := range s.Contractions {
		k := &s.Contractions[n]
		r := points[k.Q]
		steps[n] = factorStep{name: k.Name, sum: acc[k.Q], vars: k.BH + k.BI + k.BJ + k.BC,
			final: func(end []frontend.Variable, a, b frontend.Variable) frontend.Variable {
				return api.Mul(eqEval(api, k, r, end), a, b)
			}}
	}
	return steps
}

func contractionClaims(s *native.Shape, ends [][]frontend.Variable, proofs []FactorProof) []gpcs.Claim {
	return factorClaims(s.Layout, proofs, ends, func(n int, end []frontend.Variable) (int, int, []frontend.Variable, []frontend.Variable) {
		k := &s.Contractions[n]
		pa, pb := factorPoints(k, end)
		return k.A, k.B, pa, pb
	})
}
