// Command prove proves an inference of a transformer and verifies it,
// natively, with a Groth16 proof and on go-ethereum's simulated chain.
//
// With no flags it proves a short greedy generation of the built-in
// default model. See the README and docs/cli.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/consensys/gnark/logger"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/internal/memlimit"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
)

var (
	modelFlag    = flag.String("model", model.Tiny, "built-in model ("+strings.Join(model.BuiltinNames(), ", ")+") or directory with config.json, model.safetensors and a tokenizer")
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
	chunkFlag    = flag.Int("vocab-chunk", 0, "prove the LM head in segments of its own of this many vocabulary columns (aggregated shape, committed tensors; 0: in the last segment)")
	jobsFlag     = flag.Int("native-jobs", 0, "aggregated shape, committed tensors: segments whose native proofs run at once (0: 1 or 2, chosen from their estimated memory and the memory limit)")
	tensorsFlag  = flag.String("tensors", "committed", "aggregated shape: committed (tensors committed with multilinear KZG, circuits polylogarithmic in the activations) or opened (tensors hashed into the segment circuits; small models only)")
	srsFlag      = flag.String("srs", "", "aggregated shape, committed tensors: BLS12-377 phase-1 ceremony output to take the KZG SRS from (default: a development SRS cached beside the keys)")
	ceremonyFlag = flag.Bool("ceremony-keys", false, "accept only keys sealed by a ceremony (cmd/ceremony seal): refuse development keys and never run a development setup")
	wrapFlag     = flag.Bool("wrap", false, "aggregated shape: prove the BN254 wrapper (its first setup takes about 40 minutes and 14 GB) instead of checking it with gnark's test engine")
	planFlag     = flag.Bool("plan", false, "set up and prove nothing: compile each circuit the run needs and print its kind, curve, R1CS count, whether its keys are cached, and estimated setup and proving times")
	jsonFlag     = flag.Bool("json", false, "with --plan: print the plan as a JSON array of objects (kind, name, curve, constraints, circuit, cached, key_kind, setup_estimate_s, prove_estimate_s)")
	gnarkLogFlag = flag.Bool("gnark-log", false, "print gnark's own debug lines (compile, solver and prover timings per circuit) to stderr")
	bosFlag      = flag.String("bos", "auto", "beginning-of-sequence token before the prompt: auto (as tokenizer_config.json or tokenizer.json say; none for GPT-2), on, off; part of the model id")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: prove [flags]\n\nProves a greedy generation of a model and verifies it natively, as a Groth16 proof and on a simulated EVM.\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	// The provers' tables reach several gigabytes: the collector works
	// harder near the machine's memory rather than let the kernel kill the
	// run (unless GOMEMLIMIT says otherwise).
	memlimit.Default()
	// gnark's own debug lines would interleave with the progress output:
	// on stderr when asked for, else off.
	if *gnarkLogFlag {
		logger.Set(zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: "15:04:05"}).With().Timestamp().Logger())
	} else {
		logger.Set(zerolog.Nop())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "prove:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	// Every check that needs no model comes first, then those that need
	// only the config and the tokenizer; the weights load last.
	if err := checkFlags(); err != nil {
		return err
	}
	bos, err := tokenizer.ParseBOSMode(*bosFlag)
	if err != nil {
		return fmt.Errorf("--bos: %w", err)
	}
	template, err := solidity.ParseTemplate(*verifierFlag)
	if err != nil {
		return err
	}
	prompt, err := encodePrompt(*modelFlag, *promptFlag, bos, *tokensFlag)
	if err != nil {
		return err
	}
	m, err := load(*modelFlag, bos)
	if err != nil {
		return err
	}
	tok := m.Tokenizer
	// With --plan --json, stdout holds the JSON only.
	info := io.Writer(os.Stdout)
	if *planFlag && *jsonFlag {
		info = os.Stderr
	}
	fmt.Fprintf(info, "model: %s (%s), %d layers, d=%d, %d heads, vocabulary %d\n", *modelFlag, m.Config.Family, m.Config.Layers, m.Config.Hidden, m.Config.Heads, m.Config.Vocab)
	fmt.Fprintf(info, "prompt: %q (%d tokens%s), generating %d tokens\n", *promptFlag, len(prompt), bosNote(tok), *tokensFlag)
	opts := pipeline.Options{Model: m, Prompt: prompt, Tokens: *tokensFlag, CacheDir: *cacheFlag, Chain: *chainFlag, Verifier: template, Log: info,
		Generated: func(output []int) {
			// The text is known long before the proof: show it now.
			fmt.Printf("  output: %s\n", describe(tok, output))
		}}
	if *ceremonyFlag {
		opts.KeyKind = setup.Ceremony
	}
	aggOpts := pipeline.AggregatedOptions{Options: opts, SegmentSize: *segmentFlag, VocabChunk: *chunkFlag, NativeJobs: *jobsFlag, Wrap: *wrapFlag, Tensors: pipeline.Tensors(*tensorsFlag), SRS: *srsFlag}
	if *planFlag {
		var items []pipeline.PlanItem
		if *shapeFlag == "direct" {
			items, err = pipeline.PlanDirect(opts, len(prompt))
		} else {
			items, err = pipeline.PlanAggregated(aggOpts, len(prompt))
		}
		if err != nil {
			return err
		}
		if *jsonFlag {
			return writePlanJSON(os.Stdout, items)
		}
		return writePlan(os.Stdout, items)
	}
	var rep *pipeline.Report
	if *shapeFlag == "direct" {
		rep, err = pipeline.RunDirect(ctx, opts)
	} else {
		rep, err = pipeline.RunAggregated(ctx, aggOpts)
	}
	if err != nil {
		// A proof made before a failed on-chain stage is kept.
		if rep != nil && rep.Proof != nil && *outFlag != "" {
			if werr := pipeline.WriteArtifacts(*outFlag, rep); werr != nil {
				return fmt.Errorf("%w (and writing the proof to %s: %v)", err, *outFlag, werr)
			}
			fmt.Fprintf(os.Stderr, "the proof, verified natively, is written to %s\n", *outFlag)
		}
		return err
	}
	fmt.Printf("\noutput: %s\n", describe(tok, rep.Output))
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
		receipt, err := solidity.SubmitRPC(ctx, *rpcFlag, key, solidity.ChainID(*chainIDFlag), common.HexToAddress(*registryFlag), rep.Proof, pipeline.SolidityStatement(rep.Statement))
		if err != nil {
			return fmt.Errorf("submit: %w", err)
		}
		fmt.Printf("submitted in transaction %s (block %d, %d gas)\n", receipt.TxHash, receipt.BlockNumber, receipt.GasUsed)
	}
	return nil
}

