package recursion

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend"
	"github.com/consensys/gnark/backend/groth16"
	groth16bw6761 "github.com/consensys/gnark/backend/groth16/bw6-761"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/algebra/emulated/sw_bw6761"
	"github.com/consensys/gnark/std/commitments/pedersen"
	"github.com/consensys/gnark/std/hash/poseidon2"
	"github.com/consensys/gnark/std/math/bits"
	"github.com/consensys/gnark/std/math/emulated"
	stdgroth16 "github.com/consensys/gnark/std/recursion/groth16"

	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	"github.com/veriformer/veriformer/transcript"
)

// AggregatorPublicInputs is the number of public inputs of the aggregator
// (and of the wrapper): ModelID, InputDigest, OutputDigest.
const AggregatorPublicInputs = 3

// scalarBitsBN254 is the bit length of r(BN254).
const scalarBitsBN254 = 254

// Wrapper is the BN254 circuit that verifies one aggregator proof by
// emulating BW6-761 arithmetic; see the package documentation.
//
// Its one public input is StatementDigest, the statement digest
// (statement.Digest, SHA-256 in circuit) of the final statement: ModelID
// (the final id, [FinalModelID]), InputDigest and OutputDigest, which are
// private. The contract recomputes the digest from the three values.
type Wrapper struct {
	StatementDigest frontend.Variable `gnark:",public"`
	ModelID         frontend.Variable
	InputDigest     frontend.Variable
	OutputDigest    frontend.Variable

	// InnerModelID is the aggregator's public model id ([ModelID]).
	InnerModelID frontend.Variable
	Proof        stdgroth16.Proof[sw_bw6761.G1Affine, sw_bw6761.G2Affine]
	Key          stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl]
}

// NewWrapper returns the placeholder of the wrapper for aggregators whose
// proofs carry nbCommitments Pedersen commitments (0 or 1,
// [AggregatorCommitments]), to compile. Every aggregator this package
// compiles has 3 public inputs and no commitment, so one wrapper serves every
// arity.
func NewWrapper(nbCommitments int) (*Wrapper, error) {
	if nbCommitments < 0 || nbCommitments > 1 {
		return nil, fmt.Errorf("recursion: wrapper for %d aggregator commitments, want 0 or 1", nbCommitments)
	}
	committed := make([][]int, nbCommitments)
	for i := range committed {
		committed[i] = []int{}
	}
	return &Wrapper{
		Proof: stdgroth16.Proof[sw_bw6761.G1Affine, sw_bw6761.G2Affine]{
			Commitments: make([]pedersen.Commitment[sw_bw6761.G1Affine], nbCommitments),
		},
		Key: stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl]{
			G1:                           struct{ K []sw_bw6761.G1Affine }{K: make([]sw_bw6761.G1Affine, 1+AggregatorPublicInputs+nbCommitments)},
			CommitmentKeys:               make([]pedersen.VerifyingKey[sw_bw6761.G2Affine], nbCommitments),
			PublicAndCommitmentCommitted: committed,
		},
	}, nil
}

// Define implements frontend.Circuit.
func (c *Wrapper) Define(api frontend.API) error {
	nbCommitments := len(c.Key.CommitmentKeys)
	if len(c.Key.G1.K) != 1+AggregatorPublicInputs+nbCommitments {
		return fmt.Errorf("recursion: aggregator key has %d K points, want %d", len(c.Key.G1.K), 1+AggregatorPublicInputs+nbCommitments)
	}
	scalars, err := emulated.NewField[sw_bw6761.ScalarField](api)
	if err != nil {
		return fmt.Errorf("recursion: scalar field: %w", err)
	}
	verifier, err := stdgroth16.NewVerifier[sw_bw6761.ScalarField, sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl](api)
	if err != nil {
		return fmt.Errorf("recursion: aggregator verifier: %w", err)
	}

	// The final id binds the aggregator key and the inner id.
	hasher, err := poseidon2.New(api)
	if err != nil {
		return fmt.Errorf("recursion: poseidon2: %w", err)
	}
	keyLimbs, err := aggregatorKeyVariables(&c.Key)
	if err != nil {
		return err
	}
	hasher.Write(transcript.ConstantBig(finalModelIDLabel, ecc.BN254.ScalarField()), nbCommitments)
	hasher.Write(keyLimbs...)
	hasher.Write(c.InnerModelID)
	idBits := bits.ToBinary(api, hasher.Sum())[:ModelIDBits]
	api.AssertIsEqual(c.ModelID, bits.FromBinary(api, idBits))

	// The aggregator's public inputs, as BW6-761 scalars (same integers).
	// The aggregator itself checks the digests are canonical BLS12-377
	// scalars and the inner id has 250 bits.
	public := stdgroth16.Witness[sw_bw6761.ScalarField]{
		Public: []emulated.Element[sw_bw6761.ScalarField]{
			bw6ScalarFromBits(scalars, bits.ToBinary(api, c.InnerModelID, bits.WithNbDigits(ModelIDBits))),
			bw6ScalarFromBits(scalars, bits.ToBinary(api, c.InputDigest, bits.WithNbDigits(scalarBitsBN254))),
			bw6ScalarFromBits(scalars, bits.ToBinary(api, c.OutputDigest, bits.WithNbDigits(scalarBitsBN254))),
		},
	}
	if err := verifier.AssertProof(c.Key, c.Proof, public, stdgroth16.WithSubgroupCheck()); err != nil {
		return fmt.Errorf("recursion: verify aggregator proof: %w", err)
	}

	// The one public input: the digest of the final statement.
	digest, err := gstatement.Digest(api, c.ModelID, c.InputDigest, c.OutputDigest)
	if err != nil {
		return fmt.Errorf("recursion: %w", err)
	}
	api.AssertIsEqual(c.StatementDigest, digest)
	return nil
}

