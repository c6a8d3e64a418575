package recursion

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/native/sw_bls12377"
	"github.com/consensys/gnark/std/commitments/pedersen"
	"github.com/consensys/gnark/std/hash/poseidon2"
	"github.com/consensys/gnark/std/math/bits"
	"github.com/consensys/gnark/std/math/emulated"
	stdgroth16 "github.com/consensys/gnark/std/recursion/groth16"

	"github.com/veriformer/veriformer/transcript"
)

// SegmentPublicInputs is the number of public inputs of a segment circuit:
// ModelID, InputDigest, OutputDigest, ChainIn, ChainOut, in this order.
// Every segment has all five, each in a constraint (those its computation
// does not use, such as a middle segment's statement values, are bound on
// their own), and the aggregator verifies every segment on its own
// statement values: see docs/recursion.md, "Segment contract".
const SegmentPublicInputs = 5

// MaxArity bounds the number of segments one aggregator verifies; it keeps
// the sizes taken from untrusted inputs small.
const MaxArity = 1 << 10

// scalarBitsBLS12377 is the bit length of r(BLS12-377).
const scalarBitsBLS12377 = 253

// SegmentShape is what the aggregator must know of the segment circuits at
// compile time besides their number: how many Pedersen commitments (gnark's
// api.Commit, used by range checks and lookups) their Groth16 proofs carry,
// 0 or 1, none of which may commit to a public input. One aggregator setup
// serves every model whose segments have this shape.
type SegmentShape struct {
	NbCommitments int
}

// SegmentShapeOf returns the shape of a compiled BLS12-377 segment circuit and
// checks that it follows the segment contract.
func SegmentShapeOf(ccs constraint.ConstraintSystem) (SegmentShape, error) {
	if ccs.Field().Cmp(ecc.BLS12_377.ScalarField()) != 0 {
		return SegmentShape{}, errors.New("recursion: segment circuit is not over BLS12-377 Fr")
	}
	if n := ccs.GetNbPublicVariables() - 1; n != SegmentPublicInputs {
		return SegmentShape{}, fmt.Errorf("recursion: segment circuit has %d public inputs, want %d", n, SegmentPublicInputs)
	}
	commitments, ok := ccs.GetCommitments().(constraint.Groth16Commitments)
	if !ok {
		return SegmentShape{}, fmt.Errorf("recursion: segment circuit is not a Groth16 (R1CS) constraint system")
	}
	committed := commitments.GetPublicAndCommitmentCommitted(commitments.CommitmentIndexes(), ccs.GetNbPublicVariables())
	shape := SegmentShape{NbCommitments: len(commitments)}
	if err := shape.check(committed); err != nil {
		return SegmentShape{}, err
	}
	return shape, nil
}

func (s SegmentShape) check(publicCommitted [][]int) error {
	if s.NbCommitments < 0 || s.NbCommitments > 1 {
		return fmt.Errorf("recursion: segment circuits must have 0 or 1 commitments, have %d", s.NbCommitments)
	}
	if len(publicCommitted) != s.NbCommitments {
		return fmt.Errorf("recursion: %d committed-public lists for %d commitments", len(publicCommitted), s.NbCommitments)
	}
	for i := range publicCommitted {
		if len(publicCommitted[i]) != 0 {
			return fmt.Errorf("recursion: segment commitment %d commits to public inputs", i)
		}
	}
	return nil
}

// segmentShapeOfKey returns the shape a BLS12-377 segment verifying key
// belongs to.
func segmentShapeOfKey(key groth16.VerifyingKey) (SegmentShape, error) {
	shape, err := keyShape(key)
	if err != nil {
		return SegmentShape{}, err
	}
	if want := 1 + SegmentPublicInputs + shape.NbCommitments; len(key.(*groth16bls12377.VerifyingKey).G1.K) != want {
		return SegmentShape{}, fmt.Errorf("key has %d K points, want %d (%d public inputs)", len(key.(*groth16bls12377.VerifyingKey).G1.K), want, SegmentPublicInputs)
	}
	return shape, nil
}

