package committed

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
)

// ArgmaxProof is native.ArgmaxProof in circuit: the chosen logits
// L[P−1+k][t_k], the margins' MLE at (ρ_k, ρ_j), the sum-check over the
// logits' row coordinates and the logits' MLE at its end (r′, ρ_j).
type ArgmaxProof struct {
	Chosen      []frontend.Variable
	MarginsEval frontend.Variable
	SumCheck    gsumcheck.Proof
	LogitsEval  frontend.Variable
}

// PlaceholderArgmax sizes the argmax proof of the last segment (one
// chosen logit per output token, a degree-2 sum-check over the logits'
// row coordinates); nil in the other segments.
func PlaceholderArgmax(s *native.Shape) *ArgmaxProof {
	a := s.Argmax
	if a == nil {
		return nil
	}
	rowVars, _ := a.Vars()
	return &ArgmaxProof{Chosen: make([]frontend.Variable, len(a.Rows())), SumCheck: gsumcheck.PlaceholderProof(rowVars, 2)}
}

// ValueOfArgmax returns the assignment of a native argmax proof (nil for
// nil).
func ValueOfArgmax(p *native.ArgmaxProof) *ArgmaxProof {
	if p == nil {
		return nil
	}
	return &ArgmaxProof{
		Chosen:      gpoly.ValuesOf(p.Chosen),
		MarginsEval: field.BigInt(&p.MarginsEval),
		SumCheck:    gsumcheck.ValueOfProof(&p.SumCheck),
		LogitsEval:  field.BigInt(&p.LogitsEval),
	}
}

// verifyArgmax is native Shape.VerifyArgmax in circuit, for the output
// tokens given as circuit variables (one per output token, in order):
// it asserts each token below the vocabulary size (as the native pass
// check), then replays the step in the native transcript order (label
// "committed/argmax", the chosen logits, ρ = (ρ_k, ρ_j) over the
// margins' coordinates, the margins' value, the row sum-check of claim
// Σ_k eq(ρ_k, k)·(L[P−1+k][t_k]·Sel_V(ρ_j) − Prefix_{t_k}(ρ_j)) −
// D(ρ), its final value w(r′)·L(r′, ρ_j), the logits' value). Prefix_t
// is evaluated from t's bits. It returns the point (r′, ρ_k, ρ_j); nil
// outside the last segment, where a proof is an error.
func verifyArgmax(api frontend.API, t *transcript.Transcript, s *native.Shape, tokens []frontend.Variable, p *ArgmaxProof) ([]frontend.Variable, error) {
	a := s.Argmax
	if a == nil {
		if p != nil {
			return nil, fmt.Errorf("committed: argmax: a proof outside the last segment")
		}
		return nil, nil
	}
	rows := a.Rows()
	rowVars, colVars := a.Vars()
	if p == nil || len(p.Chosen) != len(rows) || len(tokens) != len(rows) || len(p.SumCheck.Rounds) != rowVars {
		return nil, fmt.Errorf("committed: argmax: a proof or tokens shaped for another pass")
	}
	bits := make([][]frontend.Variable, len(tokens))
	for k, tok := range tokens {
		bits[k] = tokenBits(api, tok, colVars)
		assertBitsBelow(api, bits[k], a.Vocab())
	}

	t.Label("committed/argmax")
	t.Absorb(p.Chosen...)
	rho := t.Challenges(s.Layout.Blocks[a.MarginsBlock()].NbVars)
	rhoK, rhoJ := rho[:len(rho)-colVars], rho[len(rho)-colVars:]
	t.Absorb(p.MarginsEval)

	eqK := gpoly.EqTable(api, rhoK)
	sel := gpoly.ShapeSelector(api, []int{a.Vocab()}, rhoJ)
	var sum frontend.Variable = 0
	for k := range tokens {
		v := api.Sub(api.Mul(p.Chosen[k], sel), bitsPrefix(api, rhoJ, bits[k]))
		sum = api.Add(sum, api.Mul(eqK[k], v))
	}
	sum = api.Sub(sum, p.MarginsEval)

	end := []frontend.Variable{}
	if rowVars == 0 {
		api.AssertIsEqual(sum, p.LogitsEval)
	} else {
		var expected frontend.Variable
		var err error
		if end, expected, err = gsumcheck.Verify(api, t, sum, 2, p.SumCheck); err != nil {
			return nil, fmt.Errorf("committed: argmax: %w", err)
		}
		var w frontend.Variable = 0
		for k, i := range rows {
			w = api.Add(w, api.Mul(eqK[k], gpoly.EqIndex(api, end, i)))
		}
		api.AssertIsEqual(api.Mul(w, p.LogitsEval), expected)
	}
	t.Absorb(p.LogitsEval)
	return append(append(end, rhoK...), rhoJ...), nil
}

