package recursion

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"
	bn254poseidon2 "github.com/consensys/gnark-crypto/ecc/bn254/fr/poseidon2"
	bw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761"
	bw6761fr "github.com/consensys/gnark-crypto/ecc/bw6-761/fr"
	bw6761poseidon2 "github.com/consensys/gnark-crypto/ecc/bw6-761/fr/poseidon2"
	"github.com/consensys/gnark/backend/groth16"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	groth16bw6761 "github.com/consensys/gnark/backend/groth16/bw6-761"

	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
	"github.com/veriformer/veriformer/transcript"
)

// ModelIDBits is the width of both model ids (statement.ModelIDBits): 250
// bits, so that an id is the same integer in BLS12-377 Fr, BN254 Fr and
// BW6-761 Fr.
const ModelIDBits = statement.ModelIDBits

// Domain-separation labels of the two id hashes; the constants absorbed first
// are transcript.ConstantBig(label, r), i.e. SHA-256("veriformer/"+label) mod r.
const (
	modelIDLabel      = "recursion/model-id"
	bucketLeafLabel   = "recursion/bucket-leaf"
	finalModelIDLabel = "recursion/final-model-id/v2"
)

// limbBits and baseLimbs describe how an aggregator key coordinate (a
// BW6-761 Fp element, 761 bits) enters the final id: as 12 little-endian
// 64-bit words, the limbs gnark's field emulation uses on BN254.
const (
	limbBits  = 64
	baseLimbs = 12
)

var errNoSegments = errors.New("recursion: no segment verifying keys")

// ModelID is the aggregator's model id, the one the segments seed their
// transcript with: the Poseidon2 hash over BW6-761 Fr (gnark-crypto's
// Merkle–Damgård hasher, zero IV, width-2 compression) of
//
//	K("recursion/model-id"), k, c, keyElements(vk₁), …, keyElements(vk_k), t
//
// truncated to its low [ModelIDBits] bits, where k is the number of
// segments, c their number of Pedersen commitments (the same for all), t
// the digest (pcs.Digest) of the model's table commitments the segments'
// openings read, in segment order, and keyElements lists a BLS12-377 key
// in the form the aggregator verifies with — every coordinate is a
// BLS12-377 Fp element, hence a BW6-761 Fr element:
//
//	e(α, β) ∈ GT: C0.B0.A0, C0.B0.A1, C0.B1.A0, …, C1.B2.A1 (12)
//	K₀ … K_n ∈ G1: X, Y each (2(n+1), n the key's public inputs and commitments)
//	−γ, −δ ∈ G2: X.A0, X.A1, Y.A0, Y.A1 each (8)
//	per commitment key: G, −σ·G ∈ G2 as above (8)
func ModelID(segmentVKs []groth16.VerifyingKey, tables [][]pcs.Commitment) (*big.Int, error) {
	if len(segmentVKs) == 0 {
		return nil, errNoSegments
	}
	var all []pcs.Commitment
	for _, t := range tables {
		all = append(all, t...)
	}
	tablesDigest := pcs.Digest(all)
	elements := []bw6761fr.Element{constantBW6(modelIDLabel), bw6FromUint64(uint64(len(segmentVKs)))}
	nbCommitments := -1
	var keys [][]bw6761fr.Element
	for i, vk := range segmentVKs {
		n, err := keyCommitments(vk)
		if err != nil {
			return nil, fmt.Errorf("recursion: model id: segment key %d: %w", i, err)
		}
		if nbCommitments >= 0 && n != nbCommitments {
			return nil, fmt.Errorf("recursion: model id: segment key %d has %d commitments, segment key 0 has %d", i, n, nbCommitments)
		}
		nbCommitments = n
		key, err := segmentKeyElements(vk)
		if err != nil {
			return nil, fmt.Errorf("recursion: model id: segment key %d: %w", i, err)
		}
		keys = append(keys, key)
	}
	elements = append(elements, bw6FromUint64(uint64(nbCommitments)))
	for _, key := range keys {
		elements = append(elements, key...)
	}
	var t bw6761fr.Element
	t.SetBigInt(tablesDigest.BigInt(new(big.Int)))
	elements = append(elements, t)

	h := bw6761poseidon2.NewMerkleDamgardHasher()
	for i := range elements {
		b := elements[i].Bytes()
		if _, err := h.Write(b[:]); err != nil {
			return nil, fmt.Errorf("recursion: model id: hash element %d: %w", i, err)
		}
	}
	var digest bw6761fr.Element
	if err := digest.SetBytesCanonical(h.Sum(nil)); err != nil {
		return nil, fmt.Errorf("recursion: model id: digest: %w", err)
	}
	return truncate(digest.BigInt(new(big.Int))), nil
}