// aggregatorKeyVariables lists the 64-bit limbs of the aggregator key's
// coordinates in the order of [FinalModelID].
func aggregatorKeyVariables(vk *stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl]) ([]frontend.Variable, error) {
	coordinates := []*emulated.Element[sw_bw6761.BaseField]{
		&vk.E.A0, &vk.E.A1, &vk.E.A2, &vk.E.A3, &vk.E.A4, &vk.E.A5,
	}
	for i := range vk.G1.K {
		coordinates = append(coordinates, &vk.G1.K[i].X, &vk.G1.K[i].Y)
	}
	g2 := func(p *sw_bw6761.G2Affine) {
		coordinates = append(coordinates, &p.P.X, &p.P.Y)
	}
	g2(&vk.G2.GammaNeg)
	g2(&vk.G2.DeltaNeg)
	for i := range vk.CommitmentKeys {
		g2(&vk.CommitmentKeys[i].G)
		g2(&vk.CommitmentKeys[i].GSigmaNeg)
	}
	var out []frontend.Variable
	for i, c := range coordinates {
		if len(c.Limbs) != baseLimbs {
			return nil, fmt.Errorf("recursion: aggregator key coordinate %d has %d limbs, want %d", i, len(c.Limbs), baseLimbs)
		}
		out = append(out, c.Limbs...)
	}
	return out, nil
}

// bw6ScalarFromBits builds an emulated BW6-761 scalar from little-endian bits,
// padded to the scalar field's bit length so the element has all its limbs.
func bw6ScalarFromBits(f *emulated.Field[sw_bw6761.ScalarField], b []frontend.Variable) emulated.Element[sw_bw6761.ScalarField] {
	padded := make([]frontend.Variable, ecc.BW6_761.ScalarField().BitLen())
	for i := range padded {
		if i < len(b) {
			padded[i] = b[i]
		} else {
			padded[i] = 0
		}
	}
	return *f.FromBits(padded...)
}

// checkAggregatorKey checks that a BW6-761 key has the aggregator's public
// input layout.
func checkAggregatorKey(vk *groth16bw6761.VerifyingKey) error {
	nbCommitments := len(vk.CommitmentKeys)
	if nbCommitments > 1 {
		return fmt.Errorf("aggregator key has %d commitments, want 0 or 1", nbCommitments)
	}
	if len(vk.PublicAndCommitmentCommitted) != nbCommitments {
		return fmt.Errorf("aggregator key has %d committed-public lists for %d commitments", len(vk.PublicAndCommitmentCommitted), nbCommitments)
	}
	for i := range vk.PublicAndCommitmentCommitted {
		if len(vk.PublicAndCommitmentCommitted[i]) != 0 {
			return fmt.Errorf("aggregator commitment %d commits to public inputs", i)
		}
	}
	if want := 1 + AggregatorPublicInputs + nbCommitments; len(vk.G1.K) != want {
		return fmt.Errorf("aggregator key has %d K points, want %d", len(vk.G1.K), want)
	}
	return nil
}

// ValueOfAggregatorProof returns the wrapper witnesses of an aggregator proof
// and its verifying key.
func ValueOfAggregatorProof(proof groth16.Proof, key groth16.VerifyingKey) (stdgroth16.Proof[sw_bw6761.G1Affine, sw_bw6761.G2Affine], stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl], error) {
	var (
		p  stdgroth16.Proof[sw_bw6761.G1Affine, sw_bw6761.G2Affine]
		vk stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl]
	)
	tvk, ok := key.(*groth16bw6761.VerifyingKey)
	if !ok {
		return p, vk, fmt.Errorf("recursion: aggregator key is %T, not a BW6-761 key", key)
	}
	if err := checkAggregatorKey(tvk); err != nil {
		return p, vk, fmt.Errorf("recursion: %w", err)
	}
	p, err := stdgroth16.ValueOfProof[sw_bw6761.G1Affine, sw_bw6761.G2Affine](proof)
	if err != nil {
		return p, vk, fmt.Errorf("recursion: aggregator proof: %w", err)
	}
	vk, err = stdgroth16.ValueOfVerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl](key)
	if err != nil {
		return p, vk, fmt.Errorf("recursion: aggregator key: %w", err)
	}
	return p, vk, nil
}

// AggregatorProverOption is the option the aggregator prover passes to
// groth16.Prove so that the commitment challenge of its proof (if any) is
// derived the way the wrapper recomputes it.
func AggregatorProverOption() backend.ProverOption {
	return stdgroth16.GetNativeProverOptions(ecc.BN254.ScalarField(), ecc.BW6_761.ScalarField())
}

// AggregatorVerifierOption is the matching option of groth16.Verify.
func AggregatorVerifierOption() backend.VerifierOption {
	return stdgroth16.GetNativeVerifierOptions(ecc.BN254.ScalarField(), ecc.BW6_761.ScalarField())
}
