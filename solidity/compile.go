package solidity

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

const (
	// SolcVersion is the version of the npm package solc (solcjs) that
	// scripts/setup-solc.sh installs and the contracts are tested with.
	SolcVersion = "0.8.37"

	// EVMVersion is the EVM version the contracts are compiled for. Cancun
	// is supported by Ethereum mainnet, its test networks and the major
	// rollups; nothing in the verifier needs a later fork.
	EVMVersion = "cancun"

	// OptimizerRuns is solc's optimizer setting: the contracts are called
	// far more often than deployed.
	OptimizerRuns = 200

	// SolcjsEnv names the environment variable that overrides the path of
	// the solcjs executable.
	SolcjsEnv = "VERIFORMER_SOLCJS"

	// MaxCodeSize is the EIP-170 limit on deployed bytecode.
	MaxCodeSize = 24576
)

// Artifact is one compiled contract.
type Artifact struct {
	// Name is "file:Contract", as solc names it.
	Name string
	// ABI is the contract's JSON ABI, parsed.
	ABI abi.ABI
	// ABIJSON is the JSON ABI as solc printed it.
	ABIJSON string
	// Bytecode is the creation code (constructor arguments are appended to it).
	Bytecode []byte
	// DeployedBytecode is the runtime code stored at the contract's address.
	DeployedBytecode []byte
}

// SolcjsPath returns the solcjs executable: $VERIFORMER_SOLCJS if set,
// otherwise .cache/solc/node_modules/.bin/solcjs under the module root (the
// nearest directory above the working directory holding go.mod).
func SolcjsPath() (string, error) {
	if path := os.Getenv(SolcjsEnv); path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("solidity: %s=%s: %w", SolcjsEnv, path, err)
		}
		return path, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	path := filepath.Join(root, ".cache", "solc", "node_modules", ".bin", "solcjs")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("solidity: solcjs not found at %s: run scripts/setup-solc.sh (or set %s)", path, SolcjsEnv)
	}
	return path, nil
}

// moduleRoot returns the nearest directory above the working directory that
// holds a go.mod file.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("solidity: working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("solidity: no go.mod above the working directory; set " + SolcjsEnv)
		}
		dir = parent
	}
}

// standardInput is solc's standard JSON input.
type standardInput struct {
	Language string                    `json:"language"`
	Sources  map[string]standardSource `json:"sources"`
	Settings standardSettings          `json:"settings"`
}

type standardSource struct {
	Content string `json:"content"`
}

type standardSettings struct {
	Optimizer       standardOptimizer              `json:"optimizer"`
	EVMVersion      string                         `json:"evmVersion"`
	OutputSelection map[string]map[string][]string `json:"outputSelection"`
}

type standardOptimizer struct {
	Enabled bool `json:"enabled"`
	Runs    int  `json:"runs"`
}

// standardOutput is the part of solc's standard JSON output that is read.
type standardOutput struct {
	Errors []struct {
		Severity         string `json:"severity"`
		FormattedMessage string `json:"formattedMessage"`
		Message          string `json:"message"`
	} `json:"errors"`
	Contracts map[string]map[string]struct {
		ABI json.RawMessage `json:"abi"`
		EVM struct {
			Bytecode         struct{ Object string } `json:"bytecode"`
			DeployedBytecode struct{ Object string } `json:"deployedBytecode"`
		} `json:"evm"`
	} `json:"contracts"`
}