// keyCommitments returns the number of Pedersen commitments of a
// BLS12-377 segment key: 0 or 1, none on a public input.
func keyCommitments(key groth16.VerifyingKey) (int, error) {
	vk, ok := key.(*groth16bls12377.VerifyingKey)
	if !ok {
		return 0, fmt.Errorf("key is %T, not a BLS12-377 key", key)
	}
	if len(vk.CommitmentKeys) > 1 {
		return 0, fmt.Errorf("segment circuits must have 0 or 1 commitments, have %d", len(vk.CommitmentKeys))
	}
	if len(vk.PublicAndCommitmentCommitted) != len(vk.CommitmentKeys) {
		return 0, fmt.Errorf("%d committed-public lists for %d commitments", len(vk.PublicAndCommitmentCommitted), len(vk.CommitmentKeys))
	}
	for i := range vk.PublicAndCommitmentCommitted {
		if len(vk.PublicAndCommitmentCommitted[i]) != 0 {
			return 0, fmt.Errorf("segment commitment %d commits to public inputs", i)
		}
	}
	return len(vk.CommitmentKeys), nil
}

// BucketLeaf is the leaf of a model's bucket tree ([Deployment]) for the
// aggregator of the bucket in slot slot: the Poseidon2 hash over BN254 Fr
// (gnark-crypto's Merkle–Damgård hasher, zero IV, width-2 compression) of
//
//	K("recursion/bucket-leaf"), slot, c, keyLimbs(vk), id
//
// (the whole field element, not truncated), where vk is the aggregator's
// BW6-761 verifying key, c its number of commitments, id the aggregator's
// model id ([ModelID]), and keyLimbs lists every coordinate of the key — in
// the form the wrapper verifies with — as 12 little-endian 64-bit words:
//
//	e(α, β) ∈ GT (BW6-761 Fp⁶ = Fp³[v]): B0.A0, B1.A0, B0.A1, B1.A1, B0.A2, B1.A2 (6 coordinates)
//	K₀ … K₃ ∈ G1: X, Y each (8)
//	−γ, −δ ∈ G2: X, Y each (4)
//	per commitment key: G, −σ·G ∈ G2: X, Y each (4)
//
// The aggregator key digest is thereby part of the id: a proof from another
// aggregator (another arity, another setup, another bucket) yields another
// leaf.
func BucketLeaf(slot int, aggregatorVK groth16.VerifyingKey, modelID *big.Int) (*big.Int, error) {
	if slot < 0 || slot >= BucketSlots {
		return nil, fmt.Errorf("recursion: bucket leaf: slot %d outside [0, %d)", slot, BucketSlots)
	}
	if modelID == nil || modelID.Sign() < 0 || modelID.BitLen() > ModelIDBits {
		return nil, fmt.Errorf("recursion: bucket leaf: inner model id is not a %d-bit integer", ModelIDBits)
	}
	vk, ok := aggregatorVK.(*groth16bw6761.VerifyingKey)
	if !ok {
		return nil, fmt.Errorf("recursion: bucket leaf: aggregator key is %T, not a BW6-761 key", aggregatorVK)
	}
	if err := checkAggregatorKey(vk); err != nil {
		return nil, fmt.Errorf("recursion: bucket leaf: %w", err)
	}
	coordinates, err := aggregatorKeyCoordinates(vk)
	if err != nil {
		return nil, fmt.Errorf("recursion: bucket leaf: %w", err)
	}
	var keyLimbs []uint64
	for _, c := range coordinates {
		l := limbs(c)
		keyLimbs = append(keyLimbs, l[:]...)
	}
	return bucketLeaf(slot, len(vk.CommitmentKeys), keyLimbs, modelID), nil
}

// bucketLeaf is BucketLeaf of a key given by its number of commitments
// and its limbs.
func bucketLeaf(slot, nbCommitments int, keyLimbs []uint64, modelID *big.Int) *big.Int {
	elements := []bn254fr.Element{constantBN254(bucketLeafLabel), bn254FromUint64(uint64(slot)), bn254FromUint64(uint64(nbCommitments))}
	for _, limb := range keyLimbs {
		elements = append(elements, bn254FromUint64(limb))
	}
	var id bn254fr.Element
	id.SetBigInt(modelID)
	elements = append(elements, id)
	leaf := hashBN254(elements...)
	return leaf.BigInt(new(big.Int))
}

// BucketDepth is the depth of a deployment's tree: BucketSlots =
// 2^BucketDepth leaves, [KindSlots] per kind of aggregator ([Slot]).
const (
	BucketDepth = 7
	BucketSlots = 1 << BucketDepth
	// KindSlots is the number of slots of one kind of aggregator: one
	// per bucket, slot k for the bucket of up to 2ᵏ rows.
	KindSlots = 32
)

