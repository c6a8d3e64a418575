package field

import (
	"math/big"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
)

// Scalar is the set of scalar field element types veriformer proves over:
// BN254 Fr (direct design) and BLS12-377 Fr (aggregated design).
type Scalar interface {
	bn254fr.Element | bls12377fr.Element
}

// Ptr is the method set of a pointer to a [Scalar]. Generic code takes two
// type parameters, [E Scalar, P Ptr[E]]; P is inferred from E at call sites.
//
// Methods called through P are dictionary calls: fine for per-round or
// per-claim work, not for per-element loops over large tables, which go
// through the vector kernels of this package instead.
type Ptr[E Scalar] interface {
	*E
	Set(*E) *E
	SetZero() *E
	SetOne() *E
	SetUint64(uint64) *E
	SetInt64(int64) *E
	SetBigInt(*big.Int) *E
	SetBytes([]byte) *E
	SetBytesCanonical([]byte) error
	BigInt(*big.Int) *big.Int
	Bytes() [32]byte
	Add(a, b *E) *E
	Sub(a, b *E) *E
	Mul(a, b *E) *E
	Square(*E) *E
	Double(*E) *E
	Neg(*E) *E
	Inverse(*E) *E
	Equal(*E) bool
	IsZero() bool
	IsOne() bool
	String() string
}

// Curve returns the curve whose scalar field E is.
func Curve[E Scalar]() ecc.ID {
	var z E
	switch any(z).(type) {
	case bn254fr.Element:
		return ecc.BN254
	default:
		return ecc.BLS12_377
	}
}

// Name returns a short name of the field, "bn254" or "bls12-377".
func Name[E Scalar]() string {
	if Curve[E]() == ecc.BN254 {
		return "bn254"
	}
	return "bls12-377"
}

// Modulus returns a copy of the field modulus.
func Modulus[E Scalar]() *big.Int {
	if Curve[E]() == ecc.BN254 {
		return bn254fr.Modulus()
	}
	return bls12377fr.Modulus()
}

// BigInt returns x as its canonical integer, in [0, Modulus).
func BigInt[E Scalar](x *E) *big.Int {
	return any(x).(interface{ BigInt(*big.Int) *big.Int }).BigInt(new(big.Int))
}

// Bits is the bit length of the field modulus (254 for BN254, 253 for BLS12-377).
func Bits[E Scalar]() int {
	return Modulus[E]().BitLen()
}

// FromInt64 returns v as a field element; a negative v maps to p − |v|.
func FromInt64[E Scalar, P Ptr[E]](v int64) E {
	var z E
	P(&z).SetInt64(v)
	return z
}

// FromUint64 returns v as a field element.
func FromUint64[E Scalar, P Ptr[E]](v uint64) E {
	var z E
	P(&z).SetUint64(v)
	return z
}

// One returns the multiplicative identity.
func One[E Scalar, P Ptr[E]]() E {
	var z E
	P(&z).SetOne()
	return z
}

// Random returns an element drawn from rng (uniform up to a negligible bias).
// Deterministic for a seeded rng, which is what tests and golden vectors need:
// used by the tests of packages field, poly, sumcheck, lookup and pcs, and of
// gadgets/poly and gadgets/sumcheck.
func Random[E Scalar, P Ptr[E]](rng *rand.Rand) E {
	var buf [48]byte
	for i := 0; i < len(buf); i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			buf[i+j] = byte(v >> (8 * j))
		}
	}
	var z E
	P(&z).SetBigInt(new(big.Int).SetBytes(buf[:]))
	return z
}

// RandomVector returns n elements drawn from rng ([Random]): used by the
// tests and golden vectors of the protocol packages (poly, sumcheck,
// transcript, lookup, pcs, protocol/…) and of their gadgets.
func RandomVector[E Scalar, P Ptr[E]](rng *rand.Rand, n int) []E {
	v := make([]E, n)
	for i := range v {
		v[i] = Random[E, P](rng)
	}
	return v
}
