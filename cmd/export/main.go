// Command export sets up (or loads from the cache) the keys of a model's
// final BN254 circuit — the direct circuit (--shape direct, the default) or
// the wrapper of the aggregated shape (--shape aggregated, which also sets
// up or loads the segment and aggregator keys the model id is made of) —
// and writes its Solidity verifier, the InferenceRegistry, their ABIs and
// bytecode; with --rpc-url it deploys them. The verifying key is checked
// against the digest its manifest recorded at setup before anything is
// written; --ceremony-keys accepts only keys sealed by cmd/ceremony.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/signal"
	"strings"

	"github.com/consensys/gnark/logger"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/internal/memlimit"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

var (
	modelFlag    = flag.String("model", model.Tiny, "built-in model ("+strings.Join(model.BuiltinNames(), ", ")+") or directory with config.json and model.safetensors")
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
	chunkFlag    = flag.Int("vocab-chunk", 0, "prove the LM head in segments of its own of this many vocabulary columns (aggregated shape, committed tensors; 0: in the last segment)")
	tensorsFlag  = flag.String("tensors", "committed", "aggregated shape: committed or opened tensors, as for prove")
	srsFlag      = flag.String("srs", "", "aggregated shape, committed tensors: BLS12-377 phase-1 ceremony output to take the KZG SRS from, as for prove")
	bosFlag      = flag.String("bos", "auto", "beginning-of-sequence rule of the model's tokenizer, part of the model id: auto, on or off, as for prove")
	ceremonyFlag = flag.Bool("ceremony-keys", false, "accept only keys sealed by a ceremony (cmd/ceremony seal): refuse development keys and never run a development setup")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: export [flags]\n\nWrites (and optionally deploys) the Solidity verifier of a model's final BN254 circuit (direct shape or wrapper).\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// The provers' tables reach several gigabytes: the collector works
	// harder near the machine's memory rather than let the kernel kill the
	// run (unless GOMEMLIMIT says otherwise).
	memlimit.Default()
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
	bos, err := tokenizer.ParseBOSMode(*bosFlag)
	if err != nil {
		return fmt.Errorf("--bos: %w", err)
	}
	src, err := model.ParseSource(*modelFlag, model.Tiny)
	if err != nil {
		return err
	}
	m, err := src.Load(bos)
	if err != nil {
		return err
	}
	var kind setup.Kind
	if *ceremonyFlag {
		kind = setup.Ceremony
	}
	var (
		keys *setup.Keys
		id   *big.Int
	)
	switch *shapeFlag {
	case "direct":
		fmt.Printf("setting up or loading the keys of the circuit for %d prompt and %d generated tokens …\n", *promptFlag, *tokensFlag)
		opts := []setup.Option{setup.WithLog(os.Stdout)}
		if kind != "" {
			opts = append(opts, setup.WithKind(kind))
		}
		var err error
		if keys, err = pipeline.VerifyingKeyDirect(m, *promptFlag, *tokensFlag, *cacheFlag, opts...); err != nil {
			return err
		}
		id = statement.ModelID(m)
		fmt.Printf("circuit of %d R1CS constraints\n", keys.CCS.GetNbConstraints())
	case "aggregated":
		if *segmentFlag < 1 {
			return errors.New("--segment-size must be at least 1")
		}
		tensors, err := pipeline.ParseTensors(*tensorsFlag)
		if err != nil {
			return fmt.Errorf("--tensors: %w", err)
		}
		fmt.Printf("setting up or loading the keys of the aggregated shape for %d prompt and %d generated tokens …\n", *promptFlag, *tokensFlag)
		agg, err := pipeline.VerifyingKeysAggregated(pipeline.AggregatedOptions{
			Options:     pipeline.Options{Model: m, CacheDir: *cacheFlag, Log: os.Stdout, KeyKind: kind},
			SegmentSize: *segmentFlag,
			VocabChunk:  *chunkFlag,
			Tensors:     tensors,
			SRS:         *srsFlag,
			Wrap:        true,
		}, *promptFlag, *tokensFlag)
		if err != nil {
			return err
		}
		keys, id = agg.Wrapper, agg.FinalModelID
		fmt.Printf("%d segment circuits (%d R1CS constraints), aggregator %d, wrapper %d\n", len(agg.Segments), agg.SegmentConstraints, agg.AggregatorConstraints, agg.WrapperConstraints)
	default:
		return fmt.Errorf("--shape %q: want direct or aggregated", *shapeFlag)
	}
	fmt.Printf("%s keys, verifying key %s\n", keys.Manifest.Kind, keys.Manifest.VerifyingKey)
	fmt.Printf("model id %#x\n", id)
	contracts, err := pipeline.Export(ctx, keys, id, *outFlag)
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
	d, err := solidity.DeployRPC(ctx, *rpcFlag, key, solidity.ChainID(*chainIDFlag), contracts, id)
	if err != nil {
		return err
	}
	fmt.Printf("deployed: verifier %s (%d gas), registry %s (%d gas)\n", d.Verifier, d.VerifierGas, d.Registry, d.RegistryGas)
	return nil
}