// BucketSlot returns the slot of the bucket of rows among its kind's
// [KindSlots]: ⌈log₂ rows⌉ (a bucket is a power of two, or the context,
// which has no power-of-two bucket at or above it).
func BucketSlot(rows int) (int, error) {
	if rows < 1 {
		return 0, fmt.Errorf("recursion: a bucket of %d rows", rows)
	}
	k := bits.Len(uint(rows - 1))
	if k >= KindSlots {
		return 0, fmt.Errorf("recursion: a bucket of %d rows is beyond the tree's %d buckets", rows, KindSlots)
	}
	return k, nil
}

// Slot returns the slot in a deployment's tree of the aggregator of
// layout in the bucket of rows: KindSlots·kind + [BucketSlot](rows), the
// kind 0 for a request's pass, 1 for a list's, 2 for a turn's and 3 for
// several passes (a deployment has one layout of several passes).
func Slot(layout []PassShape, rows int) (int, error) {
	if err := checkLayout(layout); err != nil {
		return 0, err
	}
	b, err := BucketSlot(rows)
	if err != nil {
		return 0, err
	}
	kind := 0
	switch {
	case len(layout) > 1:
		kind = 3
	case layout[0].Turn != nil:
		kind = 2
	case layout[0].List:
		kind = 1
	}
	return KindSlots*kind + b, nil
}

// Deployment is what the on-chain id of a model in the aggregated design
// covers: the model's own digest (model.Model.ID: weights, tokenizer and
// its BOS rule) and the leaves ([BucketLeaf]) of the aggregators it is
// deployed with, each of a kind and a bucket, by [Slot]; a slot without
// an aggregator holds 0.
type Deployment struct {
	ModelDigest *big.Int
	Leaves      [BucketSlots]*big.Int
}

// nodes returns the tree's levels, leaves first: level i+1 node j is
// Poseidon2(level i node 2j, node 2j+1) (the BN254 Merkle–Damgård hasher
// over the two elements).
func (d *Deployment) nodes() [][]bn254fr.Element {
	level := make([]bn254fr.Element, BucketSlots)
	for i, l := range d.Leaves {
		if l != nil {
			level[i].SetBigInt(l)
		}
	}
	out := [][]bn254fr.Element{level}
	for len(level) > 1 {
		next := make([]bn254fr.Element, len(level)/2)
		for j := range next {
			next[j] = hashBN254(level[2*j], level[2*j+1])
		}
		out = append(out, next)
		level = next
	}
	return out
}

// Root returns the root of the bucket tree.
func (d *Deployment) Root() *big.Int {
	levels := d.nodes()
	return levels[len(levels)-1][0].BigInt(new(big.Int))
}

// Path returns the siblings of slot's leaf, from the leaves up.
func (d *Deployment) Path(slot int) ([BucketDepth]*big.Int, error) {
	var out [BucketDepth]*big.Int
	if slot < 0 || slot >= BucketSlots {
		return out, fmt.Errorf("recursion: slot %d outside [0, %d)", slot, BucketSlots)
	}
	for i, level := range d.nodes()[:BucketDepth] {
		out[i] = level[slot^1].BigInt(new(big.Int))
		slot >>= 1
	}
	return out, nil
}

// FinalModelID is the model id the wrapper exposes on-chain, the same for
// every bucket of the deployment: the Poseidon2 hash over BN254 Fr of
//
//	K("recursion/final-model-id/v2"), modelDigest, root
//
// truncated to its low [ModelIDBits] bits, with root the bucket tree's.
func (d *Deployment) FinalModelID() (*big.Int, error) {
	if d.ModelDigest == nil || d.ModelDigest.Sign() < 0 || d.ModelDigest.BitLen() > ModelIDBits {
		return nil, fmt.Errorf("recursion: final model id: the model digest is not a %d-bit integer", ModelIDBits)
	}
	var md, root bn254fr.Element
	md.SetBigInt(d.ModelDigest)
	root.SetBigInt(d.Root())
	id := hashBN254(constantBN254(finalModelIDLabel), md, root)
	return truncate(id.BigInt(new(big.Int))), nil
}

// hashBN254 is the Poseidon2 Merkle–Damgård hash over BN254 Fr of the
// elements.
func hashBN254(elements ...bn254fr.Element) bn254fr.Element {
	h := bn254poseidon2.NewMerkleDamgardHasher()
	for i := range elements {
		b := elements[i].Bytes()
		h.Write(b[:]) // a canonical element is always accepted
	}
	var out bn254fr.Element
	out.SetBytes(h.Sum(nil))
	return out
}

