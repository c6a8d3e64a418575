package pcs

import (
	"math/big"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bw6fr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
	bw6poseidon2 "github.com/consensys/gnark-crypto/ecc/bw6-761/fr/poseidon2"

	"github.com/veriformer/veriformer/transcript"
)

// DigestBits is the number of bits of a point digest kept in Fr.
const DigestBits = 250

// Digest returns the digest of a list of G1 points that the transcript
// absorbs in place of the points: with C the Poseidon2 compression of
// BW6-761 Fr (width 2, gnark-crypto's default parameters,
// C(l, r) = Perm(l, r)₁ + r, as in package transcript),
//
//	s ← K("pcs/points"); s ← C(s, m); for each point (x, y): s ← C(s, x); s ← C(s, y)
//
// where K is transcript.ConstantBig over the BW6-761 scalar field, m the
// number of points, and (x, y) the affine coordinates (the identity is
// (0, 0)), which are BLS12-377 base-field elements and hence BW6-761
// scalars. The digest is s mod 2²⁵⁰, an element of BLS12-377 Fr. The BW6-761
// aggregator computes it from the points in-circuit; the BLS12-377 segment
// circuit receives it as a public input.
func Digest(points []bls12377.G1Affine) fr.Element {
	return DigestWith("pcs/points", nil, points)
}

// DigestWith is [Digest] under the label label (in place of
// "pcs/points") with the values absorbed, in order, before the number of
// points: s ← K(label); s ← C(s, v) for each value v; then as Digest.
// Package committed digests a conversation's state with it.
func DigestWith(label string, values []uint64, points []bls12377.G1Affine) fr.Element {
	perm := bw6poseidon2.NewDefaultPermutation()
	var s bw6fr.Element
	s.SetBigInt(transcript.ConstantBig(label, bw6fr.Modulus()))
	absorb := func(x *bw6fr.Element) {
		state := [2]bw6fr.Element{s, *x}
		if err := perm.Permutation(state[:]); err != nil {
			panic(err) // width is fixed at 2: cannot happen
		}
		s.Add(&state[1], x)
	}
	var x bw6fr.Element
	for _, v := range values {
		x.SetUint64(v)
		absorb(&x)
	}
	x.SetUint64(uint64(len(points)))
	absorb(&x)
	for i := range points {
		bx := points[i].X.Bytes()
		by := points[i].Y.Bytes()
		// Base-field elements are canonical, below the BW6-761 scalar modulus.
		x.SetBytes(bx[:])
		absorb(&x)
		x.SetBytes(by[:])
		absorb(&x)
	}
	var b big.Int
	s.BigInt(&b)
	mask := new(big.Int).Lsh(big.NewInt(1), DigestBits)
	mask.Sub(mask, big.NewInt(1))
	b.And(&b, mask)
	var d fr.Element
	d.SetBigInt(&b)
	return d
}
