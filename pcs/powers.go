package pcs

import (
	"errors"
	"math/big"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/internal/hugepage"
	"github.com/veriformer/veriformer/internal/parallel"
)

// powerWindow is the width in bits of the windows of g1Powers' comb:
// 32 windows of 8 bits cover the 253 bits of a scalar, and the table of
// their 32·255 multiples of the generator (783 kB) stays in cache.
const powerWindow = 8

// powerBatch is the number of points g1Powers accumulates in Jacobian
// coordinates before it converts them to affine with one inversion.
const powerBatch = 1 << 12

// g1Powers returns [τ⁰]₁, [τ¹]₁, …, [τ^{n−1}]₁ for the standard generator
// [1]₁. Each point is the sum of one precomputed multiple of the
// generator per non-zero 8-bit window of τⁱ's canonical value (a
// fixed-base comb): at most 32 mixed additions a point, where a
// scalar multiplication of its own costs about 253 doublings and 32
// additions. It refuses τ = 0, whose powers would be the identity.
func g1Powers(n int, tau *fr.Element) ([]bls12377.G1Affine, error) {
	if tau.IsZero() {
		return nil, errors.New("τ is zero")
	}
	const windows = (fr.Bits + powerWindow - 1) / powerWindow
	const digits = 1<<powerWindow - 1
	_, _, g1, _ := bls12377.Generators()
	// table[j·digits + d − 1] = d·2^{8j}·[1]₁.
	jac := make([]bls12377.G1Jac, windows*digits)
	var base bls12377.G1Jac
	base.FromAffine(&g1)
	for j := range windows {
		row := jac[j*digits:][:digits]
		row[0] = base
		for d := 1; d < digits; d++ {
			row[d] = row[d-1]
			row[d].AddAssign(&base)
		}
		for range powerWindow {
			base.DoubleAssign()
		}
	}
	table := bls12377.BatchJacobianToAffineG1(jac)

	out := hugepage.Make[bls12377.G1Affine](n)
	parallel.Execute(n, powerBatch, func(start, end int) {
		var power fr.Element
		power.Exp(*tau, new(big.Int).SetUint64(uint64(start)))
		acc := make([]bls12377.G1Jac, powerBatch)
		for lo := start; lo < end; lo += powerBatch {
			batch := acc[:min(powerBatch, end-lo)]
			for k := range batch {
				batch[k] = bls12377.G1Jac{}
				bits := power.Bits()
				for j := range windows {
					if d := (bits[j*powerWindow/64] >> (j * powerWindow % 64)) & digits; d != 0 {
						batch[k].AddMixed(&table[j*digits+int(d)-1])
					}
				}
				power.Mul(&power, tau)
			}
			copy(out[lo:], bls12377.BatchJacobianToAffineG1(batch))
		}
		power.SetZero()
	})
	return out, nil
}
