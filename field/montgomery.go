package field

import (
	"math/big"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// SetInt64s sets dst[i] = src[i] (a negative v is p − |v|), with direct
// calls on the concrete element type.
func SetInt64s[E Scalar](dst []E, src []int64) {
	switch v := any(dst).(type) {
	case []bn254fr.Element:
		for i, x := range src {
			v[i].SetInt64(x)
		}
	case []bls12377fr.Element:
		for i, x := range src {
			v[i].SetInt64(x)
		}
	}
}

// SetMontgomeryLimbs sets the Montgomery limbs of dst[i] to src[i]
// (p − |src[i]| for a negative entry), without the conversion to Montgomery
// form: dst[i] then holds the value src[i]·R⁻¹, R = 2²⁵⁶ for both fields,
// at no multiplication. A sum of products of such elements with field
// elements is scaled by [MontgomeryR] once at the end instead of converting
// every entry.
func SetMontgomeryLimbs[E Scalar](dst []E, src []int64) {
	switch v := any(dst).(type) {
	case []bn254fr.Element:
		for i, x := range src {
			if x >= 0 {
				v[i] = bn254fr.Element{uint64(x)}
			} else {
				v[i] = bn254fr.Element{uint64(-x)}
				v[i].Neg(&v[i])
			}
		}
	case []bls12377fr.Element:
		for i, x := range src {
			if x >= 0 {
				v[i] = bls12377fr.Element{uint64(x)}
			} else {
				v[i] = bls12377fr.Element{uint64(-x)}
				v[i].Neg(&v[i])
			}
		}
	}
}

// MontgomeryR returns the field element of value R = 2²⁵⁶ mod p, the
// scale that undoes [SetMontgomeryLimbs].
func MontgomeryR[E Scalar, P Ptr[E]]() E {
	var r E
	P(&r).SetBigInt(new(big.Int).Lsh(big.NewInt(1), 256))
	return r
}
