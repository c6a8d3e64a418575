package solidity

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/veriformer/veriformer/statement"
)

// Batch is what the final proof of many inferences of one model proves
// (statement.Batch): for each i, the model ModelID, on the input whose
// digest is Inputs[i], produced the output whose digest is Outputs[i]. On
// chain each value is an integer in [0, r) ([ValidateBatch]); the proof's
// one public input is the batch digest, which the registry recomputes.
type Batch = statement.Batch

// ValidateBatch checks that the batch holds 1 to statement.MaxBatch
// inferences, as many inputs as outputs, every value set and reduced
// modulo r.
func ValidateBatch(b Batch) error {
	if err := b.Check(); err != nil {
		return fmt.Errorf("solidity: %w", err)
	}
	if err := checkField("model id", b.ModelID); err != nil {
		return err
	}
	for i := range b.Inputs {
		if err := checkField(fmt.Sprintf("input digest %d", i), b.Inputs[i]); err != nil {
			return err
		}
		if err := checkField(fmt.Sprintf("output digest %d", i), b.Outputs[i]); err != nil {
			return err
		}
	}
	return nil
}

// PackSubmitBatch returns the calldata of InferenceRegistry.submitBatch
// for a proof of the batch.
func PackSubmitBatch(proof groth16.Proof, b Batch) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	return PackSubmitBatchBytes(encoded, b)
}

// PackSubmitBatchBytes is [PackSubmitBatch] for a proof already encoded
// ([ProofBytes]): 256 or 384 bytes.
func PackSubmitBatchBytes(proof []byte, b Batch) ([]byte, error) {
	if err := checkEncodedProof(proof); err != nil {
		return nil, err
	}
	if err := ValidateBatch(b); err != nil {
		return nil, err
	}
	data, err := registryABI.Pack("submitBatch", proof, b.ModelID, b.Inputs, b.Outputs)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack submitBatch: %w", err)
	}
	return data, nil
}

// SubmitBatch sends InferenceRegistry.submitBatch for a proof of the batch
// and returns the receipt of the mined transaction. A batch recorded
// already reverts with BatchRecorded; a proof the verifier rejects fails
// as in [Chain.Submit].
func (c *Chain) SubmitBatch(ctx context.Context, registry common.Address, proof groth16.Proof, b Batch) (*types.Receipt, error) {
	data, err := PackSubmitBatch(proof, b)
	if err != nil {
		return nil, err
	}
	return c.SubmitCalldata(ctx, registry, data)
}

// BatchLeaf is the leaf of a statement in a batch's tree, the registry's
// batchLeaf: keccak256(abi.encode(modelId, inputDigest, outputDigest)).
func BatchLeaf(s Statement) (common.Hash, error) {
	if err := ValidateStatement(s); err != nil {
		return common.Hash{}, err
	}
	var encoded [96]byte
	for i, w := range words(s) {
		w.FillBytes(encoded[32*i : 32*(i+1)])
	}
	return crypto.Keccak256Hash(encoded[:]), nil
}

// batchNode is an inner node of a batch's tree.
func batchNode(left, right common.Hash) common.Hash {
	return crypto.Keccak256Hash(left[:], right[:])
}

// batchLevels returns every level of the batch's tree, the leaves first
// and the root last.
func batchLevels(b Batch) ([][]common.Hash, error) {
	if err := ValidateBatch(b); err != nil {
		return nil, err
	}
	level := make([]common.Hash, b.Len())
	for i := range level {
		leaf, err := BatchLeaf(b.Statement(i))
		if err != nil {
			return nil, err
		}
		level[i] = leaf
	}
	levels := [][]common.Hash{level}
	for len(level) > 1 {
		next := make([]common.Hash, (len(level)+1)/2)
		for i := range next {
			var right common.Hash
			if 2*i+1 < len(level) {
				right = level[2*i+1]
			}
			next[i] = batchNode(level[2*i], right)
		}
		levels = append(levels, next)
		level = next
	}
	return levels, nil
}

// BatchRoot is the root the registry stores for a batch (batchRoot): a
// binary tree of keccak256 hashes over the statements' leaves
// ([BatchLeaf]) in the batch's order, each level paired left to right, a
// node without a right sibling paired with 0.
func BatchRoot(b Batch) (common.Hash, error) {
	levels, err := batchLevels(b)
	if err != nil {
		return common.Hash{}, err
	}
	return levels[len(levels)-1][0], nil
}

