package position

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
	"github.com/veriformer/veriformer/protocol/position"
)

// Masked is the in-circuit masked sum-check and its final table value.
type Masked struct {
	SumCheck sumcheck.Proof
	Prefix   frontend.Variable
}

// Proof is the in-circuit positional-encoding proof.
type Proof struct {
	Input frontend.Variable
	// Masked has one entry when Rows > 1 is not a power of two.
	Masked   []Masked
	Siblings []frontend.Variable
}

// PlaceholderProof sizes a proof for the layer cfg.
func PlaceholderProof(cfg position.Config) Proof {
	p := Proof{Siblings: make([]frontend.Variable, cfg.Halvings())}
	if cfg.Masked() {
		p.Masked = []Masked{{SumCheck: sumcheck.PlaceholderProof(cfg.RowVars(), 3)}}
	}
	return p
}

// ValueOfProof returns the assignment of a native proof.
func ValueOfProof[E field.Scalar](p *position.Proof[E]) Proof {
	a := Proof{Input: field.BigInt(&p.Input), Siblings: poly.ValuesOf(p.Siblings)}
	if p.Masked != nil {
		a.Masked = []Masked{{SumCheck: sumcheck.ValueOfProof(&p.Masked.SumCheck), Prefix: field.BigInt(&p.Masked.Prefix)}}
	}
	return a
}

// Claims are the claims the layer leaves: on X̂ and on the padded table.
type Claims struct {
	Input, Table poly.Claim
}

// Verify checks a positional-encoding proof against one claim on the
// output and returns the claims on X̂ and on the position table.
func Verify(api frontend.API, tr *transcript.Transcript, shape position.Config, proof Proof, out []poly.Claim) (Claims, error) {
	var claims Claims
	if err := shape.Validate(); err != nil {
		return claims, err
	}
	rv := shape.RowVars()
	if len(out) != 1 || len(out[0].Point) != rv+shape.ColVars() {
		return claims, fmt.Errorf("position: want one output claim of %d coordinates", rv+shape.ColVars())
	}
	if len(proof.Siblings) != shape.Halvings() || len(proof.Masked) != len(PlaceholderProof(shape).Masked) {
		return claims, fmt.Errorf("position: proof does not match shape %+v", shape)
	}
	tr.Label("position")
	r := out[0].Point
	tr.Absorb(proof.Input)
	claims.Input = poly.Claim{Point: r, Value: proof.Input}
	value := api.Sub(out[0].Value, proof.Input)
	if shape.Rows == 1 {
		n := shape.ContextVars()
		point := make([]frontend.Variable, n, n+len(r))
		for k := range n {
			point[k] = shape.Start >> (n - 1 - k) & 1
		}
		claims.Table = poly.Claim{Point: append(point, r...), Value: value}
		return claims, nil
	}
	point := append([]frontend.Variable(nil), r[:rv]...)
	if shape.Masked() {
		rho, final, err := sumcheck.Verify(api, tr, value, 3, proof.Masked[0].SumCheck)
		if err != nil {
			return claims, fmt.Errorf("position: masked sum-check: %w", err)
		}
		if len(rho) != rv {
			return claims, fmt.Errorf("position: masked sum-check has %d rounds, want %d", len(rho), rv)
		}
		prefix := proof.Masked[0].Prefix
		tr.Absorb(prefix)
		weight := api.Mul(poly.Eq(api, point, rho), poly.Prefix(api, rho, shape.Rows))
		api.AssertIsEqual(final, api.Mul(weight, prefix))
		point, value = rho, prefix
	}
	for _, sibling := range proof.Siblings {
		tr.Absorb(sibling)
		tau := tr.Challenge()
		value = api.Add(value, api.Mul(tau, api.Sub(sibling, value)))
		point = append([]frontend.Variable{tau}, point...)
	}
	claims.Table = poly.Claim{Point: append(point, r[rv:]...), Value: value}
	return claims, nil
}
