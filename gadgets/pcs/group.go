package pcs

import (
	"fmt"
	"math/big"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	bw6fr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
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

// GroupScalars are native.GroupCheck's scalars, BLS12-377 Fr elements,
// each as one BW6-761 variable (BLS12-377 Fr is smaller than BW6-761 Fr).
// [VerifyGroup] uses them modulo r (the group's order), as scalar
// multiplications do, without checking that they are below it: a caller
// that binds them to other values (the aggregator, to a BLS12-377
// proof's public inputs) checks their canonical form there. Keeping them
// native keeps the circuit free of emulated arithmetic, whose range
// checks would give it a Pedersen commitment.
type GroupScalars struct {
	Commitments []frontend.Variable
	Folds       []frontend.Variable
	Quotients   [2]frontend.Variable
	Generator   frontend.Variable
}

// PlaceholderGroupOpening returns an opening of nbCommitments commitments
// over n variables, to size a circuit.
func PlaceholderGroupOpening(nbCommitments, n int) GroupOpening {
	return GroupOpening{
		Commitments: make([]sw_bls12377.G1Affine, nbCommitments),
		Folds:       make([]sw_bls12377.G1Affine, n-1),
		Scalars: GroupScalars{
			Commitments: make([]frontend.Variable, nbCommitments),
			Folds:       make([]frontend.Variable, n-1),
		},
	}
}

// ValueOfGroupOpening returns the assignment of an opening's points and
// the scalars of its field part.
func ValueOfGroupOpening(commitments []native.Commitment, p *native.Proof, c *native.GroupCheck) GroupOpening {
	out := GroupOpening{
		Quotients: [2]sw_bls12377.G1Affine{sw_bls12377.NewG1Affine(p.Quotients[0]), sw_bls12377.NewG1Affine(p.Quotients[1])},
		Scalars: GroupScalars{
			Quotients: [2]frontend.Variable{scalarValue(&c.Quotients[0]), scalarValue(&c.Quotients[1])},
			Generator: scalarValue(&c.Generator),
		},
	}
	for i := range commitments {
		out.Commitments = append(out.Commitments, sw_bls12377.NewG1Affine(commitments[i]))
	}
	for i := range p.Folds {
		out.Folds = append(out.Folds, sw_bls12377.NewG1Affine(p.Folds[i]))
	}
	for i := range c.Commitments {
		out.Scalars.Commitments = append(out.Scalars.Commitments, scalarValue(&c.Commitments[i]))
	}
	for i := range c.Folds {
		out.Scalars.Folds = append(out.Scalars.Folds, scalarValue(&c.Folds[i]))
	}
	return out
}

// points returns the opening's prover points in the order of
// native.VerifyGroup, and their scalars.
func (o *GroupOpening) points() ([]*sw_bls12377.G1Affine, []frontend.Variable) {
	var ps []*sw_bls12377.G1Affine
	var ss []frontend.Variable
	for i := range o.Commitments {
		ps, ss = append(ps, &o.Commitments[i]), append(ss, o.Scalars.Commitments[i])
	}
	for i := range o.Folds {
		ps, ss = append(ps, &o.Folds[i]), append(ss, o.Scalars.Folds[i])
	}
	for i := range o.Quotients {
		ps, ss = append(ps, &o.Quotients[i]), append(ss, o.Scalars.Quotients[i])
	}
	return ps, ss
}

// scalarValue is a BLS12-377 Fr element as a witness value.
func scalarValue(x *fr.Element) *big.Int {
	return x.BigInt(new(big.Int))
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
	pairing := sw_bls12377.NewPairing(api)
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
		ps, ss := openings[i].points()
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
		for _, sc := range append(ss, openings[i].Scalars.Generator) {
			seed = perm.Compress(seed, sc)
		}
	}
	// Lᵢ = Σ scalar·point + gᵢ·[1]₁ per opening; L = Σ wᵢ·Lᵢ and
	// R = Σ wᵢ·W′ᵢ, with wᵢ the low 128 bits of C(seed, i) and w₀ = 1.
	g1 := sw_bls12377.NewG1Affine(key.G1)
	var l, r *sw_bls12377.G1Affine
	for i := range openings {
		ps, ss := openings[i].points()
		li := new(sw_bls12377.G1Affine).ScalarMul(api, g1, openings[i].Scalars.Generator)
		for k := range ps {
			li.AddUnified(api, *new(sw_bls12377.G1Affine).ScalarMul(api, *ps[k], ss[k]))
		}
		ri := openings[i].Quotients[1]
		if i > 0 {
			bits := api.ToBinary(perm.Compress(seed, i))
			w := api.FromBinary(bits[:128]...)
			li = new(sw_bls12377.G1Affine).ScalarMul(api, *li, w)
			ri = *new(sw_bls12377.G1Affine).ScalarMul(api, ri, w)
		}
		if i == 0 {
			l, r = li, &ri
			continue
		}
		l.AddUnified(api, *li)
		r.AddUnified(api, ri)
	}
	r.Neg(api, *r)
	q0, q1 := sw_bls12377.NewG2AffineFixed(key.G2[0]), sw_bls12377.NewG2AffineFixed(key.G2[1])
	if err := pairing.PairingCheck([]*sw_bls12377.G1Affine{l, r}, []*sw_bls12377.G2Affine{&q0, &q1}); err != nil {
		return fmt.Errorf("pcs: verify group: %w", err)
	}
	return nil
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
