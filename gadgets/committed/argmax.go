package committed

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	gpoly "github.com/veriformer/veriformer/gadgets/poly"
	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	gsumcheck "github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/statement"
)

// ArgmaxProof is native.ArgmaxProof in circuit: each row's target U_i,
// the chosen logits L[i][U_i], in a chunk the Local logits, the margins'
// MLE at (ρ_k, ρ_j), the sum-check over the logits' row coordinates and
// the logits' MLE at its end (r′, ρ_j).
type ArgmaxProof struct {
	Targets     []frontend.Variable
	Chosen      []frontend.Variable
	Local       []frontend.Variable
	MarginsEval frontend.Variable
	SumCheck    gsumcheck.Proof
	LogitsEval  frontend.Variable
}

// PlaceholderArgmax sizes the argmax proof of a segment with the LM head
// (one target and one chosen logit per row, in a chunk one Local logit
// too, a degree-2 sum-check over the logits' row coordinates); nil in the
// other segments.
func PlaceholderArgmax(s *native.Shape) *ArgmaxProof {
	a := s.Argmax
	if a == nil {
		return nil
	}
	rowVars, _ := a.Vars()
	p := &ArgmaxProof{Targets: make([]frontend.Variable, a.Rows()), Chosen: make([]frontend.Variable, a.Rows()), SumCheck: gsumcheck.PlaceholderProof(rowVars, 2)}
	if a.Chunk() {
		p.Local = make([]frontend.Variable, a.Rows())
	}
	return p
}

// ValueOfArgmax returns the assignment of a native argmax proof (nil for
// nil).
func ValueOfArgmax(p *native.ArgmaxProof) *ArgmaxProof {
	if p == nil {
		return nil
	}
	return &ArgmaxProof{
		Targets:     gpoly.Ints(p.Targets),
		Chosen:      gpoly.ValuesOf(p.Chosen),
		Local:       gpoly.ValuesOf(p.Local),
		MarginsEval: field.BigInt(&p.MarginsEval),
		SumCheck:    gsumcheck.ValueOfProof(&p.SumCheck),
		LogitsEval:  field.BigInt(&p.LogitsEval),
	}
}

// verifyArgmax is native Shape.VerifyArgmax in circuit, for the request
// bound to the statement (its pass's tokens T and live rows): it asserts
// each row's target U_i equal to T[i + 1] on a live row and below the
// vocabulary size (as the native check), then replays the step in the
// native transcript order (label "committed/argmax", the targets packed
// as tokens, the chosen logits, ρ = (ρ_k, ρ_j) over the margins'
// coordinates, the margins' value, the row sum-check of claim
// Σ_i eq(ρ_k, i)·(L[i][U_i]·Sel_V(ρ_j) − Prefix_{U_i}(ρ_j)) − D(ρ), its
// final value w(r′)·L(r′, ρ_j) with w(r′) = Σ_{i<R} eq(ρ_k, i)·eq(r′, i),
// the logits' value). Prefix_U is evaluated from U's bits. It returns the
// point (r′, ρ_k, ρ_j); nil outside the segments with the LM head, where
// a proof is an error.
//
// In a chunk of columns [a, b) each target is asserted below the
// vocabulary size over the bits of the vocabulary, its column is
// c_i = [a ≤ U_i < b]·(U_i − a), the prefix Prefix_{c_i}(ρ_j) +
// [U_i ≥ b]·Sel_V(ρ_j) (V the chunk's width), the Local logits are
// absorbed after the chosen ones, and Local[i] = Chosen[i] is asserted
// where a ≤ U_i < b.
func verifyArgmax(api frontend.API, t *transcript.Transcript, s *native.Shape, req *gstatement.Bound, p *ArgmaxProof) ([]frontend.Variable, error) {
	a := s.Argmax
	if a == nil {
		if p != nil {
			return nil, fmt.Errorf("committed: argmax: a proof in a segment without the LM head")
		}
		return nil, nil
	}
	rows := a.Rows()
	rowVars, colVars := a.Vars()
	nbLocal := 0
	if a.Chunk() {
		nbLocal = rows
	}
	if p == nil || len(p.Targets) != rows || len(p.Chosen) != rows || len(p.Local) != nbLocal || len(p.SumCheck.Rounds) != rowVars {
		return nil, fmt.Errorf("committed: argmax: a proof shaped for another pass")
	}
	if req == nil || len(req.Live) != rows || len(req.Tokens) != rows+1 {
		return nil, fmt.Errorf("committed: argmax: a request of another bucket")
	}
	bits := make([][]frontend.Variable, rows)
	above := make([]frontend.Variable, rows)
	if req.Next != nil && len(req.Next) != rows {
		return nil, fmt.Errorf("committed: argmax: %d targets for %d rows", len(req.Next), rows)
	}
	for i, tok := range p.Targets {
		next := req.Tokens[i+1]
		if req.Next != nil {
			next = req.Next[i]
		}
		api.AssertIsEqual(api.Mul(req.Live[i], api.Sub(tok, next)), 0)
		if !a.Chunk() {
			bits[i] = tokenBits(api, tok, colVars)
			assertBitsBelow(api, bits[i], a.Vocab())
			continue
		}
		bits[i], above[i] = chunkToken(api, a, tok, p.Local[i], p.Chosen[i])
	}

	t.Label("committed/argmax")
	if err := t.AbsorbPacked(p.Targets, 0, 1<<statement.TokenBits-1); err != nil {
		return nil, err
	}
	t.Absorb(p.Chosen...)
	t.Absorb(p.Local...)
	rho := t.Challenges(s.Layout.Blocks[a.MarginsBlock()].NbVars)
	rhoK, rhoJ := rho[:len(rho)-colVars], rho[len(rho)-colVars:]
	t.Absorb(p.MarginsEval)

	eqK := gpoly.EqTable(api, rhoK)
	sel := gpoly.ShapeSelector(api, []int{a.Vocab()}, rhoJ)
	var sum frontend.Variable = 0
	for i := range rows {
		prefix := bitsPrefix(api, rhoJ, bits[i])
		if a.Chunk() {
			prefix = api.Add(prefix, api.Mul(above[i], sel))
		}
		v := api.Sub(api.Mul(p.Chosen[i], sel), prefix)
		sum = api.Add(sum, api.Mul(eqK[i], v))
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
		for i := range rows {
			w = api.Add(w, api.Mul(eqK[i], gpoly.EqIndex(api, end, i)))
		}
		api.AssertIsEqual(api.Mul(w, p.LogitsEval), expected)
	}
	t.Absorb(p.LogitsEval)
	return append(append(end, rhoK...), rhoJ...), nil
}

