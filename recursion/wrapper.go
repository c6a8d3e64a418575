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
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/transcript"
)

// AggregatorPublicInputs is the number of public inputs of every
// aggregator: ModelID and ListDigest.
const AggregatorPublicInputs = 2

// Wrapper is the BN254 circuit that verifies one aggregator proof by
// emulating BW6-761 arithmetic; see the package documentation. One
// wrapper serves every aggregator of every model and every kind of list.
//
// Its one public input is StatementDigest, the statement digest
// (statement.List.Digest, SHA-256 in circuit) of the final model id
// ModelID ([Deployment.FinalModelID]) and the list digest ListDigest,
// which are private: the contract recomputes the digest from the list's
// leaves.
type Wrapper struct {
	StatementDigest frontend.Variable `gnark:",public"`
	ModelID         frontend.Variable
	ListDigest      frontend.Variable

	// InnerModelID is the aggregator's public model id ([ModelID]).
	InnerModelID frontend.Variable
	// ModelDigest is the model's own digest, Slot the aggregator's
	// bucket's slot in the deployment's bucket tree and Path the
	// siblings of its leaf, from the leaves up ([Deployment]).
	ModelDigest frontend.Variable
	Slot        frontend.Variable
	Path        [BucketDepth]frontend.Variable
	Proof       stdgroth16.Proof[sw_bw6761.G1Affine, sw_bw6761.G2Affine]
	Key         stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl]
}

// NewWrapper returns the placeholder of the wrapper for aggregators whose
// proofs carry nbCommitments Pedersen commitments (0 or 1,
// [AggregatorCommitments]), to compile. Every aggregator this package
// compiles has 2 public inputs and no commitment, so one wrapper serves
// every arity and every kind of pass.
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
	if want := 1 + AggregatorPublicInputs + nbCommitments; len(c.Key.G1.K) != want {
		return fmt.Errorf("recursion: aggregator key has %d K points, want %d", len(c.Key.G1.K), want)
	}
	scalars, err := emulated.NewField[sw_bw6761.ScalarField](api)
	if err != nil {
		return fmt.Errorf("recursion: scalar field: %w", err)
	}
	verifier, err := stdgroth16.NewVerifier[sw_bw6761.ScalarField, sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl](api)
	if err != nil {
		return fmt.Errorf("recursion: aggregator verifier: %w", err)
	}

	// The final id binds the model's digest and the root of its bucket
	// tree, a leaf of which binds the aggregator key and the inner id.
	keyLimbs, err := aggregatorKeyVariables(&c.Key)
	if err != nil {
		return err
	}
	id, err := deploymentID(api, c.Slot, c.Path, c.ModelDigest, nbCommitments, keyLimbs, c.InnerModelID)
	if err != nil {
		return err
	}
	api.AssertIsEqual(c.ModelID, id)

	// The aggregator's public inputs, as BW6-761 scalars (same integers):
	// the inner id (250 bits) and the list digest (250 bits), both
	// decomposed here, so below r(BN254) and r(BW6-761).
	public := stdgroth16.Witness[sw_bw6761.ScalarField]{
		Public: []emulated.Element[sw_bw6761.ScalarField]{
			bw6ScalarFromBits(scalars, bits.ToBinary(api, c.InnerModelID, bits.WithNbDigits(ModelIDBits))),
			bw6ScalarFromBits(scalars, bits.ToBinary(api, c.ListDigest, bits.WithNbDigits(statement.ListBits))),
		},
	}
	if err := verifier.AssertProof(c.Key, c.Proof, public, stdgroth16.WithSubgroupCheck()); err != nil {
		return fmt.Errorf("recursion: verify aggregator proof: %w", err)
	}

	// The one public input: the statement digest of the final list.
	digest, err := gstatement.DigestOfList(api, c.ModelID, c.ListDigest)
	if err != nil {
		return fmt.Errorf("recursion: %w", err)
	}
	api.AssertIsEqual(c.StatementDigest, digest)
	return nil
}

// deploymentID is [Deployment.FinalModelID] in circuit for the
// aggregator whose key has nbCommitments commitments and the given limbs
// and whose inner id is inner, in slot slot of the bucket tree with the
// leaf's siblings path: the leaf ([BucketLeaf]), up the path (the slot's
// bits, least significant first, say on which side the node is), then
// the id of the model digest and the root, its low [ModelIDBits] bits.
// The slot is asserted below [BucketSlots].
func deploymentID(api frontend.API, slot frontend.Variable, path [BucketDepth]frontend.Variable, modelDigest frontend.Variable, nbCommitments int, keyLimbs []frontend.Variable, inner frontend.Variable) (frontend.Variable, error) {
	hash := func(elements ...frontend.Variable) (frontend.Variable, error) {
		h, err := poseidon2.New(api)
		if err != nil {
			return nil, fmt.Errorf("recursion: poseidon2: %w", err)
		}
		h.Write(elements...)
		return h.Sum(), nil
	}
	slotBits := bits.ToBinary(api, slot, bits.WithNbDigits(BucketDepth))
	leaf := append([]frontend.Variable{transcript.ConstantBig(bucketLeafLabel, ecc.BN254.ScalarField()), slot, nbCommitments}, keyLimbs...)
	node, err := hash(append(leaf, inner)...)
	if err != nil {
		return nil, err
	}
	for i, sibling := range path {
		left := api.Select(slotBits[i], sibling, node)
		right := api.Select(slotBits[i], node, sibling)
		if node, err = hash(left, right); err != nil {
			return nil, err
		}
	}
	id, err := hash(transcript.ConstantBig(finalModelIDLabel, ecc.BN254.ScalarField()), modelDigest, node)
	if err != nil {
		return nil, err
	}
	return bits.FromBinary(api, bits.ToBinary(api, id)[:ModelIDBits]), nil
}

// aggregatorKeyVariables lists the 64-bit limbs of the aggregator key's
// coordinates in the order of [BucketLeaf].
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
	if n := len(vk.G1.K) - 1 - nbCommitments; n != AggregatorPublicInputs {
		return fmt.Errorf("aggregator key has %d K points, want %d", len(vk.G1.K), 1+AggregatorPublicInputs+nbCommitments)
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
