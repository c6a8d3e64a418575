package pcs

import (
	"fmt"
	"math/big"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	bw6fr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/std/math/emulated"
	"github.com/consensys/gnark/std/permutation/poseidon2"

	native "github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/transcript"
)

// Key is the group part's verifying key in a BW6-761 circuit: [1]₁ and
// the [1]₂, [τ]₂ of one SRS. They are circuit constants (the G2 points'
// Miller-loop lines are precomputed), so a circuit is tied to its SRS.
type Key struct {
	G1 bls12377.G1Affine
	G2 [2]bls12377.G2Affine
}

// KeyOf returns the key of a native verifying key.
func KeyOf(vk *native.VerifyingKey) Key {
	return Key{G1: vk.G1, G2: vk.G2}
}

// GroupOpening is the group side of one batch opening, in a BW6-761
// circuit where BLS12-377 points are native: the commitments, the
// proof's folds and quotients, and the scalars of its pairing check, which
// the BLS12-377 circuit of the field part ([VerifyBatchField]) outputs.
type GroupOpening struct {
	Commitments []sw_bls12377.G1Affine
	Folds       []sw_bls12377.G1Affine
	Quotients   [2]sw_bls12377.G1Affine
	Scalars     GroupScalars
}

// GroupScalars are native.GroupCheck's scalars as BLS12-377 Fr elements
// emulated in BW6-761 (the type of a BLS12-377 proof's public inputs in
// the aggregator).
type GroupScalars struct {
	Commitments []sw_bls12377.Scalar
	Folds       []sw_bls12377.Scalar
	Quotients   [2]sw_bls12377.Scalar
	Generator   sw_bls12377.Scalar
}

// PlaceholderGroupOpening returns an opening of nbCommitments commitments
// over n variables, to size a circuit.
func PlaceholderGroupOpening(nbCommitments, n int) GroupOpening {
	return GroupOpening{
		Commitments: make([]sw_bls12377.G1Affine, nbCommitments),
		Folds:       make([]sw_bls12377.G1Affine, n-1),
		Scalars: GroupScalars{
			Commitments: make([]sw_bls12377.Scalar, nbCommitments),
			Folds:       make([]sw_bls12377.Scalar, n-1),
		},
	}
}

// ValueOfGroupOpening returns the assignment of an opening's points and
// the scalars of its field part.
func ValueOfGroupOpening(commitments []native.Commitment, p *native.Proof, c *native.GroupCheck) GroupOpening {
	out := GroupOpening{
		Quotients: [2]sw_bls12377.G1Affine{sw_bls12377.NewG1Affine(p.Quotients[0]), sw_bls12377.NewG1Affine(p.Quotients[1])},
		Scalars: GroupScalars{
			Quotients: [2]sw_bls12377.Scalar{sw_bls12377.NewScalar(c.Quotients[0]), sw_bls12377.NewScalar(c.Quotients[1])},
			Generator: sw_bls12377.NewScalar(c.Generator),
		},
	}
	for i := range commitments {
		out.Commitments = append(out.Commitments, sw_bls12377.NewG1Affine(commitments[i]))
	}
	for i := range p.Folds {
		out.Folds = append(out.Folds, sw_bls12377.NewG1Affine(p.Folds[i]))
	}
	for i := range c.Commitments {
		out.Scalars.Commitments = append(out.Scalars.Commitments, sw_bls12377.NewScalar(c.Commitments[i]))
	}
	for i := range c.Folds {
		out.Scalars.Folds = append(out.Scalars.Folds, sw_bls12377.NewScalar(c.Folds[i]))
	}
	return out
}

// points returns the opening's prover points in the order of
// native.VerifyGroup, and their scalars.
func (o *GroupOpening) points() ([]*sw_bls12377.G1Affine, []*sw_bls12377.Scalar) {
	var ps []*sw_bls12377.G1Affine
	var ss []*sw_bls12377.Scalar
	for i := range o.Commitments {
		ps, ss = append(ps, &o.Commitments[i]), append(ss, &o.Scalars.Commitments[i])
	}
	for i := range o.Folds {
		ps, ss = append(ps, &o.Folds[i]), append(ss, &o.Scalars.Folds[i])
	}
	for i := range o.Quotients {
		ps, ss = append(ps, &o.Quotients[i]), append(ss, &o.Scalars.Quotients[i])
	}
	return ps, ss
}

// DigestBits is the width of a points digest (native.DigestBits).
const DigestBits = native.DigestBits

// PointsDigest is native.Digest in a BW6-761 circuit: the Poseidon2
// compression chain over the number of points and their affine
// coordinates, reduced to its DigestBits low bits. The BLS12-377 circuits
// take these digests as public inputs in place of the points.
func PointsDigest(api frontend.API, points []sw_bls12377.G1Affine) (frontend.Variable, error) {
	perm, err := poseidon2.NewPoseidon2(api)
	if err != nil {
		return nil, fmt.Errorf("pcs: poseidon2: %w", err)
	}
	var s frontend.Variable = transcript.ConstantBig("pcs/points", bw6fr.Modulus())
	s = perm.Compress(s, len(points))
	for i := range points {
		s = perm.Compress(s, points[i].X)
		s = perm.Compress(s, points[i].Y)
	}
	bits := api.ToBinary(s)
	return api.FromBinary(bits[:DigestBits]...), nil
}