func constantBN254(label string) bn254fr.Element {
	var out bn254fr.Element
	out.SetBigInt(transcript.ConstantBig(label, ecc.BN254.ScalarField()))
	return out
}

// segmentKeyElements lists a BLS12-377 verifying key as BW6-761 Fr elements,
// in the order documented on [ModelID].
func segmentKeyElements(key groth16.VerifyingKey) ([]bw6761fr.Element, error) {
	vk, ok := key.(*groth16bls12377.VerifyingKey)
	if !ok {
		return nil, fmt.Errorf("key is %T, not a BLS12-377 key", key)
	}
	e, err := bls12377.Pair([]bls12377.G1Affine{vk.G1.Alpha}, []bls12377.G2Affine{vk.G2.Beta})
	if err != nil {
		return nil, fmt.Errorf("e(α, β): %w", err)
	}
	var out []bw6761fr.Element
	for _, e6 := range []bls12377.E6{e.C0, e.C1} {
		for _, e2 := range []bls12377.E2{e6.B0, e6.B1, e6.B2} {
			out = append(out, bw6761fr.Element(e2.A0), bw6761fr.Element(e2.A1))
		}
	}
	for _, k := range vk.G1.K {
		out = append(out, bw6761fr.Element(k.X), bw6761fr.Element(k.Y))
	}
	g2 := func(p bls12377.G2Affine) {
		out = append(out, bw6761fr.Element(p.X.A0), bw6761fr.Element(p.X.A1), bw6761fr.Element(p.Y.A0), bw6761fr.Element(p.Y.A1))
	}
	var gammaNeg, deltaNeg bls12377.G2Affine
	gammaNeg.Neg(&vk.G2.Gamma)
	deltaNeg.Neg(&vk.G2.Delta)
	g2(gammaNeg)
	g2(deltaNeg)
	for _, ck := range vk.CommitmentKeys {
		g2(ck.G)
		g2(ck.GSigmaNeg)
	}
	return out, nil
}

// aggregatorKeyCoordinates lists a BW6-761 verifying key's Fp coordinates in
// the order documented on [FinalModelID].
func aggregatorKeyCoordinates(vk *groth16bw6761.VerifyingKey) ([]*big.Int, error) {
	e, err := bw6761.Pair([]bw6761.G1Affine{vk.G1.Alpha}, []bw6761.G2Affine{vk.G2.Beta})
	if err != nil {
		return nil, fmt.Errorf("e(α, β): %w", err)
	}
	out := []*big.Int{
		e.B0.A0.BigInt(new(big.Int)), e.B1.A0.BigInt(new(big.Int)),
		e.B0.A1.BigInt(new(big.Int)), e.B1.A1.BigInt(new(big.Int)),
		e.B0.A2.BigInt(new(big.Int)), e.B1.A2.BigInt(new(big.Int)),
	}
	for _, k := range vk.G1.K {
		out = append(out, k.X.BigInt(new(big.Int)), k.Y.BigInt(new(big.Int)))
	}
	g2 := func(p bw6761.G2Affine) {
		out = append(out, p.X.BigInt(new(big.Int)), p.Y.BigInt(new(big.Int)))
	}
	var gammaNeg, deltaNeg bw6761.G2Affine
	gammaNeg.Neg(&vk.G2.Gamma)
	deltaNeg.Neg(&vk.G2.Delta)
	g2(gammaNeg)
	g2(deltaNeg)
	for _, ck := range vk.CommitmentKeys {
		g2(ck.G)
		g2(ck.GSigmaNeg)
	}
	return out, nil
}

// limbs splits a canonical BW6-761 Fp coordinate into 12 little-endian 64-bit
// words.
func limbs(c *big.Int) [baseLimbs]uint64 {
	var out [baseLimbs]uint64
	mask := new(big.Int).SetUint64(^uint64(0))
	v := new(big.Int).Set(c)
	for i := range out {
		out[i] = new(big.Int).And(v, mask).Uint64()
		v.Rsh(v, limbBits)
	}
	return out
}

// truncate keeps the low ModelIDBits bits of v.
func truncate(v *big.Int) *big.Int {
	mask := new(big.Int).Lsh(big.NewInt(1), ModelIDBits)
	mask.Sub(mask, big.NewInt(1))
	return mask.And(mask, v)
}

func constantBW6(label string) bw6761fr.Element {
	var out bw6761fr.Element
	out.SetBigInt(transcript.ConstantBig(label, ecc.BW6_761.ScalarField()))
	return out
}

func bw6FromUint64(v uint64) bw6761fr.Element {
	var out bw6761fr.Element
	out.SetUint64(v)
	return out
}

func bn254FromUint64(v uint64) bn254fr.Element {
	var out bn254fr.Element
	out.SetUint64(v)
	return out
}
