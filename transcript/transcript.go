package transcript

import (
	"crypto/sha256"
	"math/big"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bls12377poseidon2 "github.com/consensys/gnark-crypto/ecc/bls12-377/fr/poseidon2"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bn254poseidon2 "github.com/consensys/gnark-crypto/ecc/bn254/fr/poseidon2"

	"github.com/veriformer/veriformer/field"
)

// Transcript is a Poseidon2 Fiat–Shamir transcript over the scalar field E.
// Its whole state is one field element; see the package documentation for
// the exact rules, which the in-circuit twin follows step for step.
type Transcript[E field.Scalar, P field.Ptr[E]] struct {
	compress func(left, right *E) E
	state    E
	tag      E // constant absorbed to squeeze a challenge
}

// New starts a transcript for the protocol named domain, seeded with the
// statement: the state starts at DomainConstant(domain), then the number of
// statement elements and each element are absorbed.
func New[E field.Scalar, P field.Ptr[E]](domain string, statement ...E) *Transcript[E, P] {
	t := &Transcript[E, P]{
		compress: compressor[E](),
		state:    Constant[E, P]("domain/" + domain),
		tag:      Constant[E, P]("challenge"),
	}
	var n E
	P(&n).SetUint64(uint64(len(statement)))
	t.Absorb(n)
	t.Absorb(statement...)
	return t
}

// Absorb feeds field elements into the transcript, one compression each:
// state ← Compress(state, x).
func (t *Transcript[E, P]) Absorb(xs ...E) {
	for i := range xs {
		t.state = t.compress(&t.state, &xs[i])
	}
}

// Label absorbs the constant of a label (domain separation between the
// steps of a protocol).
func (t *Transcript[E, P]) Label(label string) {
	t.Absorb(Constant[E, P]("label/" + label))
}

// Challenge squeezes one challenge: state ← Compress(state, tag) and the new
// state is the challenge. It depends on everything absorbed before.
func (t *Transcript[E, P]) Challenge() E {
	t.state = t.compress(&t.state, &t.tag)
	return t.state
}

// Challenges squeezes n challenges in sequence.
func (t *Transcript[E, P]) Challenges(n int) []E {
	out := make([]E, n)
	for i := range out {
		out[i] = t.Challenge()
	}
	return out
}

// State returns the current state: a digest of everything absorbed and
// squeezed so far (used to chain segment proofs).
func (t *Transcript[E, P]) State() E {
	return t.state
}

// Constant maps a string to a field element: SHA-256("veriformer/" + s)
// read as a big-endian integer and reduced modulo the field order. Circuits
// use the same value as a constant (ConstantBig).
func Constant[E field.Scalar, P field.Ptr[E]](s string) E {
	var z E
	P(&z).SetBigInt(ConstantBig(s, field.Modulus[E]()))
	return z
}

// ConstantBig is Constant for a field given by its modulus.
func ConstantBig(s string, modulus *big.Int) *big.Int {
	h := sha256.Sum256([]byte("veriformer/" + s))
	v := new(big.Int).SetBytes(h[:])
	return v.Mod(v, modulus)
}

// compressor returns the Poseidon2 2-to-1 compression of E's field with
// gnark-crypto's default parameters (width 2; BN254: 6 full + 50 partial
// rounds, x⁵; BLS12-377: 6 full + 26 partial rounds, x¹⁷):
// Compress(l, r) = Perm(l, r)[1] + r.
func compressor[E field.Scalar]() func(left, right *E) E {
	var z E
	switch any(z).(type) {
	case bn254fr.Element:
		perm := bn254poseidon2.NewDefaultPermutation()
		return func(left, right *E) E {
			l, r := any(left).(*bn254fr.Element), any(right).(*bn254fr.Element)
			s := [2]bn254fr.Element{*l, *r}
			if err := perm.Permutation(s[:]); err != nil {
				panic(err) // width is fixed at 2: cannot happen
			}
			s[1].Add(&s[1], r)
			var out E
			*any(&out).(*bn254fr.Element) = s[1]
			return out
		}
	default:
		perm := bls12377poseidon2.NewDefaultPermutation()
		return func(left, right *E) E {
			l, r := any(left).(*bls12377fr.Element), any(right).(*bls12377fr.Element)
			s := [2]bls12377fr.Element{*l, *r}
			if err := perm.Permutation(s[:]); err != nil {
				panic(err) // width is fixed at 2: cannot happen
			}
			s[1].Add(&s[1], r)
			var out E
			*any(&out).(*bls12377fr.Element) = s[1]
			return out
		}
	}
}
