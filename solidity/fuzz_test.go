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
		if decoded.Submitter != redecoded.Submitter || decoded.Leaf.String() != redecoded.Leaf.String() || decoded.ModelID.Cmp(redecoded.ModelID) != 0 {
			t.Fatalf("decode → encode → decode differs: %+v, %+v", decoded, redecoded)
		}
		if decoded.Leaf.Kind != statement.KindRequest {
			t.Fatalf("decoded a %v", decoded.Leaf.Kind)
		}
		for i, word := range []*big.Int{decoded.ModelID, decoded.Leaf.Input, decoded.Leaf.Output} {
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

// FuzzRegistryEvents decodes TurnVerified, ListVerified and ModelPublished
// logs of any data: either an error or the values the log holds, never a
// panic; a decoded event encodes back to its data.
func FuzzRegistryEvents(f *testing.F) {
	turn := registryABI.Events["TurnVerified"]
	list := registryABI.Events["ListVerified"]
	published := registryABI.Events["ModelPublished"]
	submitter := common.HexToAddress("0x1234")
	seeds := [][]any{
		{turn, big.NewInt(11), big.NewInt(12), submitter},
		{list, big.NewInt(32), submitter},
		{published, "micro", "ipfs://card"},
	}
	for i, seed := range seeds {
		data, err := seed[0].(abi.Event).Inputs.NonIndexed().Pack(seed[1:]...)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(i))
		f.Add([]byte{}, uint8(i))
	}
	registry := common.HexToAddress("0xabcd")
	receipt := func(id common.Hash, topics []common.Hash, data []byte) *types.Receipt {
		log := &types.Log{Address: registry, Topics: append([]common.Hash{id}, topics...), Data: data}
		return &types.Receipt{Logs: []*types.Log{log}}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		switch which % 3 {
		case 0:
			events, err := TurnEvents(receipt(turn.ID, []common.Hash{{1}, {2}, {3}}, data), registry)
			if err != nil {
				return
			}
			e := events[0]
			if len(events) != 1 || e.ModelID.Cmp(common.Hash{1}.Big()) != 0 || e.Leaf.Kind != statement.KindTurn ||
				e.Leaf.StateIn.Cmp(common.Hash{2}.Big()) != 0 || e.Leaf.StateOut.Cmp(common.Hash{3}.Big()) != 0 {
				t.Fatalf("decoded %+v", events)
			}
			again, err := turn.Inputs.NonIndexed().Pack(e.Leaf.Input, e.Leaf.Output, e.Submitter)
			if err != nil {
				t.Fatal(err)
			}
			redecoded, err := TurnEvents(receipt(turn.ID, []common.Hash{{1}, {2}, {3}}, again), registry)
			if err != nil || len(redecoded) != 1 || redecoded[0].Leaf.String() != e.Leaf.String() || redecoded[0].Submitter != e.Submitter {
				t.Fatalf("decode → encode → decode differs: %+v, %+v (%v)", e, redecoded, err)
			}
		case 1:
			events, err := ListEvents(receipt(list.ID, []common.Hash{{1}, {2}}, data), registry)
			if err != nil {
				return
			}
			if len(events) != 1 || events[0].Root != (common.Hash{1}) || events[0].ModelID.Cmp(common.Hash{2}.Big()) != 0 || events[0].Count < 1 || events[0].Count > statement.MaxLeaves {
				t.Fatalf("decoded %+v", events)
			}
		default:
			events, err := PublicationEvents(receipt(published.ID, []common.Hash{common.BytesToHash(common.HexToAddress("0x99").Bytes()), {3}}, data), registry)
			if err != nil {
				return
			}
			if len(events) != 1 || events[0].Publisher != common.HexToAddress("0x99") || events[0].ModelID.Cmp(common.Hash{3}.Big()) != 0 {
				t.Fatalf("decoded %+v", events)
			}
		}
	})
}
