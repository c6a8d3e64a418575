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

// DialChain connects to a JSON-RPC endpoint and returns a Chain that signs
// with key for the endpoint's chain id. Close the returned client when done.
func DialChain(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey) (*Chain, *ethclient.Client, error) {
	if key == nil {
		return nil, nil, errors.New("solidity: no signing key")
	}
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return nil, nil, fmt.Errorf("solidity: dial %s: %w", rpcURL, err)
	}
	chainID, err := client.ChainID(ctx)
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("solidity: chain id of %s: %w", rpcURL, err)
	}
	return NewChain(client, bind.NewKeyedTransactor(key, chainID)), client, nil
}

// DeployRPC deploys the verifier and the registry through a JSON-RPC
// endpoint (see [Chain.DeployVerifierAndRegistry]).
func DeployRPC(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, contracts *Contracts, requiredModelID *big.Int) (*Deployment, error) {
	chain, client, err := DialChain(ctx, rpcURL, key)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	return chain.DeployVerifierAndRegistry(ctx, contracts, requiredModelID)
}

// SubmitRPC submits a proof of the statement to the registry through a
// JSON-RPC endpoint and returns the receipt (see [Chain.Submit]).
func SubmitRPC(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, registry common.Address, proof groth16.Proof, statement Statement) (*types.Receipt, error) {
	chain, client, err := DialChain(ctx, rpcURL, key)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	return chain.Submit(ctx, registry, proof, statement)
}

// IsVerifiedRPC asks the registry behind a JSON-RPC endpoint whether the
// statement was proven.
func IsVerifiedRPC(ctx context.Context, rpcURL string, registry common.Address, statement Statement) (bool, error) {
	client, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return false, fmt.Errorf("solidity: dial %s: %w", rpcURL, err)
	}
	defer client.Close()
	return IsVerified(ctx, client, registry, statement)
}