// argmaxClaims is native Shape.ArgmaxClaims in circuit, in the same
// order: each chosen logit at the boolean point of row i (constant) and
// target U_i (its bits, variables) — in a chunk each Local logit at
// column c_i —, the margins at (ρ_k, ρ_j) and the logits at (r′, ρ_j),
// from the point verifyArgmax returned; none outside the segments with
// the LM head.
func argmaxClaims(api frontend.API, s *native.Shape, point []frontend.Variable, p *ArgmaxProof) []gpcs.Claim {
	a := s.Argmax
	if a == nil {
		return nil
	}
	rowVars, colVars := a.Vars()
	var out []gpcs.Claim
	for i := range a.Rows() {
		local := make([]frontend.Variable, 0, rowVars+colVars)
		for b := rowVars - 1; b >= 0; b-- {
			local = append(local, i>>b&1)
		}
		if !a.Chunk() {
			local = append(local, tokenBits(api, p.Targets[i], colVars)...)
			out = append(out, blockClaim(s.Layout, a.LogitsBlock(), local, p.Chosen[i]))
			continue
		}
		col, _, _ := chunkColumn(api, a, p.Targets[i])
		out = append(out, blockClaim(s.Layout, a.LogitsBlock(), append(local, col...), p.Local[i]))
	}
	end, rho := point[:rowVars], point[rowVars:]
	lPoint := append(append([]frontend.Variable(nil), end...), rho[len(rho)-colVars:]...)
	return append(out,
		blockClaim(s.Layout, a.MarginsBlock(), rho, p.MarginsEval),
		blockClaim(s.Layout, a.LogitsBlock(), lPoint, p.LogitsEval))
}

// chunkToken is chunkColumn asserting local = chosen where the chunk
// holds tok; it returns the bits of tok's column and [tok ≥ b].
func chunkToken(api frontend.API, a *native.ArgmaxStep, tok, local, chosen frontend.Variable) (col []frontend.Variable, above frontend.Variable) {
	col, in, above := chunkColumn(api, a, tok)
	api.AssertIsEqual(api.Mul(in, api.Sub(local, chosen)), 0)
	return col, above
}

// chunkColumn places the output token tok in the columns [a, b) of a
// chunk's logits: it asserts tok below the vocabulary size (over the
// bits of the vocabulary) and returns the bits of its column
// c = [a ≤ tok < b]·(tok − a) over the logits' column coordinates, and
// the booleans in = [a ≤ tok < b] and above = [tok ≥ b].
func chunkColumn(api frontend.API, a *native.ArgmaxStep, tok frontend.Variable) (col []frontend.Variable, in, above frontend.Variable) {
	_, colVars := a.Vars()
	lo, hi := a.Offset(), a.Offset()+a.Vocab()
	n := bits.Len(uint(a.Total() - 1))
	full := tokenBits(api, tok, n)
	assertBitsBelow(api, full, a.Total())
	// [c < t] is Prefix_t at the boolean point of c.
	less := func(c int) frontend.Variable {
		pt := make([]frontend.Variable, n)
		for i := range n {
			pt[i] = c >> (n - 1 - i) & 1
		}
		return bitsPrefix(api, pt, full)
	}
	var atLeast frontend.Variable = 1 // [lo ≤ t] = [lo − 1 < t]
	if lo > 0 {
		atLeast = less(lo - 1)
	}
	above = 0 // [hi ≤ t] = [hi − 1 < t]
	if hi < 1<<n {
		above = less(hi - 1)
	}
	in = api.Mul(atLeast, api.Sub(1, above))
	return tokenBits(api, api.Mul(in, api.Sub(tok, lo)), colVars), in, above
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