// VerifyGroup completes the pairing checks of several batch openings
// against one key at once, as native.VerifyGroup does for one: it asserts
// that every prover point is in G1, weighs the openings with 128-bit
// weights drawn from everything they contain (a Poseidon2 chain over each
// opening's points digest and scalars, so nothing is chosen after the
// weights), and asserts the one pairing equation
//
//	e(Σᵢ wᵢ·Lᵢ, [1]₂) · e(−Σᵢ wᵢ·W′ᵢ, [τ]₂) = 1,
//	Lᵢ = Σ scalar·point over opening i's points + gᵢ·[1]₁,
//
// which holds for honest openings and, with all but negligible
// probability over the weights, fails if any one opening's equation does.
func VerifyGroup(api frontend.API, key Key, openings []GroupOpening) error {
	if len(openings) == 0 {
		return fmt.Errorf("pcs: verify group: no opening")
	}
	curve, err := sw_bls12377.NewCurve(api)
	if err != nil {
		return fmt.Errorf("pcs: verify group: %w", err)
	}
	pairing := sw_bls12377.NewPairing(api)
	scalars, err := emulated.NewField[sw_bls12377.ScalarField](api)
	if err != nil {
		return fmt.Errorf("pcs: verify group: %w", err)
	}
	perm, err := poseidon2.NewPoseidon2(api)
	if err != nil {
		return fmt.Errorf("pcs: verify group: poseidon2: %w", err)
	}
	var seed frontend.Variable = transcript.ConstantBig("pcs/group", bw6fr.Modulus())
	for i := range openings {
		if len(openings[i].Commitments) != len(openings[i].Scalars.Commitments) || len(openings[i].Folds) != len(openings[i].Scalars.Folds) {
			return fmt.Errorf("pcs: verify group: opening %d: %d commitments and %d folds for %d and %d scalars", i,
				len(openings[i].Commitments), len(openings[i].Folds), len(openings[i].Scalars.Commitments), len(openings[i].Scalars.Folds))
		}
		ps, _ := openings[i].points()
		all := make([]sw_bls12377.G1Affine, len(ps))
		for k, p := range ps {
			assertInG1(api, pairing, p)
			all[k] = *p
		}
		d, err := PointsDigest(api, all)
		if err != nil {
			return err
		}
		seed = perm.Compress(seed, d)
		_, ss := openings[i].points()
		for _, sc := range append(ss, &openings[i].Scalars.Generator) {
			seed = perm.Compress(seed, packLimbs(api, sc))
		}
	}
	var points []*sw_bls12377.G1Affine
	var weighted []*sw_bls12377.Scalar
	var quotients []*sw_bls12377.G1Affine
	var qWeights []*sw_bls12377.Scalar
	generator := scalars.Zero()
	for i := range openings {
		// wᵢ: the low 128 bits of C(seed, i); w₀ = 1.
		w := scalars.One()
		if i > 0 {
			bits := api.ToBinary(perm.Compress(seed, i))
			w = scalars.FromBits(bits[:128]...)
		}
		ps, ss := openings[i].points()
		for k := range ps {
			points = append(points, ps[k])
			weighted = append(weighted, scalars.Mul(w, ss[k]))
		}
		generator = scalars.Add(generator, scalars.Mul(w, &openings[i].Scalars.Generator))
		quotients = append(quotients, &openings[i].Quotients[1])
		qWeights = append(qWeights, w)
	}
	g1 := sw_bls12377.NewG1Affine(key.G1)
	points = append(points, &g1)
	weighted = append(weighted, generator)
	l, err := curve.MultiScalarMul(points, weighted)
	if err != nil {
		return fmt.Errorf("pcs: verify group: %w", err)
	}
	r, err := curve.MultiScalarMul(quotients, qWeights)
	if err != nil {
		return fmt.Errorf("pcs: verify group: %w", err)
	}
	r = curve.Neg(r)
	q0, q1 := sw_bls12377.NewG2AffineFixed(key.G2[0]), sw_bls12377.NewG2AffineFixed(key.G2[1])
	if err := pairing.PairingCheck([]*sw_bls12377.G1Affine{l, r}, []*sw_bls12377.G2Affine{&q0, &q1}); err != nil {
		return fmt.Errorf("pcs: verify group: %w", err)
	}
	return nil
}

// packLimbs returns Σⱼ limbⱼ·2^(64j) of an emulated scalar: its limbs (of
// 64 bits, four for BLS12-377 Fr) as one BW6-761 element, injective on
// range-checked limbs, so that hashing it binds the scalar as the
// multiplications use it.
func packLimbs(api frontend.API, s *sw_bls12377.Scalar) frontend.Variable {
	var res frontend.Variable = 0
	for j := len(s.Limbs) - 1; j >= 0; j-- {
		res = api.Add(api.Mul(res, new(big.Int).Lsh(big.NewInt(1), 64)), s.Limbs[j])
	}
	return res
}

// assertInG1 asserts that p is in G1, the identity (0, 0) included (the
// commitment to an all-zero table, such as a limb row no block uses):
// the subgroup check runs on the generator in its place, since gnark's
// fails on the identity.
func assertInG1(api frontend.API, pairing *sw_bls12377.Pairing, p *sw_bls12377.G1Affine) {
	_, _, g, _ := bls12377.Generators()
	gen := sw_bls12377.NewG1Affine(g)
	identity := api.And(api.IsZero(p.X), api.IsZero(p.Y))
	q := sw_bls12377.G1Affine{X: api.Select(identity, gen.X, p.X), Y: api.Select(identity, gen.Y, p.Y)}
	pairing.AssertIsOnG1(&q)
}
