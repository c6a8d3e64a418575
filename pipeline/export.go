package pipeline

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// VerifyingKeyDirect compiles the direct circuit of m for a bucket of rows
// (one key set serves every request whose pass fits it) and returns its keys without the proving key: the
// verifying key read from the cache and checked against the digests of its
// manifest (the proving key file is hashed, not decoded), or set up
// (development only) and stored with the proving key. opts go to
// setup.LoadOrSetupVK (the log, the kind of keys accepted).
func VerifyingKeyDirect(m *model.Model, rows int, cacheDir string, opts ...setup.Option) (*setup.Keys, error) {
	cacheDir, err := keyCacheDir(cacheDir)
	if err != nil {
		return nil, err
	}
	if rows < 1 {
		return nil, fmt.Errorf("pipeline: a bucket of %d rows", rows)
	}
	r := &runner{opts: &Options{Model: m, CacheDir: cacheDir, Bucket: rows}, report: &Report{}}
	// The catalog of a one-token prompt and one generated token in that
	// bucket: the circuit depends on the bucket alone.
	cat, err := r.catalog(Direct, &AggregatedOptions{Options: *r.opts}, 1, 1, nil)
	if err != nil {
		return nil, err
	}
	ccs, err := cat.Circuits[0].Compile()
	if err != nil {
		return nil, err
	}
	return setup.LoadOrSetupVK(ccs, cacheDir, opts...)
}

// Export writes the Solidity verifier of a final BN254 verifying key (the
// direct circuit's or the wrapper's), compiled with solcjs, with the
// InferenceRegistry, to dir: Verifier.sol, *.abi.json, *.bin (creation
// code, hex) and deploy.md (how to deploy a registry that accepts the
// model id id: model.Model.ID for the direct design,
// AggregatedKeys.FinalModelID for the aggregated one).
//
// Before anything is written the keys are checked (setup.Keys.Check): a
// BN254 verifying key with the digest its manifest recorded at setup, for
// the circuit keys.CCS; a key that was swapped or changed is refused.
func Export(ctx context.Context, keys *setup.Keys, id *big.Int, dir string) (*solidity.Contracts, error) {
	if id == nil || id.Sign() < 0 || id.BitLen() > statement.ModelIDBits {
		return nil, fmt.Errorf("pipeline: export: the model id must be a %d-bit integer", statement.ModelIDBits)
	}
	if err := keys.Check(); err != nil {
		return nil, fmt.Errorf("pipeline: export: %w", err)
	}
	if keys.VK.CurveID() != ecc.BN254 {
		return nil, fmt.Errorf("pipeline: export: a %s verifying key; the final circuit is over BN254", keys.VK.CurveID())
	}
	contracts, err := solidity.CompileContracts(ctx, keys.VK)
	if err != nil {
		return nil, err
	}
	if err := contracts.CheckCodeSize(); err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"Verifier.sol":               []byte(contracts.VerifierSource),
		"InferenceRegistry.sol":      []byte(solidity.RegistrySource),
		"Verifier.abi.json":          []byte(contracts.Verifier.ABIJSON),
		"Verifier.bin":               []byte(hex.EncodeToString(contracts.Verifier.Bytecode) + "\n"),
		"InferenceRegistry.abi.json": []byte(contracts.Registry.ABIJSON),
		"InferenceRegistry.bin":      []byte(hex.EncodeToString(contracts.Registry.Bytecode) + "\n"),
		"deploy.md": []byte(fmt.Sprintf(`# Deploying

1. Deploy Verifier.bin (no constructor arguments).
2. Deploy InferenceRegistry.bin with constructor arguments
   (address verifier, uint256 requiredModelId) =
   (the verifier's address, %#x).
3. Submit proofs with InferenceRegistry.submit, or run
   export --rpc-url URL (key from --keystore/--password or
   $VERIFORMER_PRIVATE_KEY), which does steps 1 and 2.
`, id)),
	}
	if err := writeFiles(dir, files); err != nil {
		return nil, err
	}
	return contracts, nil
}
