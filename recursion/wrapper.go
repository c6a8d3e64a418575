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

// TurnAggregatorPublicInputs is the number of public inputs of a turn's
// aggregator: ModelID, InputDigest, OutputDigest, StateIn, StateOut.
const TurnAggregatorPublicInputs = 5

// scalarBitsBN254 is the bit length of r(BN254).
const scalarBitsBN254 = 254

// Wrapper is the BN254 circuit that verifies one aggregator proof by
// emulating BW6-761 arithmetic; see the package documentation.
//
// Its one public input is StatementDigest, the statement digest
// (statement.Digest, SHA-256 in circuit) of the final statement: ModelID
// (the final id, [Deployment.FinalModelID]), InputDigest and
// OutputDigest, which are private. The contract recomputes the digest
// from the three values. The wrapper of a turn's aggregator
// ([NewTurnWrapper]) has the states in and out too (States), and its
// public input is the turn's digest (statement.Turn.Digest) of the five
// values.
type Wrapper struct {
	StatementDigest frontend.Variable `gnark:",public"`
	ModelID         frontend.Variable
	InputDigest     frontend.Variable
	OutputDigest    frontend.Variable
	// States holds a turn's StateIn and StateOut (empty otherwise).
	States []frontend.Variable
	// batch: the wrapper of a batch's aggregator ([NewBatchWrapper]),
	// whose InputDigest is the batch's list digest and OutputDigest its
	// number of requests.
	batch bool `gnark:"-"`

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
// compiles has 3 public inputs and no commitment, so one wrapper serves every
// arity.
func NewWrapper(nbCommitments int) (*Wrapper, error) {
	return newWrapper(nbCommitments, false)
}

// NewTurnWrapper is [NewWrapper] for the aggregators of a conversation's
// turns ([NewTurnAggregator]), whose public inputs end with the states
// in and out.
func NewTurnWrapper(nbCommitments int) (*Wrapper, error) {
	return newWrapper(nbCommitments, true)
}

// NewBatchWrapper is [NewWrapper] for the aggregators of a batch's pass
// (the segments of circuits.CommittedBatch): their statement is (model
// id, list digest, number of requests), and the wrapper's public input
// is the batch digest of the final id and the list digest
// (statement.Batch.Digest, [BatchWrapperAssignment]).
func NewBatchWrapper(nbCommitments int) (*Wrapper, error) {
	w, err := newWrapper(nbCommitments, false)
	if err != nil {
		return nil, err
	}
	w.batch = true
	return w, nil
}

func newWrapper(nbCommitments int, turn bool) (*Wrapper, error) {
	if nbCommitments < 0 || nbCommitments > 1 {
		return nil, fmt.Errorf("recursion: wrapper for %d aggregator commitments, want 0 or 1", nbCommitments)
	}
	committed := make([][]int, nbCommitments)
	for i := range committed {
		committed[i] = []int{}
	}
	publics := AggregatorPublicInputs
	var states []frontend.Variable
	if turn {
		publics, states = TurnAggregatorPublicInputs, make([]frontend.Variable, 2)
	}
	return &Wrapper{
		States: states,
		Proof: stdgroth16.Proof[sw_bw6761.G1Affine, sw_bw6761.G2Affine]{
			Commitments: make([]pedersen.Commitment[sw_bw6761.G1Affine], nbCommitments),
		},
		Key: stdgroth16.VerifyingKey[sw_bw6761.G1Affine, sw_bw6761.G2Affine, sw_bw6761.GTEl]{
			G1:                           struct{ K []sw_bw6761.G1Affine }{K: make([]sw_bw6761.G1Affine, 1+publics+nbCommitments)},
			CommitmentKeys:               make([]pedersen.VerifyingKey[sw_bw6761.G2Affine], nbCommitments),
			PublicAndCommitmentCommitted: committed,
		},
	}, nil
}

// Define implements frontend.Circuit.
func (c *Wrapper) Define(api frontend.API) error {
	nbCommitments := len(c.Key.CommitmentKeys)
	if len(c.States) != 0 && len(c.States) != 2 {
		return fmt.Errorf("recursion: a wrapper of %d states", len(c.States))
	}
	if want := 1 + AggregatorPublicInputs + len(c.States) + nbCommitments; len(c.Key.G1.K) != want {
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
	// A turn's states are digests below 2^250 (the aggregator computes
	// them so).
	for _, s := range c.States {
		public.Public = append(public.Public, bw6ScalarFromBits(scalars, bits.ToBinary(api, s, bits.WithNbDigits(scalarBitsBN254))))
	}
	if err := verifier.AssertProof(c.Key, c.Proof, public, stdgroth16.WithSubgroupCheck()); err != nil {
		return fmt.Errorf("recursion: verify aggregator proof: %w", err)
	}

	// The one public input: the digest of the final statement (of the
	// turn).
	var digest frontend.Variable
	switch {
	case c.batch && len(c.States) != 0:
		return fmt.Errorf("recursion: a batch's wrapper with a turn's states")
	case c.batch:
		digest, err = gstatement.BatchDigestOfList(api, c.ModelID, c.InputDigest)
	case len(c.States) == 2:
		digest, err = gstatement.TurnDigest(api, c.ModelID, c.States[0], c.InputDigest, c.OutputDigest, c.States[1])
	default:
		digest, err = gstatement.Digest(api, c.ModelID, c.InputDigest, c.OutputDigest)
	}
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
	if n := len(vk.G1.K) - 1 - nbCommitments; n != AggregatorPublicInputs && n != TurnAggregatorPublicInputs {
		return fmt.Errorf("aggregator key has %d K points, want %d or %d", len(vk.G1.K), 1+AggregatorPublicInputs+nbCommitments, 1+TurnAggregatorPublicInputs+nbCommitments)
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
