package position

import (
	"fmt"
	"math/bits"

	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/gadgets/poly"
	"github.com/veriformer/veriformer/gadgets/sumcheck"
	"github.com/veriformer/veriformer/gadgets/transcript"
)

func log2Ceil(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

// Shape is the shape of one positional-encoding layer (see the native
// Config).
type Shape struct {
	Rows, Width, Context, Start int
}

func (s Shape) masked() bool { return s.Rows > 1 && s.Rows != 1<<log2Ceil(s.Rows) }

func (s Shape) halvings() int {
	if s.Rows == 1 {
		return 0
	}
	return log2Ceil(s.Context) - log2Ceil(s.Rows)
}

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

// PlaceholderProof sizes a proof for shape.
func PlaceholderProof(shape Shape) Proof {
	p := Proof{Siblings: make([]frontend.Variable, shape.halvings())}
	if shape.masked() {
		p.Masked = []Masked{{SumCheck: sumcheck.PlaceholderProof(log2Ceil(shape.Rows), 3)}}
	}
	return p
}

// Claims are the claims the layer leaves: on X̂ and on the padded table.
type Claims struct {
	Input, Table poly.Claim
}

// Verify checks a positional-encoding proof against one claim on the
// output and returns the claims on X̂ and on the position table.
func Verify(api frontend.API, tr *transcript.Transcript, shape Shape, proof Proof, out []poly.Claim) (Claims, error) {
	var claims Claims
	if shape.Rows < 1 || shape.Width < 1 || shape.Context < 1 || shape.Start < 0 || shape.Start+shape.Rows > shape.Context || (shape.Rows > 1 && shape.Start != 0) {
		return claims, fmt.Errorf("position: invalid shape %+v", shape)
	}
	rv := log2Ceil(shape.Rows)
	if len(out) != 1 || len(out[0].Point) != rv+log2Ceil(shape.Width) {
		return claims, fmt.Errorf("position: want one output claim of %d coordinates", rv+log2Ceil(shape.Width))
	}
	if len(proof.Siblings) != shape.halvings() || len(proof.Masked) != len(PlaceholderProof(shape).Masked) {
		return claims, fmt.Errorf("position: proof does not match shape %+v", shape)
	}
	tr.Label("position")
	r := out[0].Point
	tr.Absorb(proof.Input)
	claims.Input = poly.Claim{Point: r, Value: proof.Input}
	value := api.Sub(out[0].Value, proof.Input)
	if shape.Rows == 1 {
		n := log2Ceil(shape.Context)
		point := make([]frontend.Variable, n, n+len(r))
		for k := range n {
			point[k] = shape.Start >> (n - 1 - k) & 1
		}
		claims.Table = poly.Claim{Point: append(point, r...), Value: value}
		return claims, nil
	}
	point := append([]frontend.Variable(nil), r[:rv]...)
	if shape.masked() {
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
