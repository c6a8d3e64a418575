package solidity

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/veriformer/veriformer/statement"
)

// InferenceVerified is one InferenceVerified event of the registry: a
// request leaf of a recorded list.
type InferenceVerified struct {
	ModelID   *big.Int
	Leaf      Leaf
	Submitter common.Address
}

// TurnVerified is one TurnVerified event of the registry: a turn leaf of a
// recorded list.
type TurnVerified struct {
	ModelID   *big.Int
	Leaf      Leaf
	Submitter common.Address
}

// ListVerified is one ListVerified event of the registry: a recorded list,
// by the root of its tree.
type ListVerified struct {
	Root      common.Hash
	ModelID   *big.Int
	Count     int
	Submitter common.Address
}

// registryLogs calls decode on every log of the receipt that the registry
// emitted with the event's topic, with the number of topics the event has.
func registryLogs(receipt *types.Receipt, registry common.Address, name string, topics int, decode func(log *types.Log) error) error {
	event := registryABI.Events[name]
	for i, log := range receipt.Logs {
		if log.Address != registry || len(log.Topics) == 0 || log.Topics[0] != event.ID {
			continue
		}
		if len(log.Topics) != topics {
			return fmt.Errorf("solidity: log %d: %s with %d topics, want %d", i, name, len(log.Topics), topics)
		}
		if err := decode(log); err != nil {
			return fmt.Errorf("solidity: log %d: %w", i, err)
		}
	}
	return nil
}

// unpackInferenceVerified decodes the event from a log of the registry: the
// model id and the two digests are its indexed topics, the submitter its
// data.
func unpackInferenceVerified(topics []common.Hash, data []byte) (InferenceVerified, error) {
	event := registryABI.Events["InferenceVerified"]
	if len(topics) != 4 || topics[0] != event.ID {
		return InferenceVerified{}, fmt.Errorf("solidity: log is not an InferenceVerified event")
	}
	values, err := event.Inputs.NonIndexed().Unpack(data)
	if err != nil {
		return InferenceVerified{}, fmt.Errorf("solidity: unpack InferenceVerified: %w", err)
	}
	if len(values) != 1 {
		return InferenceVerified{}, fmt.Errorf("solidity: InferenceVerified has %d data fields, want 1", len(values))
	}
	submitter, ok := values[0].(common.Address)
	if !ok {
		return InferenceVerified{}, fmt.Errorf("solidity: InferenceVerified fields have unexpected types")
	}
	return InferenceVerified{
		ModelID:   topics[1].Big(),
		Leaf:      statement.RequestLeaf(topics[2].Big(), topics[3].Big()),
		Submitter: submitter,
	}, nil
}

// Events returns the InferenceVerified events that the registry emitted in
// the receipt's transaction, in order.
func Events(receipt *types.Receipt, registry common.Address) ([]InferenceVerified, error) {
	var out []InferenceVerified
	err := registryLogs(receipt, registry, "InferenceVerified", 4, func(log *types.Log) error {
		event, err := unpackInferenceVerified(log.Topics, log.Data)
		if err != nil {
			return err
		}
		out = append(out, event)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TurnEvents returns the TurnVerified events that the registry emitted in
// the receipt's transaction, in order: the model id and the states are the
// indexed topics, the digests and the submitter the data.
func TurnEvents(receipt *types.Receipt, registry common.Address) ([]TurnVerified, error) {
	event := registryABI.Events["TurnVerified"]
	var out []TurnVerified
	err := registryLogs(receipt, registry, "TurnVerified", 4, func(log *types.Log) error {
		values, err := event.Inputs.NonIndexed().Unpack(log.Data)
		if err != nil || len(values) != 3 {
			return fmt.Errorf("unpack TurnVerified: %v (%d fields)", err, len(values))
		}
		input, okIn := values[0].(*big.Int)
		output, okOut := values[1].(*big.Int)
		submitter, okSub := values[2].(common.Address)
		if !okIn || !okOut || !okSub {
			return fmt.Errorf("TurnVerified fields have unexpected types")
		}
		out = append(out, TurnVerified{
			ModelID:   log.Topics[1].Big(),
			Leaf:      statement.TurnLeaf(log.Topics[2].Big(), input, output, log.Topics[3].Big()),
			Submitter: submitter,
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ListEvents returns the ListVerified events that the registry emitted in
// the receipt's transaction.
func ListEvents(receipt *types.Receipt, registry common.Address) ([]ListVerified, error) {
	event := registryABI.Events["ListVerified"]
	var out []ListVerified
	err := registryLogs(receipt, registry, "ListVerified", 3, func(log *types.Log) error {
		values, err := event.Inputs.NonIndexed().Unpack(log.Data)
		if err != nil || len(values) != 2 {
			return fmt.Errorf("unpack ListVerified: %v (%d fields)", err, len(values))
		}
		count, okCount := values[0].(*big.Int)
		submitter, okSub := values[1].(common.Address)
		if !okCount || !okSub || !count.IsInt64() || count.Int64() < 1 || count.Int64() > statement.MaxLeaves {
			return fmt.Errorf("ListVerified fields have unexpected values")
		}
		out = append(out, ListVerified{Root: log.Topics[1], ModelID: log.Topics[2].Big(), Count: int(count.Int64()), Submitter: submitter})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
