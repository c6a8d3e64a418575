package solidity

import (
	"context"
	"fmt"
	"math/big"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// MaxCatalogText bounds a published model's name and metadata URI, in
// bytes.
const MaxCatalogText = 1024

// Publication is a model id a publisher stands behind, as the registry's
// catalog records it (ModelPublished).
type Publication struct {
	Publisher   common.Address
	ModelID     *big.Int
	Name        string
	MetadataURI string
}

// checkPublication checks the id (set, not 0, reduced modulo r) and the
// texts (UTF-8, at most MaxCatalogText bytes, the name not empty).
func checkPublication(modelID *big.Int, name, metadataURI string) error {
	if err := checkField("model id", modelID); err != nil {
		return err
	}
	if modelID.Sign() == 0 {
		return fmt.Errorf("solidity: model id 0 cannot be published")
	}
	if name == "" {
		return fmt.Errorf("solidity: a published model needs a name")
	}
	for what, s := range map[string]string{"name": name, "metadata URI": metadataURI} {
		if len(s) > MaxCatalogText || !utf8.ValidString(s) {
			return fmt.Errorf("solidity: a model's %s must be UTF-8 of at most %d bytes", what, MaxCatalogText)
		}
	}
	return nil
}

// PackPublishModel returns the calldata of InferenceRegistry.publishModel.
func PackPublishModel(modelID *big.Int, name, metadataURI string) ([]byte, error) {
	if err := checkPublication(modelID, name, metadataURI); err != nil {
		return nil, err
	}
	data, err := registryABI.Pack("publishModel", modelID, name, metadataURI)
	if err != nil {
		return nil, fmt.Errorf("solidity: pack publishModel: %w", err)
	}
	return data, nil
}

// PublishModel sends InferenceRegistry.publishModel from the chain's
// account: it stands behind the model id, under the name and metadata URI.
// An id the account published already reverts with ModelPublishedAlready.
func (c *Chain) PublishModel(ctx context.Context, registry common.Address, modelID *big.Int, name, metadataURI string) (*types.Receipt, error) {
	data, err := PackPublishModel(modelID, name, metadataURI)
	if err != nil {
		return nil, err
	}
	return c.SubmitCalldata(ctx, registry, data)
}

// IsPublished asks the registry whether the publisher published the model
// id.
func IsPublished(ctx context.Context, backend bind.ContractCaller, registry, publisher common.Address, modelID *big.Int) (bool, error) {
	if err := checkField("model id", modelID); err != nil {
		return false, err
	}
	return callBool(ctx, backend, registry, "isPublished", publisher, modelID)
}

// PublicationEvents returns the ModelPublished events that the registry
// emitted in the receipt's transaction.
func PublicationEvents(receipt *types.Receipt, registry common.Address) ([]Publication, error) {
	event := registryABI.Events["ModelPublished"]
	var out []Publication
	for i, log := range receipt.Logs {
		if log.Address != registry || len(log.Topics) == 0 || log.Topics[0] != event.ID {
			continue
		}
		if len(log.Topics) != 3 {
			return nil, fmt.Errorf("solidity: log %d: ModelPublished with %d topics", i, len(log.Topics))
		}
		values, err := event.Inputs.NonIndexed().Unpack(log.Data)
		if err != nil || len(values) != 2 {
			return nil, fmt.Errorf("solidity: log %d: unpack ModelPublished: %v (%d fields)", i, err, len(values))
		}
		name, okName := values[0].(string)
		uri, okURI := values[1].(string)
		if !okName || !okURI {
			return nil, fmt.Errorf("solidity: log %d: ModelPublished fields have unexpected types", i)
		}
		out = append(out, Publication{Publisher: common.BytesToAddress(log.Topics[1][:]), ModelID: log.Topics[2].Big(), Name: name, MetadataURI: uri})
	}
	return out, nil
}
