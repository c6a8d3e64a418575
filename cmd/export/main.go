// Command export sets up (or loads from the cache) the keys of a model's
// final BN254 circuit — the direct circuit (--design direct, the default)
// or the wrapper of the aggregated design (--design aggregated, which also
// sets up or loads the segment and aggregator keys the model id is made
// of) —
// and writes its Solidity verifier, the InferenceRegistry, their ABIs and
// bytecode; with --rpc-url it deploys them. The verifying key is checked
// against the digest its manifest recorded at setup before anything is
// written; --ceremony-keys accepts only keys sealed by cmd/ceremony.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/signal"

	"github.com/consensys/gnark/logger"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/cmd/internal/flags"
	"github.com/veriformer/veriformer/internal/memlimit"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
)

var (
	modelFlags  = flags.AddModel(flag.CommandLine)
	deployFlags = flags.AddDeployment(flag.CommandLine, true)
	keyFlags    = flags.AddKeys(flag.CommandLine)
	lengths     = flags.AddLengths(flag.CommandLine)

	outFlag      = flag.String("out", "out/export", "directory to write the contracts to")
	rpcFlag      = flag.String("rpc-url", "", "JSON-RPC endpoint to deploy to (optional)")
	chainIDFlag  = flag.Uint64("chain-id", 0, "chain id to sign for; refuse an endpoint serving another chain (0: the endpoint's)")
	keystoreFlag = flag.String("keystore", "", "keystore file of the deploying account (else $VERIFORMER_PRIVATE_KEY)")
	passwordFlag = flag.String("password", "", "file holding the keystore password")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: export [flags]\n\nWrites (and optionally deploys) the Solidity verifier of a model's final BN254 circuit (the direct circuit or the wrapper).\n\nFlags:\n")
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
	dep, err := deployFlags.Parse()
	if err != nil {
		return err
	}
	if err := lengths.Check(); err != nil {
		return err
	}
	m, err := modelFlags.Load()
	if err != nil {
		return err
	}
	var (
		keys *setup.Keys
		id   *big.Int
	)
	promptLen, outputLen := *lengths.PromptTokens, *lengths.Tokens
	switch dep.Design {
	case pipeline.Direct:
		rows, err := pipeline.Rows(m, promptLen, outputLen, *lengths.Bucket)
		if err != nil {
			return err
		}
		fmt.Printf("setting up or loading the keys of the direct circuit for a bucket of %d rows (every prompt and generated tokens whose pass fits) …\n", rows)
		opts := []setup.Option{setup.WithLog(os.Stdout)}
		if kind := keyFlags.Kind(); kind != "" {
			opts = append(opts, setup.WithKind(kind))
		}
		if keys, err = pipeline.VerifyingKeyDirect(m, rows, *keyFlags.Cache, opts...); err != nil {
			return err
		}
		id = m.ID()
		fmt.Printf("circuit of %d R1CS constraints\n", keys.CCS.GetNbConstraints())
	case pipeline.Aggregated:
		rows, err := pipeline.Rows(m, promptLen, outputLen, *lengths.Bucket)
		if err != nil {
			return err
		}
		fmt.Printf("setting up or loading the keys of the aggregated design for a bucket of %d rows (every prompt and generated tokens whose pass fits) …\n", rows)
		opts := pipeline.AggregatedOptions{
			Options: pipeline.Options{Model: m, CacheDir: *keyFlags.Cache, Log: os.Stdout, KeyKind: keyFlags.Kind(), Bucket: *lengths.Bucket},
			Wrap:    true,
		}
		dep.Apply(&opts)
		agg, err := pipeline.VerifyingKeysAggregated(opts, promptLen, outputLen)
		if err != nil {
			return err
		}
		keys, id = agg.Wrapper, agg.FinalModelID
		fmt.Printf("%d segment circuits (%d R1CS constraints), aggregator %d, wrapper %d\n", len(agg.Segments), agg.SegmentConstraints, agg.AggregatorConstraints, agg.WrapperConstraints)
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
