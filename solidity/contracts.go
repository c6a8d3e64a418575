package solidity

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math/big"
	"strings"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Source file names used when compiling.
const (
	VerifierFile = "Verifier.sol"
	RegistryFile = "InferenceRegistry.sol"
)

// RegistrySource is the Solidity source of the InferenceRegistry contract.
//
//go:embed contracts/InferenceRegistry.sol
var RegistrySource string

// RegistryABI is the JSON ABI of InferenceRegistry. It is written out here so
// that submitting and querying need no compiler; a test checks it against
// the compiled contract.
const RegistryABI = `[
{"type":"constructor","stateMutability":"nonpayable","inputs":[{"name":"verifier_","type":"address","internalType":"address"},{"name":"requiredModelId_","type":"uint256","internalType":"uint256"}]},
{"type":"function","name":"submit","stateMutability":"nonpayable","inputs":[{"name":"proof","type":"bytes","internalType":"bytes"},{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"leaves","type":"uint256[]","internalType":"uint256[]"}],"outputs":[]},
{"type":"function","name":"isVerified","stateMutability":"view","inputs":[{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"leaf","type":"uint256[]","internalType":"uint256[]"},{"name":"index","type":"uint256","internalType":"uint256"},{"name":"path","type":"bytes32[]","internalType":"bytes32[]"}],"outputs":[{"name":"","type":"bool","internalType":"bool"}]},
{"type":"function","name":"isRecorded","stateMutability":"view","inputs":[{"name":"root","type":"bytes32","internalType":"bytes32"}],"outputs":[{"name":"","type":"bool","internalType":"bool"}]},
{"type":"function","name":"isState","stateMutability":"view","inputs":[{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"state","type":"uint256","internalType":"uint256"}],"outputs":[{"name":"","type":"bool","internalType":"bool"}]},
{"type":"function","name":"listDigest","stateMutability":"pure","inputs":[{"name":"leaves","type":"uint256[]","internalType":"uint256[]"}],"outputs":[{"name":"","type":"uint256","internalType":"uint256"}]},
{"type":"function","name":"statementDigest","stateMutability":"pure","inputs":[{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"leaves","type":"uint256[]","internalType":"uint256[]"}],"outputs":[{"name":"","type":"uint256","internalType":"uint256"}]},
{"type":"function","name":"listRoot","stateMutability":"pure","inputs":[{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"leaves","type":"uint256[]","internalType":"uint256[]"}],"outputs":[{"name":"","type":"bytes32","internalType":"bytes32"}]},
{"type":"function","name":"MAX_LEAVES","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint256","internalType":"uint256"}]},
{"type":"function","name":"verifier","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address","internalType":"contract IInferenceVerifier"}]},
{"type":"function","name":"requiredModelId","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint256","internalType":"uint256"}]},
{"type":"function","name":"publishModel","stateMutability":"nonpayable","inputs":[{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"name","type":"string","internalType":"string"},{"name":"metadataURI","type":"string","internalType":"string"}],"outputs":[]},
{"type":"function","name":"isPublished","stateMutability":"view","inputs":[{"name":"publisher","type":"address","internalType":"address"},{"name":"modelId","type":"uint256","internalType":"uint256"}],"outputs":[{"name":"","type":"bool","internalType":"bool"}]},
{"type":"event","name":"InferenceVerified","anonymous":false,"inputs":[{"name":"modelId","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"inputDigest","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"outputDigest","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"submitter","type":"address","indexed":false,"internalType":"address"}]},
{"type":"event","name":"TurnVerified","anonymous":false,"inputs":[{"name":"modelId","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"stateIn","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"stateOut","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"inputDigest","type":"uint256","indexed":false,"internalType":"uint256"},{"name":"outputDigest","type":"uint256","indexed":false,"internalType":"uint256"},{"name":"submitter","type":"address","indexed":false,"internalType":"address"}]},
{"type":"event","name":"ListVerified","anonymous":false,"inputs":[{"name":"root","type":"bytes32","indexed":true,"internalType":"bytes32"},{"name":"modelId","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"count","type":"uint256","indexed":false,"internalType":"uint256"},{"name":"submitter","type":"address","indexed":false,"internalType":"address"}]},
{"type":"event","name":"ModelPublished","anonymous":false,"inputs":[{"name":"publisher","type":"address","indexed":true,"internalType":"address"},{"name":"modelId","type":"uint256","indexed":true,"internalType":"uint256"},{"name":"name","type":"string","indexed":false,"internalType":"string"},{"name":"metadataURI","type":"string","indexed":false,"internalType":"string"}]},
{"type":"error","name":"ListSize","inputs":[{"name":"words","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"UnknownKind","inputs":[{"name":"index","type":"uint256","internalType":"uint256"},{"name":"kind","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"TruncatedLeaf","inputs":[{"name":"index","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"EmptyStateOut","inputs":[{"name":"index","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"UnknownState","inputs":[{"name":"modelId","type":"uint256","internalType":"uint256"},{"name":"stateIn","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"ModelPublishedAlready","inputs":[{"name":"publisher","type":"address","internalType":"address"},{"name":"modelId","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"ZeroModelId","inputs":[]},
{"type":"error","name":"UnexpectedModelId","inputs":[{"name":"expected","type":"uint256","internalType":"uint256"},{"name":"got","type":"uint256","internalType":"uint256"}]},
{"type":"error","name":"VerifierHasNoCode","inputs":[{"name":"verifier","type":"address","internalType":"address"}]}
]`

