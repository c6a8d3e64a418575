package pcs

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/test"

	"github.com/veriformer/veriformer/field"
	native "github.com/veriformer/veriformer/pcs"
)

// digestWithCircuit asserts PointsDigestWith of its points and values.
type digestWithCircuit struct {
	Values []frontend.Variable
	Points []sw_bls12377.G1Affine
	Digest frontend.Variable `gnark:",public"`
}

func (c *digestWithCircuit) Define(api frontend.API) error {
	d, err := PointsDigestWith(api, "committed/state", c.Values, c.Points)
	if err != nil {
		return err
	}
	api.AssertIsEqual(d, c.Digest)
	return nil
}

// TestPointsDigestWith: the in-circuit digest of values and points (the
// identity among them) is native DigestWith's; another value, another
// point or another label's digest is refused.
func TestPointsDigestWith(t *testing.T) {
	_, _, g, _ := bls12377.Generators()
	var twice bls12377.G1Affine
	twice.Double(&g)
	points := []bls12377.G1Affine{g, {}, twice}
	values := []uint64{6, 16}
	assignment := func(values []uint64, points []bls12377.G1Affine, d fr.Element) *digestWithCircuit {
		c := &digestWithCircuit{Digest: field.BigInt(&d)}
		for _, v := range values {
			c.Values = append(c.Values, v)
		}
		for _, p := range points {
			c.Points = append(c.Points, sw_bls12377.NewG1Affine(p))
		}
		return c
	}
	placeholder := &digestWithCircuit{Values: make([]frontend.Variable, 2), Points: make([]sw_bls12377.G1Affine, 3)}
	want := native.DigestWith("committed/state", values, points)
	if err := test.IsSolved(placeholder, assignment(values, points, want), ecc.BW6_761.ScalarField()); err != nil {
		t.Fatal(err)
	}
	if native.DigestWith("pcs/points", nil, points) != native.Digest(points) {
		t.Fatal("Digest is not DigestWith under pcs/points")
	}
	for name, d := range map[string]fr.Element{
		"another value": native.DigestWith("committed/state", []uint64{7, 16}, points),
		"another point": native.DigestWith("committed/state", values, []bls12377.G1Affine{twice, {}, g}),
		"another label": native.DigestWith("pcs/points", values, points),
		"no values":     native.DigestWith("committed/state", nil, points),
	} {
		if test.IsSolved(placeholder, assignment(values, points, d), ecc.BW6_761.ScalarField()) == nil {
			t.Errorf("%s: the circuit accepts its digest", name)
		}
	}
}
