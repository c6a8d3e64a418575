package solidity

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/veriformer/veriformer/statement"
)

// Turn is what the final proof of one turn of a conversation proves
// (statement.Turn): the model ModelID, holding the conversation in state
// StateIn, on the input whose digest is InputDigest, produced the output
// whose digest is OutputDigest and left the state StateOut. On chain each
// value is an integer in [0, r) ([ValidateTurn]); the proof's one public
// input is the turn digest, which the registry recomputes.
type Turn = statement.Turn

// turnWords returns the five values of t in the registry's order.
func turnWords(t Turn) [5]*big.Int {
	return [5]*big.Int{t.ModelID, t.StateIn, t.InputDigest, t.OutputDigest, t.StateOut}
}

// ValidateTurn checks that every value of t is set and reduced modulo r,
// and that the state out is not the empty state (the registry refuses it).
func ValidateTurn(t Turn) error {
	names := [5]string{"model id", "state in", "input digest", "output digest", "state out"}
	for i, word := range turnWords(t) {
		if err := checkField(names[i], word); err != nil {
			return err
		}
	}
	if t.StateOut.Sign() == 0 {
		return fmt.Errorf("solidity: a turn's state out is the empty state 0")
	}
	return nil
}

// PackSubmitTurn returns the calldata of InferenceRegistry.submitTurn for a
// proof of the turn.
func PackSubmitTurn(proof groth16.Proof, t Turn) ([]byte, error) {
	encoded, err := ProofBytes(proof)
	if err != nil {
		return nil, err
	}
	return PackSubmitTurnBytes(encoded, t)
}

// PackSubmitTurnBytes is [PackSubmitTurn] for a proof already encoded
// ([ProofBytes]): 256 or 384 bytes.
func PackSubmitTurnBytes(proof []byte, t Turn) ([]byte, error) {
	if err := checkEncodedProof(proof); err != nil {
		return nil, err
	}
	if err := ValidateTurn(t); err != nil {
		return nil, err
	}
	w := turnWords(t)
	data, err := registryABI.Pack("submitTurn", proof, w[0], w[1], w[2], w[3], w[4])
	if err != nil {
		return nil, fmt.Errorf("solidity: pack submitTurn: %w", err)
	}
	return data, nil
}

// SubmitTurn sends InferenceRegistry.submitTurn for a proof of the turn and
// returns the receipt of the mined transaction. A turn whose state in no
// recorded turn of the model left (and not the empty state) reverts with
// UnknownState; a proof the verifier rejects fails as in [Chain.Submit].
func (c *Chain) SubmitTurn(ctx context.Context, registry common.Address, proof groth16.Proof, t Turn) (*types.Receipt, error) {
	data, err := PackSubmitTurn(proof, t)
	if err != nil {
		return nil, err
	}
	return c.SubmitCalldata(ctx, registry, data)
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

// IsTurnVerified asks the registry whether the turn was proven.
func IsTurnVerified(ctx context.Context, backend bind.ContractCaller, registry common.Address, t Turn) (bool, error) {
	if err := ValidateTurn(t); err != nil {
		return false, err
	}
	w := turnWords(t)
	return callBool(ctx, backend, registry, "isTurnVerified", w[0], w[1], w[2], w[3], w[4])
}

// IsState asks the registry whether a recorded turn of the model left the
// state, so that a next turn may start from it.
func IsState(ctx context.Context, backend bind.ContractCaller, registry common.Address, modelID, state *big.Int) (bool, error) {
	if err := checkField("model id", modelID); err != nil {
		return false, err
	}
	if err := checkField("state", state); err != nil {
		return false, err
	}
	return callBool(ctx, backend, registry, "isState", modelID, state)
}

// TurnVerified is one TurnVerified event of the registry.
type TurnVerified struct {
	Turn      Turn
	Submitter common.Address
}

// TurnEvents returns the TurnVerified events that the registry emitted in
// the receipt's transaction: the model id and the states are the indexed
// topics, the digests and the submitter the data.
func TurnEvents(receipt *types.Receipt, registry common.Address) ([]TurnVerified, error) {
	event := registryABI.Events["TurnVerified"]
	var out []TurnVerified
	for i, log := range receipt.Logs {
		if log.Address != registry || len(log.Topics) == 0 || log.Topics[0] != event.ID {
			continue
		}
		if len(log.Topics) != 4 {
			return nil, fmt.Errorf("solidity: log %d: TurnVerified with %d topics", i, len(log.Topics))
		}
		values, err := event.Inputs.NonIndexed().Unpack(log.Data)
		if err != nil || len(values) != 3 {
			return nil, fmt.Errorf("solidity: log %d: unpack TurnVerified: %v (%d fields)", i, err, len(values))
		}
		in, okIn := values[0].(*big.Int)
		outDigest, okOut := values[1].(*big.Int)
		submitter, okSub := values[2].(common.Address)
		if !okIn || !okOut || !okSub {
			return nil, fmt.Errorf("solidity: log %d: TurnVerified fields have unexpected types", i)
		}
		out = append(out, TurnVerified{
			Turn:      Turn{ModelID: log.Topics[1].Big(), StateIn: log.Topics[2].Big(), InputDigest: in, OutputDigest: outDigest, StateOut: log.Topics[3].Big()},
			Submitter: submitter,
		})
	}
	return out, nil
}