// keyShape returns the Pedersen commitments of a BLS12-377 segment key
// (0 or 1, none on a public input), whatever its number of public inputs
// (a committed segment's is its own).
func keyShape(key groth16.VerifyingKey) (SegmentShape, error) {
	vk, ok := key.(*groth16bls12377.VerifyingKey)
	if !ok {
		return SegmentShape{}, fmt.Errorf("key is %T, not a BLS12-377 key", key)
	}
	shape := SegmentShape{NbCommitments: len(vk.CommitmentKeys)}
	if err := shape.check(vk.PublicAndCommitmentCommitted); err != nil {
		return SegmentShape{}, err
	}
	return shape, nil
}

// SegmentProof is one segment's Groth16 proof with its verifying key, as
// witnesses of the aggregator.
type SegmentProof struct {
	Proof stdgroth16.Proof[sw_bls12377.G1Affine, sw_bls12377.G2Affine]
	Key   stdgroth16.VerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]
}

// Aggregator is the BW6-761 circuit that verifies k BLS12-377 segment proofs
// natively and derives the statement; see the package documentation.
//
// Public inputs, in order: ModelID, InputDigest, OutputDigest.
type Aggregator struct {
	ModelID      frontend.Variable `gnark:",public"`
	InputDigest  frontend.Variable `gnark:",public"`
	OutputDigest frontend.Variable `gnark:",public"`

	// GraphDigest is the layer-graph digest hashed into the model id.
	GraphDigest frontend.Variable
	// Chain holds the k+1 chaining values: segment i proves
	// ChainIn = Chain[i] and ChainOut = Chain[i+1].
	Chain    []frontend.Variable
	Segments []SegmentProof
}

// NewAggregator returns the placeholder of the aggregator of arity k for
// segments of the given shape, to compile.
func NewAggregator(k int, shape SegmentShape) (*Aggregator, error) {
	if k < 1 || k > MaxArity {
		return nil, fmt.Errorf("recursion: aggregator arity %d outside [1, %d]", k, MaxArity)
	}
	if err := shape.check(make([][]int, shape.NbCommitments)); err != nil {
		return nil, err
	}
	c := &Aggregator{
		Chain:    make([]frontend.Variable, k+1),
		Segments: make([]SegmentProof, k),
	}
	for i := range c.Segments {
		c.Segments[i] = SegmentProof{
			Proof: stdgroth16.Proof[sw_bls12377.G1Affine, sw_bls12377.G2Affine]{
				Commitments: make([]pedersen.Commitment[sw_bls12377.G1Affine], shape.NbCommitments),
			},
			Key: stdgroth16.VerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]{
				G1:                           struct{ K []sw_bls12377.G1Affine }{K: make([]sw_bls12377.G1Affine, 1+SegmentPublicInputs+shape.NbCommitments)},
				CommitmentKeys:               make([]pedersen.VerifyingKey[sw_bls12377.G2Affine], shape.NbCommitments),
				PublicAndCommitmentCommitted: make([][]int, shape.NbCommitments),
			},
		}
	}
	return c, nil
}

