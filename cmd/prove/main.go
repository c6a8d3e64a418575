// Command prove proves an inference of a transformer and verifies it,
// natively, with a Groth16 proof and on go-ethereum's simulated chain.
//
// With no flags it proves a short greedy generation of the built-in
// default model. See the README and docs/cli.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/consensys/gnark/logger"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

var (
	modelFlag    = flag.String("model", "", "directory with config.json, model.safetensors and a tokenizer (default: the built-in model)")
	promptFlag   = flag.String("prompt", "Hello", "prompt text")
	tokensFlag   = flag.Int("tokens", 3, "number of tokens to generate")
	cacheFlag    = flag.String("cache", "", "key cache directory (default $VERIFORMER_CACHE or .cache/keys in the module)")
	outFlag      = flag.String("out", "", "directory to write the proof, statement and Solidity artifacts to")
	statsFlag    = flag.Bool("stats", true, "print the table of stages")
	chainFlag    = flag.Bool("chain", true, "verify on go-ethereum's simulated chain")
	submitFlag   = flag.Bool("submit", false, "also submit the proof to a registry on a JSON-RPC node (--rpc-url, --registry)")
	rpcFlag      = flag.String("rpc-url", "", "JSON-RPC endpoint for --submit")
	chainIDFlag  = flag.Uint64("chain-id", 0, "chain id to sign --submit for; refuse an endpoint serving another chain (0: the endpoint's)")
	verifierFlag = flag.String("verifier", "merged", "Solidity verifier: merged (gnark's with the commitment check in the main pairing call) or gnark (gnark's unmodified); the other is measured beside it")
	registryFlag = flag.String("registry", "", "address of the InferenceRegistry for --submit")
	keystoreFlag = flag.String("keystore", "", "keystore file of the submitting account (else $VERIFORMER_PRIVATE_KEY)")
	passwordFlag = flag.String("password", "", "file holding the keystore password")
	shapeFlag    = flag.String("shape", "direct", "proof shape: direct (one BN254 circuit) or aggregated (BLS12-377 segments, BW6-761 aggregation, BN254 wrapper)")
	segmentFlag  = flag.Int("segment-size", 1, "blocks per segment (aggregated shape)")
	wrapFlag     = flag.Bool("wrap", false, "aggregated shape: prove the BN254 wrapper (its first setup takes about 40 minutes and 14 GB) instead of checking it with gnark's test engine")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: prove [flags]\n\nProves a greedy generation of a model and verifies it natively, as a Groth16 proof and on a simulated EVM.\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// gnark's own debug lines would interleave with the progress output.
	logger.Set(zerolog.Nop())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "prove:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *submitFlag && (*rpcFlag == "" || *registryFlag == "") {
		return errors.New("--submit needs --rpc-url and --registry")
	}
	if *submitFlag && !common.IsHexAddress(*registryFlag) {
		return fmt.Errorf("--registry %q is not an address", *registryFlag)
	}
	if *submitFlag && *shapeFlag == "aggregated" && !*wrapFlag {
		return errors.New("--submit needs a final proof: with --shape aggregated, add --wrap")
	}
	template, err := solidity.ParseTemplate(*verifierFlag)
	if err != nil {
		return err
	}
	if *tokensFlag < 1 {
		return errors.New("--tokens must be at least 1")
	}
	if *segmentFlag < 1 {
		return errors.New("--segment-size must be at least 1")
	}
	m, tok, err := load(*modelFlag)
	if err != nil {
		return err
	}
	prompt, err := tok.Encode(*promptFlag)
	if err != nil {
		return fmt.Errorf("encode prompt: %w", err)
	}
	if len(prompt) == 0 {
		return errors.New("the prompt encodes to no token")
	}
	fmt.Printf("model: %s, %d layers, d=%d, %d heads, vocabulary %d\n", m.Config.Family, m.Config.Layers, m.Config.Hidden, m.Config.Heads, m.Config.Vocab)
	fmt.Printf("prompt: %q (%d tokens), generating %d tokens\n", *promptFlag, len(prompt), *tokensFlag)
	opts := pipeline.Options{Model: m, Prompt: prompt, Tokens: *tokensFlag, CacheDir: *cacheFlag, Chain: *chainFlag, Verifier: template, Log: os.Stdout}
	var rep *pipeline.Report
	switch *shapeFlag {
	case "direct":
		rep, err = pipeline.RunDirect(ctx, opts)
	case "aggregated":
		rep, err = pipeline.RunAggregated(ctx, pipeline.AggregatedOptions{Options: opts, SegmentSize: *segmentFlag, Wrap: *wrapFlag})
	default:
		return fmt.Errorf("--shape %q: want direct or aggregated", *shapeFlag)
	}
	if err != nil {
		return err
	}
	text, err := tok.Decode(rep.Output)
	if err != nil {
		return fmt.Errorf("decode output: %w", err)
	}
	fmt.Printf("\noutput: %q (tokens %v)\n", text, rep.Output)
	fmt.Printf("statement: %s\n", rep.Statement)
	if *statsFlag {
		fmt.Println()
		if err := rep.WriteStats(os.Stdout); err != nil {
			return err
		}
	}
	if *outFlag != "" {
		if err := pipeline.WriteArtifacts(*outFlag, rep); err != nil {
			return err
		}
		fmt.Printf("artifacts written to %s\n", *outFlag)
	}
	if *submitFlag {
		if rep.Proof == nil {
			return errors.New("--submit needs a final proof: use the direct shape, or --wrap with the aggregated one")
		}
		key, err := solidity.LoadKey(*keystoreFlag, *passwordFlag)
		if err != nil {
			return err
		}
		receipt, err := solidity.SubmitRPC(ctx, *rpcFlag, key, chainID(*chainIDFlag), common.HexToAddress(*registryFlag), rep.Proof, pipeline.SolidityStatement(rep.Statement))
		if err != nil {
			return fmt.Errorf("submit: %w", err)
		}
		fmt.Printf("submitted in transaction %s (block %d, %d gas)\n", receipt.TxHash, receipt.BlockNumber, receipt.GasUsed)
	}
	return nil
}

// load returns the built-in model with the byte tokenizer, or a model and
// tokenizer read from dir.
func load(dir string) (*model.Model, tokenizer.Tokenizer, error) {
	if dir == "" {
		return model.Default(), tokenizer.NewByte(), nil
	}
	m, err := model.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	tok, err := tokenizer.LoadDir(filepath.Clean(dir))
	if err != nil {
		return nil, nil, fmt.Errorf("tokenizer: %w", err)
	}
	return m, tok, nil
}

// chainID turns the --chain-id flag into the pinned chain id (nil for 0).
func chainID(id uint64) *big.Int {
	if id == 0 {
		return nil
	}
	return new(big.Int).SetUint64(id)
}
