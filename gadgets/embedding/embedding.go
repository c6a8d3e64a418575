package embedding

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	npoly "github.com/veriformer/veriformer/poly"
	"github.com/veriformer/veriformer/protocol/embedding"
)

// Proof is the in-circuit embedding proof.
type Proof struct {
	SumCheck sumcheck.Proof
	Table    frontend.Variable
}

// PlaceholderProof sizes a proof for the lookup cfg.
func PlaceholderProof(cfg embedding.Config) Proof {
	return Proof{SumCheck: sumcheck.PlaceholderProof(cfg.VocabVars(), 2)}
}

// ValueOfProof returns the assignment of a native proof.
func ValueOfProof[E field.Scalar](p *embedding.Proof[E]) Proof {
	return Proof{SumCheck: sumcheck.ValueOfProof(&p.SumCheck), Table: field.BigInt(&p.Table)}
}

// Claims holds the claim left on the padded table.
type Claims struct {
	Table poly.Claim
}

// Verify checks an embedding proof for the token ids (circuit variables,
// bound to the statement by the caller) against one claim on X̂ and returns
// the claim on the table. Each token is decomposed into ⌈log₂ V⌉ bits and
// constrained to [0, V).
func Verify(api frontend.API, tr *transcript.Transcript, shape embedding.Config, tokens []frontend.Variable, proof Proof, out []poly.Claim) (Claims, error) {
	var claims Claims
	if err := shape.Validate(); err != nil {
		return claims, err
	}
	rv, n := shape.RowVars(), shape.VocabVars()
	if len(tokens) != shape.Rows || len(out) != 1 || len(out[0].Point) != rv+shape.ColVars() || len(proof.SumCheck.Rounds) != n {
		return claims, fmt.Errorf("embedding: tokens, claims or proof do not match shape %+v", shape)
	}
	tr.Label("embedding")
	r := out[0].Point
	rho, final, err := sumcheck.Verify(api, tr, out[0].Value, 2, proof.SumCheck)
	if err != nil {
		return claims, fmt.Errorf("embedding: sum-check: %w", err)
	}
	tr.Absorb(proof.Table)
	var selector frontend.Variable = 0
	for i, t := range tokens {
		selector = api.Add(selector, api.Mul(poly.EqIndex(api, r[:rv], i), oneHot(api, rho, t, shape.Vocab)))
	}
	api.AssertIsEqual(final, api.Mul(selector, proof.Table))
	claims.Table = poly.Claim{Point: npoly.Concat(rho, r[rv:]), Value: proof.Table}
	return claims, nil
}

// oneHot returns β(rho, bits(t)) for a variable t, constraining t to
// [0, vocab): n bits, then Πₖ (1 − ρₖ − bₖ + 2ρₖbₖ) with ρ₁ against the most
// significant bit.
func oneHot(api frontend.API, rho []frontend.Variable, t frontend.Variable, vocab int) frontend.Variable {
	n := len(rho)
	if n == 0 {
		api.AssertIsEqual(t, 0)
		return 1
	}
	b := api.ToBinary(t, n)
	if vocab != 1<<n {
		assertAtMost(api, b, vocab-1)
	}
	var res frontend.Variable = 1
	for k := range n {
		bit := b[n-1-k]
		factor := api.Sub(api.Add(api.Mul(api.Mul(rho[k], bit), 2), 1), api.Add(rho[k], bit))
		if k == 0 {
			res = factor
			continue
		}
		res = api.Mul(res, factor)
	}
	return res
}

// assertAtMost constrains the integer with little-endian bits b to be at
// most the constant c < 2^len(b): from the most significant bit, equal
// tracks "the bits so far equal those of c"; where c has a 0 the bit must
// be 0 while equal holds. One constraint per bit.
func assertAtMost(api frontend.API, b []frontend.Variable, c int) {
	var equal frontend.Variable = 1
	for k := len(b) - 1; k >= 0; k-- {
		if c>>k&1 == 1 {
			equal = api.Mul(equal, b[k])
		} else {
			api.AssertIsEqual(api.Mul(equal, b[k]), 0)
		}
	}
}