// Define implements frontend.Circuit.
func (c *Aggregator) Define(api frontend.API) error {
	k := len(c.Segments)
	if k == 0 {
		return errors.New("recursion: aggregator without segments")
	}
	if len(c.Chain) != k+1 {
		return fmt.Errorf("recursion: aggregator has %d chaining values for %d segments, want %d", len(c.Chain), k, k+1)
	}
	nbCommitments := len(c.Segments[0].Key.CommitmentKeys)
	for i := range c.Segments {
		if len(c.Segments[i].Key.CommitmentKeys) != nbCommitments {
			return fmt.Errorf("recursion: segment %d has %d commitment keys, segment 0 has %d", i, len(c.Segments[i].Key.CommitmentKeys), nbCommitments)
		}
		if len(c.Segments[i].Key.G1.K) != 1+SegmentPublicInputs+nbCommitments {
			return fmt.Errorf("recursion: segment %d key has %d K points, want %d", i, len(c.Segments[i].Key.G1.K), 1+SegmentPublicInputs+nbCommitments)
		}
	}
	scalars, verifier, err := newSegmentVerifier(api)
	if err != nil {
		return err
	}

	// The model id: hash of every segment key and the graph digest.
	hasher, err := poseidon2.New(api)
	if err != nil {
		return fmt.Errorf("recursion: poseidon2: %w", err)
	}
	hasher.Write(transcript.ConstantBig(modelIDLabel, ecc.BW6_761.ScalarField()), k, nbCommitments)
	for i := range c.Segments {
		hasher.Write(segmentKeyVariables(&c.Segments[i].Key)...)
	}
	hasher.Write(c.GraphDigest)
	idBits := bits.ToBinary(api, hasher.Sum())[:ModelIDBits]
	api.AssertIsEqual(c.ModelID, bits.FromBinary(api, idBits))

	// The statement and chaining values as BLS12-377 scalars (same integers).
	modelID := scalarFromBits(scalars, idBits)
	inputDigest := scalarFromBits(scalars, canonicalBLS12377Bits(api, c.InputDigest))
	outputDigest := scalarFromBits(scalars, canonicalBLS12377Bits(api, c.OutputDigest))
	chain := make([]emulated.Element[sw_bls12377.ScalarField], k+1)
	for j := range chain {
		chain[j] = scalarFromBits(scalars, bits.ToBinary(api, c.Chain[j], bits.WithNbDigits(scalarBitsBLS12377)))
	}

	for i := range c.Segments {
		public := stdgroth16.Witness[sw_bls12377.ScalarField]{
			Public: []emulated.Element[sw_bls12377.ScalarField]{modelID, inputDigest, outputDigest, chain[i], chain[i+1]},
		}
		if err := verifier.AssertProof(c.Segments[i].Key, c.Segments[i].Proof, public, stdgroth16.WithSubgroupCheck()); err != nil {
			return fmt.Errorf("recursion: verify segment %d: %w", i, err)
		}
	}
	return nil
}

// segmentVerifier is gnark's in-circuit Groth16 verifier of BLS12-377
// proofs in a BW6-761 circuit.
type segmentVerifier = stdgroth16.Verifier[sw_bls12377.ScalarField, sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]

// newSegmentVerifier returns the emulated BLS12-377 scalar field (the
// segments' public inputs) and the verifier of segment proofs.
func newSegmentVerifier(api frontend.API) (*emulated.Field[sw_bls12377.ScalarField], *segmentVerifier, error) {
	scalars, err := emulated.NewField[sw_bls12377.ScalarField](api)
	if err != nil {
		return nil, nil, fmt.Errorf("recursion: scalar field: %w", err)
	}
	verifier, err := stdgroth16.NewVerifier[sw_bls12377.ScalarField, sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT](api)
	if err != nil {
		return nil, nil, fmt.Errorf("recursion: segment verifier: %w", err)
	}
	return scalars, verifier, nil
}

// segmentKeyVariables lists a segment key's coordinates in the order of
// [ModelID].
func segmentKeyVariables(vk *stdgroth16.VerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT]) []frontend.Variable {
	var out []frontend.Variable
	e := &vk.E
	out = append(out,
		e.C0.B0.A0, e.C0.B0.A1, e.C0.B1.A0, e.C0.B1.A1, e.C0.B2.A0, e.C0.B2.A1,
		e.C1.B0.A0, e.C1.B0.A1, e.C1.B1.A0, e.C1.B1.A1, e.C1.B2.A0, e.C1.B2.A1)
	for _, p := range vk.G1.K {
		out = append(out, p.X, p.Y)
	}
	g2 := func(p *sw_bls12377.G2Affine) {
		out = append(out, p.P.X.A0, p.P.X.A1, p.P.Y.A0, p.P.Y.A1)
	}
	g2(&vk.G2.GammaNeg)
	g2(&vk.G2.DeltaNeg)
	for i := range vk.CommitmentKeys {
		g2(&vk.CommitmentKeys[i].G)
		g2(&vk.CommitmentKeys[i].GSigmaNeg)
	}
	return out
}

