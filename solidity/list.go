package solidity

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bn254/fr"
	"github.com/consensys/gnark/backend/groth16"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	"github.com/consensys/gnark/backend/witness"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/veriformer/veriformer/statement"
)

// List is what a final proof states (statement.List): the model id and an
// ordered list of 1 to statement.MaxLeaves leaves. A single request is a
// list of one.
type List = statement.List

// Leaf is one statement of a [List] (statement.Leaf): a request or a turn
// of a conversation.
type Leaf = statement.Leaf

// MaxDepth is the height of the tree of a list of statement.MaxLeaves
// leaves: the longest path ([LeafPath]).
const MaxDepth = 12

// ValidateList checks that the registry can record the list: 1 to
// statement.MaxLeaves well-formed leaves, every value below 2²⁵⁴, the model
// id below 2^statement.ModelIDBits, no turn leaving the empty state
// (statement.List.Check).
func ValidateList(l List) error {
	if err := l.Check(); err != nil {
		return fmt.Errorf("solidity: %w", err)
	}
	return nil
}

// listWords returns the list's words, the calldata of submit, after
// checking the list.
func listWords(l List) ([]*big.Int, error) {
	words, err := l.Words()
	if err != nil {
		return nil, fmt.Errorf("solidity: %w", err)
	}
	return words, nil
}

// PublicInputs returns the verifier's public inputs for a proof of the
// list: its statement digest (statement.List.Digest).
func PublicInputs(l List) ([NbPublicInputs]*big.Int, error) {
	if err := ValidateList(l); err != nil {
		return [NbPublicInputs]*big.Int{}, err
	}
	digest, err := l.Digest()
	if err != nil {
		return [NbPublicInputs]*big.Int{}, fmt.Errorf("solidity: %w", err)
	}
	return [NbPublicInputs]*big.Int{digest}, nil
}

// CheckWitness checks that a BN254 public witness (for example
// `full.Public()` of the witness a proof was made with) is the list's: its
// one value is the list's statement digest.
func CheckWitness(public witness.Witness, l List) error {
	vector, ok := public.Vector().(fr.Vector)
	if !ok {
		return fmt.Errorf("solidity: public witness is %T, want a BN254 vector", public.Vector())
	}
	if len(vector) != NbPublicInputs {
		return fmt.Errorf("solidity: public witness has %d values, want %d", len(vector), NbPublicInputs)
	}
	inputs, err := PublicInputs(l)
	if err != nil {
		return err
	}
	if got := vector[0].BigInt(new(big.Int)); got.Cmp(inputs[0]) != 0 {
		return fmt.Errorf("solidity: public witness is %#x, the list's digest is %#x", got, inputs[0])
	}
	return nil
}

// checkField checks that value is set and in [0, r).
func checkField(name string, value *big.Int) error {
	if value == nil {
		return fmt.Errorf("solidity: %s is not set", name)
	}
	if value.Sign() < 0 || value.Cmp(fr.Modulus()) >= 0 {
		return fmt.Errorf("solidity: %s %s is not in [0, r)", name, value)
	}
	return nil
}

// checkBits checks that value is set and in [0, 2^bits).
func checkBits(name string, value *big.Int, bits int) error {
	if value == nil || value.Sign() < 0 || value.BitLen() > bits {
		return fmt.Errorf("solidity: %s %v is not in [0, 2^%d)", name, value, bits)
	}
	return nil
}

// ProofBytes encodes a BN254 Groth16 proof for the exported verifier, as
// gnark's MarshalSolidity does: A (x, y), B (x₁, x₀, y₁, y₀), C (x, y), then,
// when the circuit has a commitment, the commitment (x, y) and its proof of
// knowledge (x, y); 32-byte big-endian words, 256 or 384 bytes.
func ProofBytes(proof groth16.Proof) ([]byte, error) {
	p, ok := proof.(*groth16bn254.Proof)
	if !ok {
		return nil, fmt.Errorf("solidity: proof is %T, want a BN254 Groth16 proof", proof)
	}
	if len(p.Commitments) > 1 {
		return nil, fmt.Errorf("solidity: proof has %d commitments, the Solidity verifier supports at most 1", len(p.Commitments))
	}
	return p.MarshalSolidity(), nil
}