// checkFlags checks the flags that need no model.
func checkFlags() error {
	if *shapeFlag != "direct" && *shapeFlag != "aggregated" {
		return fmt.Errorf("--shape %q: want direct or aggregated", *shapeFlag)
	}
	if *submitFlag && (*rpcFlag == "" || *registryFlag == "") {
		return errors.New("--submit needs --rpc-url and --registry")
	}
	if *submitFlag && !common.IsHexAddress(*registryFlag) {
		return fmt.Errorf("--registry %q is not an address", *registryFlag)
	}
	if *submitFlag && *shapeFlag == "aggregated" && !*wrapFlag {
		return errors.New("--submit needs a final proof: with --shape aggregated, add --wrap")
	}
	if _, err := pipeline.ParseTensors(*tensorsFlag); err != nil {
		return fmt.Errorf("--tensors: %w", err)
	}
	if *shapeFlag == "direct" && (*tensorsFlag != "committed" || *srsFlag != "") {
		return errors.New("--tensors and --srs go with --shape aggregated (the direct shape opens its tensors)")
	}
	if *jsonFlag && !*planFlag {
		return errors.New("--json goes with --plan")
	}
	if *tokensFlag < 1 {
		return errors.New("--tokens must be at least 1")
	}
	if *segmentFlag < 1 {
		return errors.New("--segment-size must be at least 1")
	}
	if *chunkFlag < 0 {
		return errors.New("--vocab-chunk must be at least 0")
	}
	if *jobsFlag < 0 {
		return errors.New("--native-jobs must be at least 0")
	}
	return nil
}

