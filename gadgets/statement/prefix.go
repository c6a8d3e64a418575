package statement

import (
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/rangecheck"

	"github.com/veriformer/veriformer/gadgets/transcript"
	native "github.com/veriformer/veriformer/transcript"
)

// prefixDigest returns the digest of the first count tokens of a buffer,
// count a circuit variable, given the thermometer τᵢ = [i < count] of the
// buffer (gadgets/poly.Thermometer, which asserts 0 ≤ count ≤
// len(tokens)): statement.TokensDigest of tokens[:count]. It asserts
// every token below 2²⁰ and every token at or past count equal to 0, so
// that the buffer holds exactly one sequence for each digest.
//
// The transcript absorbs count, then every packed element of the buffer
// (twelve 20-bit tokens each), keeping each state; the zeros past count
// pack as the native transcript packs the shorter sequence, and the
// digest is the state after element ⌈count/12⌉, read off the thermometer:
// [⌈count/12⌉ = j] = τ_{12(j−1)} − τ_{12j}. Cost: the permutations of the
// digest of the whole buffer, plus about five constraints per token.
func prefixDigest(api frontend.API, tokens []frontend.Variable, count frontend.Variable, tau []frontend.Variable) (frontend.Variable, error) {
	layout, err := native.Layout(0, 1<<tokenBits-1, api.Compiler().FieldBitLen())
	if err != nil {
		return nil, err
	}
	tr, err := transcript.New(api, "tokens")
	if err != nil {
		return nil, err
	}
	rc := rangecheck.New(api)
	for i, tok := range tokens {
		rc.Check(tok, layout.Bits)
		api.AssertIsEqual(api.Mul(tok, api.Sub(1, tau[i])), 0)
	}
	// above(i) = [i < count], 0 past the buffer.
	above := func(i int) frontend.Variable {
		if i >= len(tokens) {
			return 0
		}
		return tau[i]
	}
	tr.Absorb(count)
	// The state after no element: count = 0.
	digest := api.Mul(api.Sub(1, above(0)), tr.State())
	per := layout.PerElement
	for j, start := 1, 0; start < len(tokens); j, start = j+1, start+per {
		var acc frontend.Variable = 0
		for k := min(len(tokens), start+per) - 1; k >= start; k-- {
			acc = api.Add(api.Mul(acc, 1<<layout.Bits), tokens[k])
		}
		tr.Absorb(acc)
		digest = api.Add(digest, api.Mul(api.Sub(above(per*(j-1)), above(per*j)), tr.State()))
	}
	return digest, nil
}
