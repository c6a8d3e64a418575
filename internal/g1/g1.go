// Package g1 holds test helpers on BLS12-377's G1 shared by the native
// and in-circuit verifiers' tests (not on the product path: tests only).
package g1

import (
	"errors"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fp"
)

// OutsideSubgroup returns a point of the curve y² = x³ + 1 that is not in
// G1: the smallest x ≥ 2 that gives one.
func OutsideSubgroup() (bls12377.G1Affine, error) {
	var one fp.Element
	one.SetOne()
	for x := uint64(2); x < 1000; x++ {
		var p bls12377.G1Affine
		var y2 fp.Element
		p.X.SetUint64(x)
		y2.Square(&p.X).Mul(&y2, &p.X).Add(&y2, &one)
		if p.Y.Sqrt(&y2) == nil {
			continue
		}
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p, nil
		}
	}
	return bls12377.G1Affine{}, errors.New("g1: no point outside G1 below x = 1000")
}
