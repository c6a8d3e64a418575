package solidity

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/veriformer/veriformer/statement"
)

// FuzzRevertReason decodes arbitrary revert data: it must not panic, and
// known errors must round-trip.
func FuzzRevertReason(f *testing.F) {
	for _, e := range verifierABI.Errors {
		f.Add(bytes.Clone(e.ID[:4]))
	}
	unexpected, err := registryABI.Errors["UnexpectedModelId"].Inputs.Pack(big.NewInt(1), big.NewInt(2))
	if err != nil {
		f.Fatal(err)
	}
	selector := registryABI.Errors["UnexpectedModelId"].ID
	f.Add(append(bytes.Clone(selector[:4]), unexpected...))
	f.Add([]byte{0x08, 0xc3, 0x79, 0xa0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		reason := RevertReason(data)
		if reason == hexutil.Encode(data) || strings.HasPrefix(reason, "Error(") {
			return
		}
		// Otherwise the reason names a known error whose selector starts the data.
		name, _, _ := strings.Cut(reason, "(")
		for _, contractABI := range []abi.ABI{registryABI, verifierABI} {
			if e, ok := contractABI.Errors[name]; ok && bytes.Equal(e.ID[:4], data[:4]) {
				return
			}
		}
		t.Fatalf("reason %q for data %x names no matching error", reason, data)
	})
}

// FuzzEvents decodes arbitrary log data and topics as an InferenceVerified
// event.
func FuzzEvents(f *testing.F) {
	event := registryABI.Events["InferenceVerified"]
	data, err := event.Inputs.NonIndexed().Pack(common.HexToAddress("0x1234"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, []byte{1}, []byte{2}, []byte{3})
	f.Add([]byte{}, []byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, data, modelID, input, output []byte) {
		topics := []common.Hash{event.ID, common.BytesToHash(modelID), common.BytesToHash(input), common.BytesToHash(output)}
		decoded, err := unpackInferenceVerified(topics, data)
		if err != nil {
			return
		}
		again, err := event.Inputs.NonIndexed().Pack(decoded.Submitter)
		if err != nil {
			t.Fatal(err)
		}
		redecoded, err := unpackInferenceVerified(topics, again)
		if err != nil {
			t.Fatal(err)
		}
		if !sameStatement(decoded.Statement, redecoded.Statement) || decoded.Submitter != redecoded.Submitter {
			t.Fatalf("decode → encode → decode differs: %+v, %+v", decoded, redecoded)
		}
		for i, word := range words(decoded.Statement) {
			if common.BigToHash(word) != topics[1+i] {
				t.Fatalf("value %d is %#x, topic %s", i, word, topics[1+i])
			}
		}
	})
}

// FuzzParseStandardOutput reads arbitrary compiler output.
func FuzzParseStandardOutput(f *testing.F) {
	f.Add([]byte(`{"contracts":{"a.sol":{"A":{"abi":[],"evm":{"bytecode":{"object":"6000"},"deployedBytecode":{"object":"00"}}}}}}`))
	f.Add([]byte(`>>> notice` + "\n" + `{"errors":[{"severity":"error","formattedMessage":"boom"}]}`))
	f.Add([]byte(`{"contracts":{"a.sol":{"A":{"abi":[],"evm":{"bytecode":{"object":"zz"}}}}}}`))
	f.Fuzz(func(t *testing.T, out []byte) {
		artifacts, err := parseStandardOutput(out)
		if err != nil {
			return
		}
		for name, artifact := range artifacts {
			if artifact.Name != name || len(artifact.Bytecode) == 0 {
				t.Fatalf("artifact %q: %+v", name, artifact)
			}
		}
	})
}

// FuzzBatchEvents decodes BatchVerified and ModelPublished logs of any
// data: either an error or the values the log holds, never a panic.
func FuzzBatchEvents(f *testing.F) {
	batch := registryABI.Events["BatchVerified"]
	data, err := batch.Inputs.NonIndexed().Pack(big.NewInt(32), common.HexToAddress("0x1234"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, true)
	published := registryABI.Events["ModelPublished"]
	data, err = published.Inputs.NonIndexed().Pack("micro", "ipfs://card")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, false)
	f.Add([]byte{}, true)
	f.Add([]byte{}, false)
	registry := common.HexToAddress("0xabcd")
	f.Fuzz(func(t *testing.T, data []byte, isBatch bool) {
		if isBatch {
			log := &types.Log{Address: registry, Topics: []common.Hash{batch.ID, {1}, {2}}, Data: data}
			events, err := BatchEvents(&types.Receipt{Logs: []*types.Log{log}}, registry)
			if err != nil {
				return
			}
			if len(events) != 1 || events[0].Root != (common.Hash{1}) || events[0].ModelID.Cmp(common.Hash{2}.Big()) != 0 || events[0].Count < 0 || events[0].Count > statement.MaxBatch {
				t.Fatalf("decoded %+v", events)
			}
			return
		}
		log := &types.Log{Address: registry, Topics: []common.Hash{published.ID, common.BytesToHash(common.HexToAddress("0x99").Bytes()), {3}}, Data: data}
		events, err := PublicationEvents(&types.Receipt{Logs: []*types.Log{log}}, registry)
		if err != nil {
			return
		}
		if len(events) != 1 || events[0].Publisher != common.HexToAddress("0x99") || events[0].ModelID.Cmp(common.Hash{3}.Big()) != 0 {
			t.Fatalf("decoded %+v", events)
		}
	})
}
