package poly

import (
	"math/big"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/field"
	"github.com/veriformer/veriformer/internal/parallel"
)

// FoldColumns returns t[v] = Σ_c eq[c]·M[v, c] for the rows × cols integer
// matrix M (row-major), zero up to the next power of two of rows: with eq
// the eq table of a column point, the MLE of M with its column coordinates
// bound. rows·cols multiplications, rows spread over cores, without
// materialising the padded field table.
//
// The integers enter the inner products without their conversion to
// Montgomery form (one multiplication each): the limbs of m (or of p − |m|)
// are read as the Montgomery form of m·R⁻¹, so scaling eq by R once makes
// each product m·eq[c] exact.
func FoldColumns[E field.Scalar, P field.Ptr[E]](m []int64, rows, cols int, eq []E) []E {
	var r E
	P(&r).SetBigInt(new(big.Int).Lsh(big.NewInt(1), 256))
	scaled := make([]E, cols)
	field.ScalarMul(scaled, eq[:cols], &r)
	out := make([]E, NextPowerOfTwo(rows))
	parallel.Execute(rows, 256, func(start, end int) {
		buf := make([]E, cols)
		for v := start; v < end; v++ {
			setMontgomeryLimbs(buf, m[v*cols:(v+1)*cols])
			out[v] = field.InnerProduct(buf, scaled)
		}
	})
	return out
}

// setMontgomeryLimbs sets the limbs of dst[i] to src[i] (p − |src[i]| when
// negative), so that dst[i] stands for src[i]·R⁻¹.
func setMontgomeryLimbs[E field.Scalar](dst []E, src []int64) {
	switch d := any(dst).(type) {
	case []bn254fr.Element:
		for i, x := range src {
			if x >= 0 {
				d[i] = bn254fr.Element{uint64(x)}
			} else {
				d[i] = bn254fr.Element{uint64(-x)}
				d[i].Neg(&d[i])
			}
		}
	case []bls12377fr.Element:
		for i, x := range src {
			if x >= 0 {
				d[i] = bls12377fr.Element{uint64(x)}
			} else {
				d[i] = bls12377fr.Element{uint64(-x)}
				d[i].Neg(&d[i])
			}
		}
	}
}
