package committed

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/lookup/logderivlookup"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	npoly "github.com/veriformer/veriformer/poly"
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
// C and S′ public tables evaluated from constants (in a turn, from the
// model's RoPE tables at the variable start: ropeAt).

// PlaceholderRotations sizes the rotations' proofs of a segment.
func PlaceholderRotations(s *native.Shape) []FactorProof {
	vars := make([]int, len(s.Rotations))
	for k, rt := range s.Rotations {
		vars[k] = rt.Vars
	}
	return placeholderFactors(vars)
}

func rotationSteps(api frontend.API, m *model.Model, s *native.Shape, turn *Turn, starts []frontend.Variable, points [][]frontend.Variable, acc []frontend.Variable) []factorStep {
	steps := make([]factorStep, len(s.Rotations))
	for k := range s.Rotations {
		rt := &s.Rotations[k]
		r := points[rt.Q]
		steps[k] = factorStep{name: "rotation " + rt.Rope.Out.Name, sum: acc[rt.Q], vars: rt.Vars,
			final: func(end []frontend.Variable, in, paired frontend.Variable) frontend.Variable {
				var cv, sv frontend.Variable
				switch {
				case turn != nil:
					rows := rt.Rope.Input.Shape[0]
					at := make([]frontend.Variable, rows)
					for r := range at {
						at[r] = api.Add(turn.Start, r)
					}
					cv, sv = ropeAt(api, m, rt, s.Turn().Capacity, at, end)
				case starts != nil:
					cv, sv = ropeAt(api, m, rt, min(len(starts), m.Quant.RopePositions), stackedPositions(api, starts), end)
				default:
					c, sn := rt.Tables()
					cv = gpoly.EvaluateDense(api, gpoly.ValuesOf(c), end)
					sv = gpoly.EvaluateDense(api, gpoly.ValuesOf(sn), end)
				}
				v := api.Add(api.Mul(in, cv), api.Mul(paired, sv))
				return api.Mul(v, gpoly.Eq(api, r, end))
			}}
	}
	return steps
}

// ropeAt returns C and S′ (native Rotation.Tables) at end for rows at
// variable positions: the tables' row r is the model's RoPE row at
// position at[r] (start + r in a turn, r's position in its request in a
// batch's pass). Each of the first capacity positions p folds its
// row with the column coordinates' β table, F_C(p) = Σ_col β(e_col, col)·
// cos[p][j(col)] (a linear combination: the columns of one pair j share
// its sum of β), and gnark's log-derivative lookup reads F_C at start + r
// for every row r of the pass; C(end) = Σ_r β(e_row, r)·F_C(at[r]),
// and the same for S′ with the sign of each half-head. at[r] < capacity
// is the cache step's assertion in a turn (start + rows ≤ capacity) and
// holds by construction in a batch's pass (a row's position is at most
// its row), and capacity is at most the tables' positions (checked when
// the shape is made).
func ropeAt(api frontend.API, m *model.Model, rt *native.Rotation, capacity int, at []frontend.Variable, end []frontend.Variable) (frontend.Variable, frontend.Variable) {
	rows, width := rt.Rope.Input.Shape[0], rt.Rope.Input.Shape[1]
	half := rt.Rope.Cos.Out.Shape[1]
	rv := npoly.Log2Ceil(rows)
	eqRow, eqCol := gpoly.EqTable(api, end[:rv]), gpoly.EqTable(api, end[rv:])
	// pair[j] sums β over the columns of pair j within a head (j < 2·half:
	// the first half takes −sin, the second +sin).
	pair := make([]frontend.Variable, 2*half)
	for j := range pair {
		pair[j] = 0
	}
	for col := range width {
		j := col % (2 * half)
		pair[j] = api.Add(pair[j], eqCol[col])
	}
	tc, ts := m.Quant.Tables.RopeCos, m.Quant.Tables.RopeSin
	cosT, sinT := logderivlookup.New(api), logderivlookup.New(api)
	for p := range capacity {
		var fc, fs frontend.Variable = 0, 0
		for j := range pair {
			i := int64(p*half + j%half)
			c, _ := tc.Eval(i)
			sn, _ := ts.Eval(i)
			if j < half {
				sn = -sn
			}
			if c != 0 {
				fc = api.Add(fc, api.Mul(pair[j], c))
			}
			if sn != 0 {
				fs = api.Add(fs, api.Mul(pair[j], sn))
			}
		}
		cosT.Insert(fc)
		sinT.Insert(fs)
	}
	cs, ss := cosT.Lookup(at...), sinT.Lookup(at...)
	var cv, sv frontend.Variable = 0, 0
	for r := range rows {
		cv = api.Add(cv, api.Mul(eqRow[r], cs[r]))
		sv = api.Add(sv, api.Mul(eqRow[r], ss[r]))
	}
	return cv, sv
}