// checkEncodedProof checks the size of a proof encoded by [ProofBytes]:
// 256 bytes, or 384 with a commitment.
func checkEncodedProof(proof []byte) error {
	if len(proof) != 256 && len(proof) != 384 {
		return fmt.Errorf("solidity: an encoded proof of %d bytes, want 256 or 384", len(proof))
	}
	return nil
}

// PackSubmit returns the calldata of InferenceRegistry.submit for a proof
// of the list.
func PackSubmit(proof groth16.Proof, l List) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	return PackSubmitBytes(encoded, l)
}

// PackSubmitBytes is [PackSubmit] for a proof already encoded
// ([ProofBytes]): 256 or 384 bytes.
func PackSubmitBytes(proof []byte, l List) ([]byte, error) {
	if err := checkEncodedProof(proof); err != nil {
		return nil, err
	}
	words, err := listWords(l)
	if err != nil {
		return nil, err
	}
	data, err := registryABI.Pack("submit", proof, l.ModelID, words)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack submit: %w", err)
	}
	return data, nil
}

// PackVerifyProof returns the calldata of the verifier's verifyProof for a
// proof of the list (its public input is the list's statement digest).
func PackVerifyProof(proof groth16.Proof, l List) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	inputs, err := PublicInputs(l)
	if err != nil {
		return nil, err
	}
	return packVerifyProofBytes(encoded, inputs)
}

// packVerifyProofBytes packs verifyProof's calldata from an encoded proof
// and public inputs.
func packVerifyProofBytes(proof []byte, inputs [NbPublicInputs]*big.Int) ([]byte, error) {
	data, err := verifierABI.Pack("verifyProof", proof, inputs)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack verifyProof: %w", err)
	}
	return data, nil
}

// LeafHash is the leaf of a list's tree for one of its leaves:
// keccak256(abi.encode(modelId, the leaf's words)), 96 bytes hashed for a
// request and 160 for a turn.
func LeafHash(modelID *big.Int, leaf Leaf) (common.Hash, error) {
	if err := checkBits("model id", modelID, 256); err != nil {
		return common.Hash{}, err
	}
	words, err := leaf.Words()
	if err != nil {
		return common.Hash{}, fmt.Errorf("solidity: %w", err)
	}
	encoded := make([]byte, 32*(1+len(words)))
	modelID.FillBytes(encoded[:32])
	for i, w := range words {
		w.FillBytes(encoded[32*(i+1) : 32*(i+2)])
	}
	return crypto.Keccak256Hash(encoded), nil
}

// hashPair is an inner node of a list's tree: keccak256 of its two
// children, 64 bytes.
func hashPair(left, right common.Hash) common.Hash {
	return crypto.Keccak256Hash(left[:], right[:])
}

// listLevels returns every level of the list's tree, the leaf hashes first
// and the root last.
func listLevels(l List) ([][]common.Hash, error) {
	if err := ValidateList(l); err != nil {
		return nil, err
	}
	level := make([]common.Hash, len(l.Leaves))
	for i, leaf := range l.Leaves {
		hash, err := LeafHash(l.ModelID, leaf)
		if err != nil {
			return nil, err
		}
		level[i] = hash
	}
	levels := [][]common.Hash{level}
	for len(level) > 1 {
		next := make([]common.Hash, (len(level)+1)/2)
		for i := range next {
			var right common.Hash
			if 2*i+1 < len(level) {
				right = level[2*i+1]
			}
			next[i] = hashPair(level[2*i], right)
		}
		levels = append(levels, next)
		level = next
	}
	return levels, nil
}

// ListRoot is the root the registry records for the list (listRoot): a
// binary tree of keccak256 hashes over the leaves' hashes ([LeafHash]) in
// the list's order, each level paired left to right, a node without a
// right sibling paired with 0; a list of one is its leaf hash.
func ListRoot(l List) (common.Hash, error) {
	levels, err := listLevels(l)
	if err != nil {
		return common.Hash{}, err
	}
	return levels[len(levels)-1][0], nil
}

