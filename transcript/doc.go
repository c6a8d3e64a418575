// Package transcript is veriformer's Fiat–Shamir transcript: a Poseidon2
// sponge in Merkle–Damgård form over the proof's scalar field (BN254 or
// BLS12-377), whose in-circuit twin (gadgets/transcript) derives the same
// challenges from the same absorbed field elements.
//
// # Construction
//
// The state is one field element s. With Perm the width-2 Poseidon2
// permutation of gnark-crypto's default parameters for the field (BN254:
// x⁵, 6 full + 50 partial rounds; BLS12-377: x¹⁷, 6 full + 26 partial), the
// compression is
//
//	C(l, r) = Perm(l, r)₁ + r
//
// and
//
//	New(domain, z₁…z_m):  s ← K("domain/"+domain); Absorb(m); Absorb(z₁…z_m)
//	Absorb(x):            s ← C(s, x)
//	Label(name):          Absorb(K("label/"+name))
//	Challenge():          s ← C(s, K("challenge")); return s
//
// where K(t) = SHA-256("veriformer/"+t) mod p is a constant (free in a
// circuit). Every challenge is a function of the domain, the statement and
// every element absorbed or squeezed before it, in order. Nothing is
// encoded as bytes: field elements go in as they are.
//
// # Opened tensors
//
// [Transcript.AbsorbPacked] binds a tensor of integers in [lo, hi]: the
// count, then the values shifted to v − lo and packed ⌊(bits(p)−1)/b⌋ per
// field element (b = bitlen(hi − lo)), little end first. The circuit
// range-checks every shifted value below 2ᵇ, which makes the packing
// injective, so the digest binds the tensor. The window [lo, lo + 2ᵇ) may
// exceed [lo, hi]; where the exact range matters, the caller checks it
// (natively package inference, in a circuit gadgets/transcript's
// AbsorbPackedExact).
//
// # Statement
//
// The caller seeds the transcript with the statement of the proof (model
// id, input digest, output digest, shapes) so that a proof for one
// statement does not verify for another.
//
// # Cost
//
// One absorb or challenge is one permutation: 186 R1CS constraints on BN254
// and 190 on BLS12-377 (checked by the gadget's tests).
//
// # Golden vectors
//
// testdata/vectors.json holds, for both fields, a statement, absorbed
// elements and the challenges that follow ([Vector], [ReadVectors]); the
// native tests replay it and the circuit's (gadgets/transcript) derive the
// same challenges in circuit. Regenerate with go test ./transcript -update.
package transcript