// encodePrompt reads only the model's config and tokenizer: it encodes
// the prompt and checks that the pass over the prompt and all generated
// tokens but the last fits the model's context.
func encodePrompt(arg, text string, bos tokenizer.BOSMode, tokens int) ([]int, error) {
	src, err := model.ParseSource(arg, model.Tiny)
	if err != nil {
		return nil, err
	}
	config, err := src.Config()
	if err != nil {
		return nil, err
	}
	codec, err := src.Codec(bos)
	if err != nil {
		return nil, err
	}
	prompt, err := codec.EncodePrompt(text)
	if err != nil {
		return nil, fmt.Errorf("encode prompt: %w", err)
	}
	if len(prompt) == 0 {
		return nil, errors.New("the prompt encodes to no token")
	}
	if rows := len(prompt) + tokens - 1; rows > config.MaxPositions {
		return nil, fmt.Errorf("%d prompt tokens and %d to generate need a context of %d, the model has %d", len(prompt), tokens, rows, config.MaxPositions)
	}
	for _, id := range prompt {
		if id >= config.Vocab {
			return nil, fmt.Errorf("the prompt has token %d, the model's vocabulary %d", id, config.Vocab)
		}
	}
	return prompt, nil
}

// bosNote says which beginning-of-sequence token the prompt starts with.
func bosNote(c *tokenizer.Codec) string {
	if c.BOS == tokenizer.NoBOS {
		return ", no BOS"
	}
	return fmt.Sprintf(", BOS %d first", c.BOS)
}

// load returns the model --model names: a built-in model (the default
// tiny) or a model and tokenizer read from a directory.
func load(arg string, bos tokenizer.BOSMode) (*model.Model, error) {
	src, err := model.ParseSource(arg, model.Tiny)
	if err != nil {
		return nil, err
	}
	return src.LoadText(bos)
}

// describe shows generated tokens with their text, or without it when the
// tokenizer has none for them (the byte tokenizer of gpt2-small-random
// decodes only tokens 0–255).
func describe(tok *tokenizer.Codec, output []int) string {
	text, err := tok.Decode(output)
	if err != nil {
		return fmt.Sprintf("tokens %v (no text: %v)", output, err)
	}
	return fmt.Sprintf("%q (tokens %v)", text, output)
}

// writePlan prints the plan as a table with the totals.
func writePlan(w io.Writer, items []pipeline.PlanItem) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcircuit\tcurve\tR1CS\tkeys\tsetup (est.)\tproof (est.)\t")
	var constraints int
	var setupS, proveS float64
	for _, it := range items {
		keys := "to set up"
		if it.Cached {
			keys = "cached (" + it.KeyKind + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t\n", it.Kind, it.Name, it.Curve, it.Constraints, keys, seconds(it.SetupEstimateS), seconds(it.ProveEstimateS))
		constraints += it.Constraints
		setupS += it.SetupEstimateS
		proveS += it.ProveEstimateS
	}
	fmt.Fprintf(tw, "total\t%d circuits\t\t%d\t\t%s\t%s\t\n", len(items), constraints, seconds(setupS), seconds(proveS))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "Estimates: measured rates per constraint on a quiet 2-core machine (README, \"Measured\"); ±30%.")
	return err
}

// writePlanJSON prints the plan as a JSON array.
func writePlanJSON(w io.Writer, items []pipeline.PlanItem) error {
	if items == nil {
		items = []pipeline.PlanItem{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(items)
}

// seconds formats an estimate in seconds as a duration.
func seconds(s float64) string {
	if s == 0 {
		return "—"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}