// argmaxClaims is native Shape.ArgmaxClaims in circuit, in the same
// order: each chosen logit at the boolean point of row P−1+k (constant)
// and token t_k (its bits, variables), the margins at (ρ_k, ρ_j) and the
// logits at (r′, ρ_j), from the point verifyArgmax returned; none outside
// the last segment.
func argmaxClaims(api frontend.API, s *native.Shape, tokens []frontend.Variable, point []frontend.Variable, p *ArgmaxProof) []gpcs.Claim {
	a := s.Argmax
	if a == nil {
		return nil
	}
	rowVars, colVars := a.Vars()
	var out []gpcs.Claim
	for k, i := range a.Rows() {
		local := make([]frontend.Variable, 0, rowVars+colVars)
		for b := rowVars - 1; b >= 0; b-- {
			local = append(local, i>>b&1)
		}
		local = append(local, tokenBits(api, tokens[k], colVars)...)
		out = append(out, blockClaim(s.Layout, a.LogitsBlock(), local, p.Chosen[k]))
	}
	end, rho := point[:rowVars], point[rowVars:]
	lPoint := append(append([]frontend.Variable(nil), end...), rho[len(rho)-colVars:]...)
	return append(out,
		blockClaim(s.Layout, a.MarginsBlock(), rho, p.MarginsEval),
		blockClaim(s.Layout, a.LogitsBlock(), lPoint, p.LogitsEval))
}

// tokenBits returns the n bits of tok, most significant first (the
// order of a point's coordinates), constraining tok < 2ⁿ.
func tokenBits(api frontend.API, tok frontend.Variable, n int) []frontend.Variable {
	lsb := api.ToBinary(tok, n)
	out := make([]frontend.Variable, n)
	for i := range n {
		out[i] = lsb[n-1-i]
	}
	return out
}

// assertBitsBelow asserts that the number with the given bits (most
// significant first, each boolean) is below the constant bound ≥ 1:
// at most bound − 1, that is, at every 0 bit of bound − 1 the number's
// bit is 0 while the bits above are those of bound − 1. Nothing when
// bound ≥ 2ⁿ; at most two constraints per bit otherwise.
func assertBitsBelow(api frontend.API, bits []frontend.Variable, bound int) {
	n := len(bits)
	if n < 63 && bound >= 1<<n {
		return
	}
	c := bound - 1
	var equal frontend.Variable = 1 // the bits so far are c's
	for i, b := range bits {
		if c>>(n-1-i)&1 == 1 {
			equal = api.Mul(equal, b)
			continue
		}
		api.AssertIsEqual(api.Mul(equal, b), 0)
		// Once asserted, b = 0 wherever equal is 1: equal stays.
	}
}

// bitsPrefix returns Prefix_t(ρ) = Σ_{x<t} eq(ρ, x) for t given by its
// bits b (most significant first, len(ρ) of them): Σ over i with bᵢ = 1
// of Πⱼ<ᵢ eq(ρⱼ, bⱼ)·(1 − ρᵢ). About four constraints per bit.
func bitsPrefix(api frontend.API, rho, bits []frontend.Variable) frontend.Variable {
	var res frontend.Variable = 0
	var prod frontend.Variable = 1 // Πⱼ<ᵢ eq(ρⱼ, bⱼ)
	for i, b := range bits {
		res = api.Add(res, api.Mul(b, api.Mul(prod, api.Sub(1, rho[i]))))
		if i == len(bits)-1 {
			break
		}
		rb := api.Mul(rho[i], b)
		prod = api.Mul(prod, api.Sub(api.Add(1, api.Mul(rb, 2)), api.Add(rho[i], b)))
	}
	return res
}