// LeafPath returns the hash of the list's i-th leaf and its path: the
// siblings from the leaf up, 0 where a node has none, as isVerified reads
// them (empty for a list of one).
func LeafPath(l List, i int) (leaf common.Hash, path []common.Hash, err error) {
	levels, err := listLevels(l)
	if err != nil {
		return common.Hash{}, nil, err
	}
	if i < 0 || i >= len(l.Leaves) {
		return common.Hash{}, nil, fmt.Errorf("solidity: leaf %d of a list of %d", i, len(l.Leaves))
	}
	leaf = levels[0][i]
	for _, level := range levels[:len(levels)-1] {
		var sibling common.Hash
		if j := i ^ 1; j < len(level) {
			sibling = level[j]
		}
		path = append(path, sibling)
		i /= 2
	}
	return leaf, path, nil
}

// VerifyLeafPath reports whether path shows the leaf of the model at index
// of the tree whose root is root, as isVerified checks it (without asking
// whether the root is recorded): at most [MaxDepth] siblings, index below
// 2^len(path), the bits of index, lowest first, telling whether the node is
// a right child.
func VerifyLeafPath(modelID *big.Int, leaf Leaf, root common.Hash, index int, path []common.Hash) bool {
	if len(path) > MaxDepth || index < 0 || index>>len(path) != 0 {
		return false
	}
	node, err := LeafHash(modelID, leaf)
	if err != nil {
		return false
	}
	for k, sibling := range path {
		if (index>>k)&1 == 0 {
			node = hashPair(node, sibling)
		} else {
			node = hashPair(sibling, node)
		}
	}
	return node == root
}

// callBool calls a view method of the registry that returns one bool.
func callBool(ctx context.Context, backend bind.ContractCaller, registry common.Address, method string, args ...any) (bool, error) {
	data, err := registryABI.Pack(method, args...)
	if err != nil {
		return false, fmt.Errorf("solidity: pack %s: %w", method, err)
	}
	out, err := backend.CallContract(ctx, ethereum.CallMsg{To: &registry, Data: data}, nil)
	if err != nil {
		return false, fmt.Errorf("solidity: %s: %w", method, describeRevert(err))
	}
	values, err := registryABI.Unpack(method, out)
	if err != nil {
		return false, fmt.Errorf("solidity: unpack %s: %w", method, err)
	}
	v, ok := values[0].(bool)
	if !ok {
		return false, fmt.Errorf("solidity: %s returned %T", method, values[0])
	}
	return v, nil
}

// IsVerified asks the registry whether the list's i-th leaf was proven: it
// computes the leaf's path ([LeafPath]) and calls isVerified, true once
// the list is recorded.
func IsVerified(ctx context.Context, backend bind.ContractCaller, registry common.Address, l List, i int) (bool, error) {
	_, path, err := LeafPath(l, i)
	if err != nil {
		return false, err
	}
	return IsLeafVerified(ctx, backend, registry, l.ModelID, l.Leaves[i], i, path)
}

// IsLeafVerified asks the registry whether the leaf of the model, at index
// with the siblings path ([LeafPath]), belongs to a recorded list: what a
// holder of one leaf, its index and its path checks without the rest of
// the list.
func IsLeafVerified(ctx context.Context, backend bind.ContractCaller, registry common.Address, modelID *big.Int, leaf Leaf, index int, path []common.Hash) (bool, error) {
	if err := checkBits("model id", modelID, 256); err != nil {
		return false, err
	}
	words, err := leaf.Words()
	if err != nil {
		return false, fmt.Errorf("solidity: %w", err)
	}
	if index < 0 {
		return false, fmt.Errorf("solidity: leaf index %d", index)
	}
	siblings := make([][32]byte, len(path))
	for i, p := range path {
		siblings[i] = p
	}
	return callBool(ctx, backend, registry, "isVerified", modelID, words, big.NewInt(int64(index)), siblings)
}

// IsRecorded asks the registry whether a list whose tree has this root was
// proven.
func IsRecorded(ctx context.Context, backend bind.ContractCaller, registry common.Address, root common.Hash) (bool, error) {
	return callBool(ctx, backend, registry, "isRecorded", [32]byte(root))
}

// IsState asks the registry whether a recorded turn of the model left the
// state, so that a next turn may start from it.
func IsState(ctx context.Context, backend bind.ContractCaller, registry common.Address, modelID, state *big.Int) (bool, error) {
	if err := checkBits("model id", modelID, 256); err != nil {
		return false, err
	}
	if err := checkBits("state", state, statement.KindShift); err != nil {
		return false, err
	}
	return callBool(ctx, backend, registry, "isState", modelID, state)
}