// BatchPath returns the root of the batch and the path of its i-th
// statement: the siblings from the leaf up, 0 where a node has none, as
// isBatchVerified reads them.
func BatchPath(b Batch, i int) (common.Hash, []common.Hash, error) {
	levels, err := batchLevels(b)
	if err != nil {
		return common.Hash{}, nil, err
	}
	if i < 0 || i >= b.Len() {
		return common.Hash{}, nil, fmt.Errorf("solidity: statement %d of a batch of %d", i, b.Len())
	}
	var path []common.Hash
	for _, level := range levels[:len(levels)-1] {
		var sibling common.Hash
		if j := i ^ 1; j < len(level) {
			sibling = level[j]
		}
		path = append(path, sibling)
		i /= 2
	}
	return levels[len(levels)-1][0], path, nil
}

// VerifyBatchPath reports whether path shows the statement at index of
// the tree whose root is root, as isBatchVerified checks it (without
// asking whether the batch was recorded).
func VerifyBatchPath(s Statement, root common.Hash, index int, path []common.Hash) bool {
	if index < 0 || (len(path) < 63 && index>>len(path) != 0) {
		return false
	}
	node, err := BatchLeaf(s)
	if err != nil {
		return false
	}
	for k, sibling := range path {
		if (index>>k)&1 == 0 {
			node = batchNode(node, sibling)
		} else {
			node = batchNode(sibling, node)
		}
	}
	return node == root
}

// IsBatchVerified asks the registry whether the statement is the index-th
// of a recorded batch whose root is root, path its siblings ([BatchPath]).
func IsBatchVerified(ctx context.Context, backend bind.ContractCaller, registry common.Address, s Statement, root common.Hash, index int, path []common.Hash) (bool, error) {
	if err := ValidateStatement(s); err != nil {
		return false, err
	}
	if index < 0 {
		return false, fmt.Errorf("solidity: statement index %d", index)
	}
	siblings := make([][32]byte, len(path))
	for i, p := range path {
		siblings[i] = p
	}
	return callBool(ctx, backend, registry, "isBatchVerified", s.ModelID, s.InputDigest, s.OutputDigest, [32]byte(root), big.NewInt(int64(index)), siblings)
}

// IsBatchRecorded asks the registry whether a batch whose tree has this
// root was proven.
func IsBatchRecorded(ctx context.Context, backend bind.ContractCaller, registry common.Address, root common.Hash) (bool, error) {
	return callBool(ctx, backend, registry, "isBatchRecorded", [32]byte(root))
}

// BatchVerified is one BatchVerified event of the registry.
type BatchVerified struct {
	Root      common.Hash
	ModelID   *big.Int
	Count     int
	Submitter common.Address
}

// BatchEvents returns the BatchVerified events that the registry emitted
// in the receipt's transaction.
func BatchEvents(receipt *types.Receipt, registry common.Address) ([]BatchVerified, error) {
	event := registryABI.Events["BatchVerified"]
	var out []BatchVerified
	for i, log := range receipt.Logs {
		if log.Address != registry || len(log.Topics) == 0 || log.Topics[0] != event.ID {
			continue
		}
		if len(log.Topics) != 3 {
			return nil, fmt.Errorf("solidity: log %d: BatchVerified with %d topics", i, len(log.Topics))
		}
		values, err := event.Inputs.NonIndexed().Unpack(log.Data)
		if err != nil || len(values) != 2 {
			return nil, fmt.Errorf("solidity: log %d: unpack BatchVerified: %v (%d fields)", i, err, len(values))
		}
		count, okCount := values[0].(*big.Int)
		submitter, okSub := values[1].(common.Address)
		if !okCount || !okSub || !count.IsInt64() || count.Int64() > statement.MaxBatch {
			return nil, fmt.Errorf("solidity: log %d: BatchVerified fields have unexpected values", i)
		}
		out = append(out, BatchVerified{Root: log.Topics[1], ModelID: log.Topics[2].Big(), Count: int(count.Int64()), Submitter: submitter})
	}
	return out, nil
}