func rotationClaims(api frontend.API, s *native.Shape, ends [][]frontend.Variable, proofs []FactorProof) []gpcs.Claim {
	return factorClaims(s.Layout, proofs, ends, func(k int, end []frontend.Variable) (int, int, []frontend.Variable, []frontend.Variable) {
		rt := &s.Rotations[k]
		flipped := append([]frontend.Variable(nil), end...)
		flipped[rt.Flip] = api.Sub(1, flipped[rt.Flip])
		return rt.In, rt.In, end, flipped
	})
}

// Attention contractions: the scores Q·Kᵀ and the context P·V as matrix
// products (native Contraction), the causal mask in the public weights.

// KeyProof is native.KeyProof in circuit: the degree-2 sum-check over
// the key rows of a scores contraction and K's value at its end.
type KeyProof struct {
	SumCheck gsumcheck.Proof
	K        frontend.Variable
}

// PlaceholderContractions sizes the contractions' proofs of a segment.
func PlaceholderContractions(s *native.Shape) []FactorProof {
	vars := make([]int, len(s.Contractions))
	for k := range s.Contractions {
		vars[k] = s.Contractions[k].Vars()
	}
	return placeholderFactors(vars)
}

// PlaceholderKeys sizes the key proofs of a segment: one per scores
// contraction.
func PlaceholderKeys(s *native.Shape) []KeyProof {
	var out []KeyProof
	for k := range s.Contractions {
		if c := &s.Contractions[k]; c.Scores {
			out = append(out, KeyProof{SumCheck: gsumcheck.PlaceholderProof(c.BJ, 2)})
		}
	}
	return out
}

// ValueOfKeys returns the assignment of native key proofs.
func ValueOfKeys(ps []native.KeyProof) []KeyProof {
	out := make([]KeyProof, len(ps))
	for k := range ps {
		out[k] = KeyProof{SumCheck: gsumcheck.ValueOfProof(&ps[k].SumCheck), K: gpoly.ValuesOf([]fr.Element{ps[k].K})[0]}
	}
	return out
}

// maskSum is Σ_{a,b} x[a]·y[b] over the unmasked pairs of query row a and
// key row b (native maskSum): y's prefix sums are additions, so it costs
// one product per query row; two in a batch's pass ([blockMaskSum]).
func maskSum(api frontend.API, k *native.Contraction, starts, x, y []frontend.Variable) frontend.Variable {
	if k.Begins != nil {
		return blockMaskSum(api, starts, x, y)
	}
	prefix := make([]frontend.Variable, len(y))
	var run frontend.Variable = 0
	for b := range y {
		run = api.Add(run, y[b])
		prefix[b] = run
	}
	var sum frontend.Variable = 0
	for a := range x {
		if last := min(k.Start+a, len(y)-1); last >= 0 {
			sum = api.Add(sum, api.Mul(x[a], prefix[last]))
		}
	}
	return sum
}

// finalWeight is the public weight's MLE at a contraction's end point
// (native finalWeight), in a turn with the mask at the variable Start.
func finalWeight(api frontend.API, s *native.Shape, turn *Turn, starts []frontend.Variable, k *native.Contraction, r, end []frontend.Variable) frontend.Variable {
	h, i, j, _ := native.SplitEnd(k, end)
	if k.Scores {
		return api.Mul(gpoly.Eq(api, r[:k.BH], h), gpoly.Eq(api, r[k.BH:k.BH+k.BI], i))
	}
	if k.Cached {
		sum := turnMaskSum(api, s, turn, productPairs(api, i, r[:k.BI]), gpoly.BetaPairs(api, j))
		return api.Mul(gpoly.Eq(api, r[k.BI:k.BI+k.BH], h), sum)
	}
	ei, wi := gpoly.EqTable(api, i), gpoly.EqTable(api, r[:k.BI])
	for a := range ei {
		ei[a] = api.Mul(ei[a], wi[a])
	}
	return api.Mul(gpoly.Eq(api, r[k.BI:k.BI+k.BH], h), maskSum(api, k, starts, ei, gpoly.EqTable(api, j)))
}

// keyWeight is w's MLE at a key sum-check's end point (native
// keyWeight).
func keyWeight(api frontend.API, s *native.Shape, turn *Turn, starts []frontend.Variable, k *native.Contraction, r, end, endJ []frontend.Variable) frontend.Variable {
	_, i, _, _ := native.SplitEnd(k, end)
	if k.Cached {
		return turnMaskSum(api, s, turn, gpoly.BetaPairs(api, i), productPairs(api, endJ, r[k.BH+k.BI:]))
	}
	ej, wj := gpoly.EqTable(api, endJ), gpoly.EqTable(api, r[k.BH+k.BI:])
	for b := range ej {
		ej[b] = api.Mul(ej[b], wj[b])
	}
	return maskSum(api, k, starts, gpoly.EqTable(api, i), ej)
}

