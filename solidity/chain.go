package solidity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
)

// Backend is what a Chain needs from a node: calls, transactions and
// receipts. An ethclient.Client and a simulated.Client are Backends.
type Backend interface {
	bind.ContractBackend
	bind.DeployBackend
}

// Chain sends transactions from one account to a chain and waits for their
// receipts.
type Chain struct {
	backend Backend
	auth    *bind.TransactOpts
	// mine seals a block after each transaction on chains that do not
	// produce blocks by themselves (the simulated backend); nil otherwise.
	mine func()
	// poll is the interval between receipt queries.
	poll time.Duration
}

// NewChain returns a Chain over a node that produces blocks by itself.
func NewChain(backend Backend, auth *bind.TransactOpts) *Chain {
	return &Chain{backend: backend, auth: auth, poll: 200 * time.Millisecond}
}

// NewSimulatedChain returns a Chain over go-ethereum's simulated backend; a
// block is sealed after every transaction.
func NewSimulatedChain(sim *simulated.Backend, auth *bind.TransactOpts) *Chain {
	return &Chain{backend: sim.Client(), auth: auth, mine: func() { sim.Commit() }, poll: 10 * time.Millisecond}
}

// Backend returns the chain's backend.
func (c *Chain) Backend() Backend { return c.backend }

// From returns the address that sends the transactions.
func (c *Chain) From() common.Address { return c.auth.From }

// Deployment holds the addresses of a deployed verifier and registry and the
// gas their deployment used.
type Deployment struct {
	Verifier, Registry       common.Address
	VerifierGas, RegistryGas uint64
}

// DeployVerifierAndRegistry deploys the verifier, then an InferenceRegistry
// that trusts it and accepts only requiredModelID (nil or 0: any model id).
func (c *Chain) DeployVerifierAndRegistry(ctx context.Context, contracts *Contracts, requiredModelID *big.Int) (*Deployment, error) {
	if err := contracts.CheckCodeSize(); err != nil {
		return nil, err
	}
	verifier, verifierGas, err := c.deploy(ctx, contracts.Verifier.Bytecode, nil)
	if err != nil {
		return nil, fmt.Errorf("solidity: deploy verifier: %w", err)
	}
	args, err := registryConstructorArgs(verifier, requiredModelID)
	if err != nil {
		return nil, err
	}
	registry, registryGas, err := c.deploy(ctx, contracts.Registry.Bytecode, args)
	if err != nil {
		return nil, fmt.Errorf("solidity: deploy registry: %w", err)
	}
	return &Deployment{Verifier: verifier, Registry: registry, VerifierGas: verifierGas, RegistryGas: registryGas}, nil
}

func (c *Chain) deploy(ctx context.Context, bytecode, args []byte) (common.Address, uint64, error) {
	address, tx, err := bind.DeployContract(c.opts(ctx), bytecode, c.backend, args)
	if err != nil {
		return common.Address{}, 0, describeRevert(err)
	}
	receipt, err := c.wait(ctx, tx)
	if err != nil {
		return common.Address{}, 0, err
	}
	if receipt.ContractAddress != address {
		return common.Address{}, 0, fmt.Errorf("receipt names contract %s, want %s", receipt.ContractAddress, address)
	}
	if err := c.waitCode(ctx, address); err != nil {
		return common.Address{}, 0, err
	}
	return address, receipt.GasUsed, nil
}

// waitCode waits until the latest block the backend serves holds code at
// address. A node can answer a transaction's receipt before its head
// moves to the block that holds it: a gas estimate or a call against
// "latest" in between finds no code there (the registry's constructor
// then reverts with VerifierHasNoCode).
func (c *Chain) waitCode(ctx context.Context, address common.Address) error {
	ticker := time.NewTicker(c.poll)
	defer ticker.Stop()
	for {
		code, err := c.backend.CodeAt(ctx, address, nil)
		if err != nil {
			return fmt.Errorf("code of %s: %w", address, err)
		}
		if len(code) > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("code of %s: %w", address, ctx.Err())
		case <-ticker.C:
		}
	}
}

// Submit sends InferenceRegistry.submit for a proof of the list and
// returns the receipt of the mined transaction. A proof the verifier
// rejects makes gas estimation fail (the error names the verifier's revert
// reason) or, when the transactor fixes the gas limit, the transaction
// revert (ErrReverted); so does a turn whose state in is unknown
// (UnknownState). A list recorded already is mined without effect.
func (c *Chain) Submit(ctx context.Context, registry common.Address, proof groth16.Proof, l List) (*types.Receipt, error) {
	data, err := PackSubmit(proof, l)
	if err != nil {
		return nil, err
	}
	return c.SubmitCalldata(ctx, registry, data)
}

// SubmitCalldata sends a transaction with the given calldata (as built by
// [PackSubmit]) to the registry and waits for its receipt.
func (c *Chain) SubmitCalldata(ctx context.Context, registry common.Address, data []byte) (*types.Receipt, error) {
	contract := bind.NewBoundContract(registry, registryABI, c.backend, c.backend, c.backend)
	tx, err := contract.RawTransact(c.opts(ctx), data)
	if err != nil {
		return nil, fmt.Errorf("solidity: submit: %w", describeRevert(err))
	}
	receipt, err := c.wait(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("solidity: submit: %w", err)
	}
	return receipt, nil
}

// ErrReverted is returned when a mined transaction failed.
var ErrReverted = errors.New("transaction reverted")

