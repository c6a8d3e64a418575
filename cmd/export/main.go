// Command export sets up (or loads from the cache) the keys of a model's
// final BN254 circuit — the direct circuit (--shape direct, the default) or
// the wrapper of the aggregated shape (--shape aggregated, which also sets
// up or loads the segment and aggregator keys the model id is made of) —
// and writes its Solidity verifier, the InferenceRegistry, their ABIs and
// bytecode; with --rpc-url it deploys them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/signal"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/logger"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

var (
	modelFlag    = flag.String("model", "", "directory with config.json and model.safetensors (default: the built-in model)")
	promptFlag   = flag.Int("prompt-tokens", 5, "number of prompt tokens the circuit takes")
	tokensFlag   = flag.Int("tokens", 3, "number of generated tokens the circuit takes")
	cacheFlag    = flag.String("cache", "", "key cache directory (default $VERIFORMER_CACHE or .cache/keys in the module)")
	outFlag      = flag.String("out", "out/export", "directory to write the contracts to")
	rpcFlag      = flag.String("rpc-url", "", "JSON-RPC endpoint to deploy to (optional)")
	chainIDFlag  = flag.Uint64("chain-id", 0, "chain id to sign for; refuse an endpoint serving another chain (0: the endpoint's)")
	keystoreFlag = flag.String("keystore", "", "keystore file of the deploying account (else $VERIFORMER_PRIVATE_KEY)")
	passwordFlag = flag.String("password", "", "file holding the keystore password")
	shapeFlag    = flag.String("shape", "direct", "proof shape: direct (one BN254 circuit) or aggregated (the BN254 wrapper over BLS12-377 segments and a BW6-761 aggregator; its first setup takes about 40 minutes and 14 GB)")
	segmentFlag  = flag.Int("segment-size", 1, "blocks per segment (aggregated shape)")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: export [flags]\n\nWrites (and optionally deploys) the Solidity verifier of a model's final BN254 circuit (direct shape or wrapper).\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// gnark's own debug lines would interleave with the progress output.
	logger.Set(zerolog.Nop())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *promptFlag < 1 || *tokensFlag < 1 {
		return errors.New("--prompt-tokens and --tokens must be at least 1")
	}
	m := model.Default()
	if *modelFlag != "" {
		var err error
		if m, err = model.Load(*modelFlag); err != nil {
			return err
		}
	}
	var (
		vk groth16.VerifyingKey
		id *big.Int
	)
	switch *shapeFlag {
	case "direct":
		fmt.Printf("setting up or loading the keys of the circuit for %d prompt and %d generated tokens …\n", *promptFlag, *tokensFlag)
		var constraints int
		var err error
		if vk, constraints, err = pipeline.VerifyingKeyDirect(m, *promptFlag, *tokensFlag, *cacheFlag); err != nil {
			return err
		}
		id = statement.ModelID(m)
		fmt.Printf("circuit of %d R1CS constraints\n", constraints)
	case "aggregated":
		if *segmentFlag < 1 {
			return errors.New("--segment-size must be at least 1")
		}
		fmt.Printf("setting up or loading the keys of the aggregated shape for %d prompt and %d generated tokens …\n", *promptFlag, *tokensFlag)
		keys, err := pipeline.VerifyingKeysAggregated(pipeline.AggregatedOptions{
			Options:     pipeline.Options{Model: m, CacheDir: *cacheFlag, Log: os.Stdout},
			SegmentSize: *segmentFlag,
			Wrap:        true,
		}, *promptFlag, *tokensFlag)
		if err != nil {
			return err
		}
		vk, id = keys.Wrapper.VK, keys.FinalModelID
		fmt.Printf("%d segment circuits (%d R1CS constraints), aggregator %d, wrapper %d\n", len(keys.Segments), keys.SegmentConstraints, keys.AggregatorConstraints, keys.WrapperConstraints)
	default:
		return fmt.Errorf("--shape %q: want direct or aggregated", *shapeFlag)
	}
	fmt.Printf("model id %#x\n", id)
	contracts, err := pipeline.Export(ctx, vk, id, *outFlag)
	if err != nil {
		return err
	}
	fmt.Printf("wrote the verifier (%d bytes of code) and the registry to %s\n", len(contracts.Verifier.DeployedBytecode), *outFlag)
	if *rpcFlag == "" {
		return nil
	}
	key, err := solidity.LoadKey(*keystoreFlag, *passwordFlag)
	if err != nil {
		return err
	}
	d, err := solidity.DeployRPC(ctx, *rpcFlag, key, chainID(*chainIDFlag), contracts, id)
	if err != nil {
		return err
	}
	fmt.Printf("deployed: verifier %s (%d gas), registry %s (%d gas)\n", d.Verifier, d.VerifierGas, d.Registry, d.RegistryGas)
	return nil
}

// chainID turns the --chain-id flag into the pinned chain id (nil for 0).
func chainID(id uint64) *big.Int {
	if id == 0 {
		return nil
	}
	return new(big.Int).SetUint64(id)
}