// Compile compiles Solidity sources (file name → content) with solcjs in
// standard JSON mode, with the optimizer on ([OptimizerRuns]) for
// [EVMVersion]. It returns every contract that has code, keyed by
// "file:Contract". Imports must resolve among the given sources.
func Compile(ctx context.Context, sources map[string]string) (map[string]*Artifact, error) {
	if len(sources) == 0 {
		return nil, errors.New("solidity: compile: no sources")
	}
	solcjs, err := SolcjsPath()
	if err != nil {
		return nil, err
	}
	input := standardInput{
		Language: "Solidity",
		Sources:  make(map[string]standardSource, len(sources)),
		Settings: standardSettings{
			Optimizer:  standardOptimizer{Enabled: true, Runs: OptimizerRuns},
			EVMVersion: EVMVersion,
			OutputSelection: map[string]map[string][]string{
				"*": {"*": {"abi", "evm.bytecode.object", "evm.deployedBytecode.object"}},
			},
		},
	}
	for name, content := range sources {
		input.Sources[name] = standardSource{Content: content}
	}
	request, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("solidity: compile: encode input: %w", err)
	}
	// solcjs reads its standard input with one synchronous read, which
	// fails with EAGAIN on a pipe that is momentarily empty, and exits
	// before a large output has drained into a pipe; regular files have
	// neither problem.
	dir, err := os.MkdirTemp("", "solcjs-")
	if err != nil {
		return nil, fmt.Errorf("solidity: compile: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	inPath, outPath := filepath.Join(dir, "input.json"), filepath.Join(dir, "output.json")
	if err := os.WriteFile(inPath, request, 0o600); err != nil {
		return nil, fmt.Errorf("solidity: compile: write input: %w", err)
	}
	stdin, err := os.Open(inPath)
	if err != nil {
		return nil, fmt.Errorf("solidity: compile: %w", err)
	}
	defer func() { _ = stdin.Close() }()
	stdout, err := os.Create(outPath)
	if err != nil {
		return nil, fmt.Errorf("solidity: compile: %w", err)
	}
	defer func() { _ = stdout.Close() }()
	cmd := exec.CommandContext(ctx, solcjs, "--standard-json")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("solidity: compile: %s: %w: %s", solcjs, err, strings.TrimSpace(stderr.String()))
	}
	out, err := os.ReadFile(outPath)
	if err != nil {
		return nil, fmt.Errorf("solidity: compile: read output: %w", err)
	}
	return parseStandardOutput(out)
}

// parseStandardOutput reads solc's standard JSON output. solcjs may print
// notices before the JSON document; they are skipped.
func parseStandardOutput(out []byte) (map[string]*Artifact, error) {
	start := bytes.IndexByte(out, '{')
	if start < 0 {
		return nil, fmt.Errorf("solidity: compile: no JSON in solcjs output: %q", truncate(out, 200))
	}
	var result standardOutput
	if err := json.Unmarshal(out[start:], &result); err != nil {
		return nil, fmt.Errorf("solidity: compile: decode solcjs output: %w", err)
	}
	var failures []string
	for _, e := range result.Errors {
		if e.Severity == "error" {
			failures = append(failures, e.FormattedMessage)
		}
	}
	if len(failures) > 0 {
		return nil, fmt.Errorf("solidity: compile: %s", strings.Join(failures, "\n"))
	}
	artifacts := make(map[string]*Artifact)
	for file, contracts := range result.Contracts {
		for name, contract := range contracts {
			if contract.EVM.Bytecode.Object == "" {
				continue // interfaces and abstract contracts
			}
			artifact := &Artifact{Name: file + ":" + name, ABIJSON: string(contract.ABI)}
			var err error
			if artifact.ABI, err = abi.JSON(bytes.NewReader(contract.ABI)); err != nil {
				return nil, fmt.Errorf("solidity: compile: ABI of %s: %w", artifact.Name, err)
			}
			if artifact.Bytecode, err = hex.DecodeString(contract.EVM.Bytecode.Object); err != nil {
				return nil, fmt.Errorf("solidity: compile: bytecode of %s: %w", artifact.Name, err)
			}
			if artifact.DeployedBytecode, err = hex.DecodeString(contract.EVM.DeployedBytecode.Object); err != nil {
				return nil, fmt.Errorf("solidity: compile: deployed bytecode of %s: %w", artifact.Name, err)
			}
			artifacts[artifact.Name] = artifact
		}
	}
	if len(artifacts) == 0 {
		return nil, errors.New("solidity: compile: no contract with code in the sources")
	}
	return artifacts, nil
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
