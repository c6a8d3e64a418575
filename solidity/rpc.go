package solidity

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

// PrivateKeyEnv names the environment variable holding a hex private key,
// used when no keystore file is given. Keys never travel in command lines.
const PrivateKeyEnv = "VERIFORMER_PRIVATE_KEY"

// LoadKey returns the signing key: decrypted from an encrypted JSON
// keystore file with the password on the first line of passwordFile (geth's
// and Foundry's --keystore/--password convention), or, when keystoreFile is
// empty, read from the environment variable [PrivateKeyEnv].
func LoadKey(keystoreFile, passwordFile string) (*ecdsa.PrivateKey, error) {
	if keystoreFile == "" {
		if passwordFile != "" {
			return nil, errors.New("solidity: a password file was given without a keystore file")
		}
		encoded, ok := os.LookupEnv(PrivateKeyEnv)
		if !ok || encoded == "" {
			return nil, fmt.Errorf("solidity: no keystore file given and %s is not set", PrivateKeyEnv)
		}
		key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(encoded), "0x"))
		if err != nil {
			// The error of HexToECDSA never contains the key itself.
			return nil, fmt.Errorf("solidity: %s: %w", PrivateKeyEnv, err)
		}
		return key, nil
	}
	encrypted, err := os.ReadFile(keystoreFile)
	if err != nil {
		return nil, fmt.Errorf("solidity: read keystore: %w", err)
	}
	if passwordFile == "" {
		return nil, errors.New("solidity: a keystore file needs a password file")
	}
	passwordText, err := os.ReadFile(passwordFile)
	if err != nil {
		return nil, fmt.Errorf("solidity: read password file: %w", err)
	}
	password, _, _ := strings.Cut(string(passwordText), "\n")
	password = strings.TrimRight(password, "\r")
	key, err := keystore.DecryptKey(encrypted, password)
	if err != nil {
		return nil, fmt.Errorf("solidity: decrypt keystore %s: %w", keystoreFile, err)
	}
	return key.PrivateKey, nil
}

// ChainIDMismatchError is returned when the endpoint serves another chain
// than the one the caller pinned: signing for it would spend funds there.
type ChainIDMismatchError struct {
	Want, Endpoint *big.Int
}

func (e *ChainIDMismatchError) Error() string {
	return fmt.Sprintf("solidity: the endpoint serves chain id %s, not the pinned %s", e.Endpoint, e.Want)
}

// ChainID turns a command-line chain id into the argument of [DialChain],
// [DeployRPC] and [SubmitRPC]: nil (sign for the endpoint's chain) for 0.
func ChainID(id uint64) *big.Int {
	if id == 0 {
		return nil
	}
	return new(big.Int).SetUint64(id)
}

// DialChain connects to a JSON-RPC endpoint and returns a Chain that signs
// with key for chainID. A nil chainID signs for whatever chain the endpoint
// reports; a chainID that differs from the endpoint's is refused
// (*ChainIDMismatchError) before anything is signed. Close the returned
// client when done.
func DialChain(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, chainID *big.Int) (*Chain, *ethclient.Client, error) {
	if key == nil {
		return nil, nil, errors.New("solidity: no signing key")
	}
	if chainID != nil && chainID.Sign() <= 0 {
		return nil, nil, fmt.Errorf("solidity: chain id %s is not positive", chainID)
	}
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return nil, nil, fmt.Errorf("solidity: dial %s: %w", rpcURL, err)
	}
	endpoint, err := client.ChainID(ctx)
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("solidity: chain id of %s: %w", rpcURL, err)
	}
	if chainID != nil && chainID.Cmp(endpoint) != 0 {
		client.Close()
		return nil, nil, &ChainIDMismatchError{Want: new(big.Int).Set(chainID), Endpoint: endpoint}
	}
	return NewChain(client, bind.NewKeyedTransactor(key, endpoint)), client, nil
}

// DeployRPC deploys the verifier and the registry through a JSON-RPC
// endpoint (see [Chain.DeployVerifierAndRegistry]), signing for chainID
// (see [DialChain]).
func DeployRPC(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, chainID *big.Int, contracts *Contracts, requiredModelID *big.Int) (*Deployment, error) {
	chain, client, err := DialChain(ctx, rpcURL, key, chainID)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	return chain.DeployVerifierAndRegistry(ctx, contracts, requiredModelID)
}

// SubmitRPC submits a proof of the list to the registry through a
// JSON-RPC endpoint and returns the receipt (see [Chain.Submit]), signing
// for chainID (see [DialChain]).
func SubmitRPC(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, chainID *big.Int, registry common.Address, proof groth16.Proof, l List) (*types.Receipt, error) {
	chain, client, err := DialChain(ctx, rpcURL, key, chainID)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	return chain.Submit(ctx, registry, proof, l)
}

// IsVerifiedRPC asks the registry behind a JSON-RPC endpoint whether the
// list's i-th leaf was proven (see [IsVerified]).
func IsVerifiedRPC(ctx context.Context, rpcURL string, registry common.Address, l List, i int) (bool, error) {
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return false, fmt.Errorf("solidity: dial %s: %w", rpcURL, err)
	}
	defer client.Close()
	return IsVerified(ctx, client, registry, l, i)
}