func contractionSteps(api frontend.API, s *native.Shape, turn *Turn, starts []frontend.Variable, points [][]frontend.Variable, acc []frontend.Variable) []factorStep {
	steps := make([]factorStep, len(s.Contractions))
	for n := range s.Contractions {
		k := &s.Contractions[n]
		r := points[k.Q]
		steps[n] = factorStep{name: k.Name, sum: acc[k.Q], vars: k.Vars(),
			final: func(end []frontend.Variable, a, b frontend.Variable) frontend.Variable {
				return api.Mul(finalWeight(api, s, turn, starts, k, r, end), a, b)
			}}
	}
	return steps
}

// verifyContractions is native Shape.VerifyContractions in circuit: the
// contractions' sum-checks, then under "committed/keys" each scores
// contraction's key sum-check, its final value asserted from the public
// w, K absorbed. It returns the end points of both.
func verifyContractions(api frontend.API, t *transcript.Transcript, s *native.Shape, turn *Turn, starts []frontend.Variable, points [][]frontend.Variable, acc []frontend.Variable, proofs []FactorProof, keys []KeyProof) (ends, keyEnds [][]frontend.Variable, err error) {
	if (turn != nil) != (s.Turn() != nil) {
		return nil, nil, fmt.Errorf("committed: a turn's variables exactly for a turn's shape")
	}
	if ends, err = verifyFactors(api, t, "committed/attention", contractionSteps(api, s, turn, starts, points, acc), proofs); err != nil {
		return nil, nil, err
	}
	for n := range s.Contractions {
		k := &s.Contractions[n]
		if !k.Scores {
			continue
		}
		m := len(keyEnds)
		if m >= len(keys) {
			return nil, nil, fmt.Errorf("committed: %d key proofs for more scores contractions", len(keys))
		}
		if len(keys[m].SumCheck.Rounds) != k.BJ {
			return nil, nil, fmt.Errorf("committed: the keys of %s: %d rounds over %d variables", k.Name, len(keys[m].SumCheck.Rounds), k.BJ)
		}
		if m == 0 {
			t.Label("committed/keys")
		}
		end, expected, err := gsumcheck.Verify(api, t, proofs[n].B, 2, keys[m].SumCheck)
		if err != nil {
			return nil, nil, fmt.Errorf("committed: the keys of %s: %w", k.Name, err)
		}
		api.AssertIsEqual(api.Mul(keyWeight(api, s, turn, starts, k, points[k.Q], ends[n], end), keys[m].K), expected)
		t.Absorb(keys[m].K)
		keyEnds = append(keyEnds, end)
	}
	if len(keyEnds) != len(keys) {
		return nil, nil, fmt.Errorf("committed: %d key proofs for %d scores contractions", len(keys), len(keyEnds))
	}
	return ends, keyEnds, nil
}

// contractionClaims are the factors' claims (native contractionClaims):
// the queries' and the probabilities' at the contractions' end points,
// the values' there with V bound at r_c, the keys' at the key
// sum-checks' end points.
func contractionClaims(s *native.Shape, points [][]frontend.Variable, ends [][]frontend.Variable, proofs []FactorProof, keyEnds [][]frontend.Variable, keys []KeyProof) []gpcs.Claim {
	var out []gpcs.Claim
	m := 0
	for n := range s.Contractions {
		k := &s.Contractions[n]
		h, i, j, c := native.SplitEnd(k, ends[n])
		g := h[:k.BH-k.S]
		if k.Cached {
			// The cache step proves the keys' and values' claims.
			if k.Scores {
				out = append(out, blockClaim(s.Layout, k.A, slices.Concat(i, h, c), proofs[n].A))
				m++
				continue
			}
			out = append(out, blockClaim(s.Layout, k.A, slices.Concat(h, i, j), proofs[n].A))
			continue
		}
		if k.Scores {
			out = append(out, blockClaim(s.Layout, k.A, slices.Concat(i, h, c), proofs[n].A),
				blockClaim(s.Layout, k.B, slices.Concat(keyEnds[m], g, c), keys[m].K))
			m++
			continue
		}
		r := points[k.Q]
		out = append(out, blockClaim(s.Layout, k.A, slices.Concat(h, i, j), proofs[n].A),
			blockClaim(s.Layout, k.B, slices.Concat(j, g, r[k.BI+k.BH:]), proofs[n].B))
	}
	return out
}