// canonicalBLS12377Bits decomposes v into 253 bits and asserts v < r(BLS12-377),
// so that v is a canonical BLS12-377 scalar.
func canonicalBLS12377Bits(api frontend.API, v frontend.Variable) []frontend.Variable {
	b := bits.ToBinary(api, v, bits.WithNbDigits(scalarBitsBLS12377))
	assertBitsAtMost(api, b, new(big.Int).Sub(ecc.BLS12_377.ScalarField(), big.NewInt(1)))
	return b
}

// assertBitsAtMost asserts that the little-endian bits b encode an integer
// ≤ bound. Scanning from the most significant bit, eq stays 1 while the
// prefix of b equals the prefix of bound; where bound has a 0 and the prefixes
// are equal, b must have a 0 too.
func assertBitsAtMost(api frontend.API, b []frontend.Variable, bound *big.Int) {
	var eq frontend.Variable = 1
	for i := len(b) - 1; i >= 0; i-- {
		if bound.Bit(i) == 1 {
			eq = api.Mul(eq, b[i])
		} else {
			api.AssertIsEqual(api.Mul(eq, b[i]), 0)
		}
	}
}

// scalarFromBits builds an emulated BLS12-377 scalar from little-endian bits,
// padded to the scalar field's bit length so the element has all its limbs.
func scalarFromBits(f *emulated.Field[sw_bls12377.ScalarField], b []frontend.Variable) emulated.Element[sw_bls12377.ScalarField] {
	padded := make([]frontend.Variable, scalarBitsBLS12377)
	for i := range padded {
		if i < len(b) {
			padded[i] = b[i]
		} else {
			padded[i] = 0
		}
	}
	return *f.FromBits(padded...)
}

// ValueOfSegmentProof returns the aggregator witness of one segment proof and
// its verifying key.
func ValueOfSegmentProof(proof groth16.Proof, key groth16.VerifyingKey) (SegmentProof, error) {
	if _, err := segmentShapeOfKey(key); err != nil {
		return SegmentProof{}, fmt.Errorf("recursion: segment key: %w", err)
	}
	p, err := stdgroth16.ValueOfProof[sw_bls12377.G1Affine, sw_bls12377.G2Affine](proof)
	if err != nil {
		return SegmentProof{}, fmt.Errorf("recursion: segment proof: %w", err)
	}
	vk, err := stdgroth16.ValueOfVerifyingKey[sw_bls12377.G1Affine, sw_bls12377.G2Affine, sw_bls12377.GT](key)
	if err != nil {
		return SegmentProof{}, fmt.Errorf("recursion: segment key: %w", err)
	}
	return SegmentProof{Proof: p, Key: vk}, nil
}

// SegmentProverOption is the option a segment prover must pass to
// groth16.Prove so that the commitment challenge of its proof (if any) is
// derived the way the aggregator recomputes it.
func SegmentProverOption() backend.ProverOption {
	return stdgroth16.GetNativeProverOptions(ecc.BW6_761.ScalarField(), ecc.BLS12_377.ScalarField())
}

// SegmentVerifierOption is the matching option of groth16.Verify.
func SegmentVerifierOption() backend.VerifierOption {
	return stdgroth16.GetNativeVerifierOptions(ecc.BW6_761.ScalarField(), ecc.BLS12_377.ScalarField())
}