// VerifierABI is the part of the exported verifier's ABI that is called
// here, with the errors it reverts with.
const VerifierABI = `[
{"type":"function","name":"verifyProof","stateMutability":"view","inputs":[{"name":"proof","type":"bytes","internalType":"bytes"},{"name":"input","type":"uint256[1]","internalType":"uint256[1]"}],"outputs":[]},
{"type":"error","name":"ProofInvalid","inputs":[]},
{"type":"error","name":"PublicInputNotInField","inputs":[]},
{"type":"error","name":"CommitmentInvalid","inputs":[]}
]`

var (
	registryABI = mustParseABI(RegistryABI)
	verifierABI = mustParseABI(VerifierABI)
)

// mustParseABI parses an ABI constant of this package; it fails only if the
// constant itself is malformed, which the tests rule out.
func mustParseABI(definition string) abi.ABI {
	parsed, err := abi.JSON(strings.NewReader(definition))
	if err != nil {
		panic(fmt.Sprintf("solidity: ABI constant: %v", err))
	}
	return parsed
}

// Contracts are the compiled verifier and registry of one verifying key.
type Contracts struct {
	// VerifierSource is the exported Solidity verifier.
	VerifierSource string
	Verifier       *Artifact
	Registry       *Artifact
}

// CompileContracts exports the [Merged] verifier of vk and compiles it
// together with InferenceRegistry (see [Compile]).
func CompileContracts(ctx context.Context, vk groth16.VerifyingKey) (*Contracts, error) {
	return CompileContractsTemplate(ctx, vk, Merged)
}

// CompileContractsTemplate exports the verifier of vk from the given
// template and compiles it together with InferenceRegistry.
func CompileContractsTemplate(ctx context.Context, vk groth16.VerifyingKey, template Template) (*Contracts, error) {
	var source bytes.Buffer
	if err := ExportVerifierTemplate(vk, &source, template); err != nil {
		return nil, err
	}
	artifacts, err := Compile(ctx, map[string]string{VerifierFile: source.String(), RegistryFile: RegistrySource})
	if err != nil {
		return nil, err
	}
	return ContractsFrom(artifacts, VerifierFile, source.String())
}

// ContractsFrom picks the verifier compiled from verifierFile and the
// registry out of the artifacts of one [Compile] call.
func ContractsFrom(artifacts map[string]*Artifact, verifierFile, verifierSource string) (*Contracts, error) {
	verifier, ok := artifacts[verifierFile+":Verifier"]
	if !ok {
		return nil, fmt.Errorf("solidity: no contract Verifier in %s", verifierFile)
	}
	registry, ok := artifacts[RegistryFile+":InferenceRegistry"]
	if !ok {
		return nil, fmt.Errorf("solidity: no contract InferenceRegistry in %s", RegistryFile)
	}
	return &Contracts{VerifierSource: verifierSource, Verifier: verifier, Registry: registry}, nil
}

// CheckCodeSize reports an error when a contract's deployed code exceeds
// the EIP-170 limit of [MaxCodeSize] bytes.
func (c *Contracts) CheckCodeSize() error {
	for _, artifact := range []*Artifact{c.Verifier, c.Registry} {
		if n := len(artifact.DeployedBytecode); n > MaxCodeSize {
			return fmt.Errorf("solidity: %s deployed code is %d bytes, over the %d-byte limit", artifact.Name, n, MaxCodeSize)
		}
	}
	return nil
}

// registryConstructorArgs encodes InferenceRegistry's constructor arguments.
func registryConstructorArgs(verifier common.Address, requiredModelID *big.Int) ([]byte, error) {
	if requiredModelID == nil {
		requiredModelID = new(big.Int)
	}
	if err := checkField("required model id", requiredModelID); err != nil {
		return nil, err
	}
	args, err := registryABI.Pack("", verifier, requiredModelID)
	if err != nil {
		return nil, fmt.Errorf("solidity: registry constructor arguments: %w", err)
	}
	return args, nil
}
