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

// Key is the group part's verifying key in a BW6-761 circuit: [1]₁,
// [τ]₁, [τ²]₁ and the pairing check's [1]₂, [τ]₂ + [τ²]₂, [τ³]₂ of one
// SRS (native.VerifyingKey.CheckG2). They are circuit constants (the G2
// points' Miller-loop lines are precomputed), so a circuit is tied to
// its SRS.
type Key struct {
	G1 [3]bls12377.G1Affine
	G2 [3]bls12377.G2Affine
}

// KeyOf returns the key of a native verifying key.
func KeyOf(vk *native.VerifyingKey) Key {
	return Key{G1: vk.G1, G2: vk.CheckG2()}
}

// GeneratorKey returns the key whose points are all the generators of G1
// and G2 (τ = 1): a circuit compiled with it has the shape of one
// compiled with any SRS's key, for a plan made before the SRS exists.
func GeneratorKey() Key {
	_, _, g1, g2 := bls12377.Generators()
	return Key{G1: [3]bls12377.G1Affine{g1, g1, g1}, G2: [3]bls12377.G2Affine{g2, g2, g2}}
}

// GroupOpening is the group side of one grouped opening, in a BW6-761
// circuit where BLS12-377 points are native: the commitments, the
// proof's folds and quotient, and the scalars of its pairing check, which
// the BLS12-377 circuit of the field part ([VerifyGroupFieldParts])
// outputs.
type GroupOpening struct {
	Commitments []sw_bls12377.G1Affine
	Folds       []sw_bls12377.G1Affine
	Quotient    sw_bls12377.G1Affine
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
	Quotient    [2]frontend.Variable
	Generator   [3]frontend.Variable
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
	out := GroupOpening{Quotient: sw_bls12377.NewG1Affine(p.Quotient)}
	for k := range c.Quotient {
		out.Scalars.Quotient[k] = scalarValue(&c.Quotient[k])
	}
	for k := range c.Generator {
		out.Scalars.Generator[k] = scalarValue(&c.Generator[k])
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
// native.VerifyGroup (the quotient last) and their scalars in L₀.
func (o *GroupOpening) points() ([]*sw_bls12377.G1Affine, []frontend.Variable) {
	var ps []*sw_bls12377.G1Affine
	var ss []frontend.Variable
	for i := range o.Commitments {
		ps, ss = append(ps, &o.Commitments[i]), append(ss, o.Scalars.Commitments[i])
	}
	for i := range o.Folds {
		ps, ss = append(ps, &o.Folds[i]), append(ss, o.Scalars.Folds[i])
	}
	return append(ps, &o.Quotient), append(ss, o.Scalars.Quotient[0])
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
	return PointsDigestWith(api, "pcs/points", nil, points)
}

// PointsDigestWith is native.DigestWith in a BW6-761 circuit: the chain of
// [PointsDigest] under label, the values absorbed before the number of
// points.
func PointsDigestWith(api frontend.API, label string, values []frontend.Variable, points []sw_bls12377.G1Affine) (frontend.Variable, error) {
	perm, err := poseidon2.NewPoseidon2(api)
	if err != nil {
		return nil, fmt.Errorf("pcs: poseidon2: %w", err)
	}
	var s frontend.Variable = transcript.ConstantBig(label, bw6fr.Modulus())
	for _, v := range values {
		s = perm.Compress(s, v)
	}
	s = perm.Compress(s, len(points))
	for i := range points {
		s = perm.Compress(s, points[i].X)
		s = perm.Compress(s, points[i].Y)
	}
	bits := api.ToBinary(s)
	return api.FromBinary(bits[:DigestBits]...), nil
}

// VerifyGroup completes the pairing checks of several grouped openings
// against one key at once, as native.VerifyGroup does for one: it asserts
// that every prover point is in G1, weighs the openings with 128-bit
// weights drawn from everything they contain (a Poseidon2 chain over each
// opening's points digest and scalars, so nothing is chosen after the
// weights), and asserts the one pairing equation
//
//	e(Σᵢ wᵢ·L₀ᵢ, [1]₂) · e(Σᵢ wᵢ·L₁ᵢ, [τ]₂ + [τ²]₂) · e(−Σᵢ wᵢ·Wᵢ, [τ³]₂) = 1,
//
// with L₀ᵢ and L₁ᵢ = Quotient[1]·Wᵢ of native.GroupCheck for opening i
// (L₀ᵢ's generator terms on the key's [1]₁, [τ]₁, [τ²]₁), which holds for
// honest openings and, with all but negligible probability over the
// weights, fails if any one opening's equation does.
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
		o := &openings[i]
		if len(o.Commitments) != len(o.Scalars.Commitments) || len(o.Folds) != len(o.Scalars.Folds) {
			return fmt.Errorf("pcs: verify group: opening %d: %d commitments and %d folds for %d and %d scalars", i,
				len(o.Commitments), len(o.Folds), len(o.Scalars.Commitments), len(o.Scalars.Folds))
		}
		ps, ss := o.points()
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
		for _, sc := range append(append(ss, o.Scalars.Quotient[1:]...), o.Scalars.Generator[:]...) {
			seed = perm.Compress(seed, sc)
		}
	}
	// Per opening L₀ᵢ = Σ scalar·point + Σₖ gₖᵢ·[τᵏ]₁, L₁ᵢ = Q₁ᵢ·Wᵢ and
	// Wᵢ, each weighed by wᵢ, the low 128 bits of C(seed, i) (w₀ = 1),
	// and summed over the openings.
	var powers [3]sw_bls12377.G1Affine
	for k := range powers {
		powers[k] = sw_bls12377.NewG1Affine(key.G1[k])
	}
	var sums [3]*sw_bls12377.G1Affine
	for i := range openings {
		o := &openings[i]
		ps, ss := o.points()
		var terms [3]*sw_bls12377.G1Affine
		terms[0] = new(sw_bls12377.G1Affine).ScalarMul(api, powers[0], o.Scalars.Generator[0])
		for k := 1; k < len(powers); k++ {
			terms[0].AddUnified(api, *new(sw_bls12377.G1Affine).ScalarMul(api, powers[k], o.Scalars.Generator[k]))
		}
		for k := range ps {
			terms[0].AddUnified(api, *new(sw_bls12377.G1Affine).ScalarMul(api, *ps[k], ss[k]))
		}
		terms[1] = new(sw_bls12377.G1Affine).ScalarMul(api, o.Quotient, o.Scalars.Quotient[1])
		w := o.Quotient
		terms[2] = &w
		if i > 0 {
			bits := api.ToBinary(perm.Compress(seed, i))
			weight := api.FromBinary(bits[:128]...)
			for k := range terms {
				terms[k] = new(sw_bls12377.G1Affine).ScalarMul(api, *terms[k], weight)
			}
		}
		for k := range terms {
			if i == 0 {
				sums[k] = terms[k]
			} else {
				sums[k].AddUnified(api, *terms[k])
			}
		}
	}
	sums[2].Neg(api, *sums[2])
	var qs [3]sw_bls12377.G2Affine
	ps := make([]*sw_bls12377.G1Affine, len(qs))
	qps := make([]*sw_bls12377.G2Affine, len(qs))
	for k := range qs {
		qs[k] = sw_bls12377.NewG2AffineFixed(key.G2[k])
		ps[k], qps[k] = sums[k], &qs[k]
	}
	if err := pairing.PairingCheck(ps, qps); err != nil {
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