// wait seals a block when the chain needs it and waits for the receipt of
// tx; a failed transaction is ErrReverted.
func (c *Chain) wait(ctx context.Context, tx *types.Transaction) (*types.Receipt, error) {
	if c.mine != nil {
		c.mine()
	}
	ticker := time.NewTicker(c.poll)
	defer ticker.Stop()
	for {
		receipt, err := c.backend.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if receipt.Status != types.ReceiptStatusSuccessful {
				return receipt, fmt.Errorf("%w: %s (gas used %d)", ErrReverted, tx.Hash(), receipt.GasUsed)
			}
			return receipt, nil
		}
		if !errors.Is(err, ethereum.NotFound) && !isIndexing(err) {
			return nil, fmt.Errorf("receipt of %s: %w", tx.Hash(), err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("receipt of %s: %w", tx.Hash(), ctx.Err())
		case <-ticker.C:
		}
	}
}

// txIndexing is the data of the error a go-ethereum node returns for a
// receipt while its transaction index is catching up with a new block.
const txIndexing = "transaction indexing is in progress"

// isIndexing reports whether a receipt query failed only because the node
// has not indexed the latest block yet.
func isIndexing(err error) bool {
	var dataErr interface{ ErrorData() any }
	if !errors.As(err, &dataErr) {
		return false
	}
	data, ok := dataErr.ErrorData().(string)
	return ok && data == txIndexing
}

// opts copies the transactor with the context set.
func (c *Chain) opts(ctx context.Context) *bind.TransactOpts {
	opts := *c.auth
	opts.Context = ctx
	return &opts
}

// EstimateVerifyGas estimates the gas of a transaction calling the
// verifier's verifyProof directly (intrinsic cost and calldata included);
// it fails if the verifier rejects the proof.
func EstimateVerifyGas(ctx context.Context, backend Backend, verifier common.Address, proof groth16.Proof, l List) (uint64, error) {
	data, err := PackVerifyProof(proof, l)
	if err != nil {
		return 0, err
	}
	gas, err := backend.EstimateGas(ctx, ethereum.CallMsg{To: &verifier, Data: data})
	if err != nil {
		return 0, fmt.Errorf("solidity: estimate verifyProof: %w", describeRevert(err))
	}
	return gas, nil
}

// VerifyProofGasUsed sends a transaction calling the verifier's
// verifyProof directly and returns the gas it used (intrinsic cost and
// calldata included): what verifying the proof costs, where
// [EstimateVerifyGas] is the gas limit the transaction needs, a few
// thousand more because a call forwards at most 63/64 of the gas left
// (EIP-150) and the pairing precompile needs its whole price forwarded.
func (c *Chain) VerifyProofGasUsed(ctx context.Context, verifier common.Address, proof groth16.Proof, l List) (uint64, error) {
	data, err := PackVerifyProof(proof, l)
	if err != nil {
		return 0, err
	}
	contract := bind.NewBoundContract(verifier, verifierABI, c.backend, c.backend, c.backend)
	tx, err := contract.RawTransact(c.opts(ctx), data)
	if err != nil {
		return 0, fmt.Errorf("solidity: verifyProof: %w", describeRevert(err))
	}
	receipt, err := c.wait(ctx, tx)
	if err != nil {
		return 0, fmt.Errorf("solidity: verifyProof: %w", err)
	}
	return receipt.GasUsed, nil
}

// RevertError is a call or transaction that the EVM reverted, with the
// decoded reason when the revert data names a known error.
type RevertError struct {
	// Reason is the Solidity error, e.g. "ProofInvalid()" or
	// "UnexpectedModelId(1, 2)", or the hex revert data if it is unknown.
	Reason string
	Err    error
}

func (e *RevertError) Error() string { return fmt.Sprintf("reverted with %s: %v", e.Reason, e.Err) }
func (e *RevertError) Unwrap() error { return e.Err }

// describeRevert turns an error carrying revert data into a *RevertError.
func describeRevert(err error) error {
	var dataErr interface{ ErrorData() any }
	if !errors.As(err, &dataErr) {
		return err
	}
	encoded, ok := dataErr.ErrorData().(string)
	if !ok {
		return err
	}
	data, decodeErr := hexutil.Decode(encoded)
	if decodeErr != nil {
		return err
	}
	return &RevertError{Reason: RevertReason(data), Err: err}
}

// RevertReason decodes revert data: a custom error of the registry or the
// verifier, a Solidity Error(string), or else the data in hex.
func RevertReason(data []byte) string {
	if message, err := abi.UnpackRevert(data); err == nil {
		return fmt.Sprintf("Error(%q)", message)
	}
	if len(data) >= 4 {
		for _, contractABI := range []*abi.ABI{&registryABI, &verifierABI} {
			for _, abiErr := range contractABI.Errors {
				if !bytes.Equal(abiErr.ID[:4], data[:4]) {
					continue
				}
				values, err := abiErr.Inputs.Unpack(data[4:])
				if err != nil {
					continue
				}
				return formatError(abiErr.Name, values)
			}
		}
	}
	return hexutil.Encode(data)
}

// formatError prints a Solidity error with its values, a bytes32 in
// hexadecimal.
func formatError(name string, values []any) string {
	var b bytes.Buffer
	b.WriteString(name)
	b.WriteByte('(')
	for i, value := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		if word, ok := value.([32]byte); ok {
			value = common.Hash(word) // bytes32 in hexadecimal
		}
		fmt.Fprint(&b, value)
	}
	b.WriteByte(')')
	return b.String()
}
