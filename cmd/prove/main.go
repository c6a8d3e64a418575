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
	"io"
	"math/big"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/consensys/gnark/logger"
	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/cmd/internal/flags"
	"github.com/veriformer/veriformer/internal/memlimit"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

var (
	modelFlags  = flags.AddModel(flag.CommandLine)
	deployFlags = flags.AddDeployment(flag.CommandLine, true)
	keyFlags    = flags.AddKeys(flag.CommandLine)
	bucketFlag  = flags.AddBucket(flag.CommandLine)

	promptFlag      = flag.String("prompt", "Hello", "prompt text")
	tokensFlag      = flag.Int("tokens", 3, "number of tokens to generate")
	outFlag         = flag.String("out", "", "directory to write the proof, statement and Solidity artifacts to")
	statsFlag       = flag.Bool("stats", true, "print the table of stages")
	chainFlag       = flag.Bool("chain", true, "verify on go-ethereum's simulated chain")
	submitFlag      = flag.Bool("submit", false, "also submit the proof to a registry on a JSON-RPC node (--rpc-url, --registry)")
	rpcFlag         = flag.String("rpc-url", "", "JSON-RPC endpoint for --submit")
	chainIDFlag     = flag.Uint64("chain-id", 0, "chain id to sign --submit for; refuse an endpoint serving another chain (0: the endpoint's)")
	verifierFlag    = flag.String("verifier", "merged", "Solidity verifier: merged (gnark's with the commitment check in the main pairing call) or gnark (gnark's unmodified); the other is measured beside it")
	registryFlag    = flag.String("registry", "", "address of the InferenceRegistry for --submit")
	keystoreFlag    = flag.String("keystore", "", "keystore file of the submitting account (else $VERIFORMER_PRIVATE_KEY)")
	passwordFlag    = flag.String("password", "", "file holding the keystore password")
	jobsFlag        = flag.Int("native-jobs", 0, "aggregated design: segments whose native proofs run at once (0: 1 or 2, chosen from their estimated memory and the memory limit)")
	wrapFlag        = flag.Bool("wrap", false, "aggregated design: prove the BN254 wrapper (its first setup takes about 12 minutes and 14 GB) and, with --chain, verify it on-chain; without it the run ends with the aggregator's proof")
	planFlag        = flag.Bool("plan", false, "set up and prove nothing: compile each circuit the run needs and print its kind, curve, R1CS count, whether its keys are cached, and estimated setup and proving times")
	jsonFlag        = flag.Bool("json", false, "with --plan: print the plan as a JSON array of objects (kind, name, bucket, curve, constraints, circuit, cached, key_kind, setup_estimate_s, prove_estimate_s)")
	gnarkLogFlag    = flag.Bool("gnark-log", false, "print gnark's own debug lines (compile, solver and prover timings per circuit) to stderr")
	capacityFlag    = deployFlags.Capacity
	streamFlag      = flag.Bool("stream", false, "with --capacity or --continue: prove the generation token by token, a turn per token after a first turn that fills the prompt's bucket; the artifacts are written after each turn")
	workersFlag     = flag.Int("workers", 0, "aggregated design: run the segments' native and Groth16 proofs, the aggregation and (with --wrap) the wrapper as jobs on this many local worker processes, over a NATS JetStream server embedded in this run (its data in the key cache's nats directory)")
	natsFlag        = flag.String("nats", "", "aggregated design: run the proof's jobs (as --workers) on the workers (prove worker --nats URL) of the NATS JetStream server or cluster at this URL (several URLs separated by commas), as the coordinator of --credentials; the run waits for them")
	credentialsFlag = flag.String("credentials", "", "with --nats: the coordinator's identity file (prove credentials): the server lets the run in by its key, and the workers run only the jobs it signs")
	insecureFlag    = flag.Bool("insecure", false, "with --nats: use a NATS server that lets anyone in (no authentication): anyone reaching it can read, delay and delete jobs and blobs")
	batchFlag       = flag.String("batch", "", "aggregated design: prove a batch of requests in one pass, read from this JSON Lines file (each line {\"prompt\": text, \"tokens\": n} or {\"promptTokens\": [ids], \"tokens\": n}); a request that cannot be proven is reported and left out")
	slotsFlag       = deployFlags.Slots
	listFlag        = flag.String("list", "", "aggregated design, with --mix and --capacity: prove a mixed list read from this JSON Lines file: request lines as --batch's, turn lines naming their conversation's directory ({\"conversation\": dir, \"prompt\": text, \"tokens\": n}), continued or started there")
	continueFlag    = flag.String("continue", "", "aggregated design: prove the next turn of the conversation whose artifacts are in this directory (conversation.json: the cache's capacity, its tokens, the state the last turn left, the turns so far with their proofs); the new artifacts go to --out, or to this directory")
)

// subcommands are prove's sub-commands, by name.
var subcommands = map[string]func(ctx context.Context, args []string) error{
	"credentials": func(_ context.Context, args []string) error { return runCredentials(args) },
	"verify":      func(_ context.Context, args []string) error { return runVerify(args) },
	"worker":      runWorker,
}

func main() {
	// The provers' tables reach several gigabytes: the collector works
	// harder near the machine's memory rather than let the kernel kill the
	// run (unless GOMEMLIMIT says otherwise).
	memlimit.Default()
	// gnark's own debug lines would interleave with the progress output:
	// off, unless --gnark-log puts them on stderr.
	logger.Set(zerolog.Nop())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if len(os.Args) > 1 {
		if sub, ok := subcommands[os.Args[1]]; ok {
			if err := sub(ctx, os.Args[2:]); err != nil {
				fmt.Fprintf(os.Stderr, "prove %s: %v\n", os.Args[1], err)
				stop()
				os.Exit(1)
			}
			return
		}
	}
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: prove [flags]\n       prove verify [--vk FILE] DIR\n       prove worker --nats URL --credentials FILE [flags]\n       prove credentials --out DIR [flags]\n\nProves a greedy generation of a model and verifies it natively, as a Groth16 proof and on a simulated EVM. prove verify checks a run's saved proof offline (prove verify -h); prove worker takes the jobs of distributed runs (prove worker -h); prove credentials writes a deployment's identities and server users (prove credentials -h).\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *gnarkLogFlag {
		logger.Set(zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: "15:04:05"}).With().Timestamp().Logger())
	}
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "prove:", err)
		stop()
		os.Exit(1)
	}
}

// infoWriter is where a run's progress goes: stdout, except with --plan
// --json, whose stdout holds the JSON only.
func infoWriter() io.Writer {
	if *planFlag && *jsonFlag {
		return os.Stderr
	}
	return os.Stdout
}

// loadModel loads the model with its tokenizer and describes it on w.
func loadModel(src model.Source, bos tokenizer.BOSMode, w io.Writer) (*model.Model, error) {
	m, err := src.LoadText(bos)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "model: %s (%s), %d layers, d=%d, %s, vocabulary %d\n", src, m.Config.Family, m.Config.Layers, m.Config.Hidden, describeHeads(&m.Config), m.Config.Vocab)
	return m, nil
}

func run(ctx context.Context) error {
	// Every check that needs no model comes first, then those that need
	// only the config and the tokenizer; the weights load last.
	dep, err := checkFlags()
	if err != nil {
		return err
	}
	design := dep.Design
	bos, err := modelFlags.BOSMode()
	if err != nil {
		return err
	}
	template, err := solidity.ParseTemplate(*verifierFlag)
	if err != nil {
		return err
	}
	src, err := modelFlags.Source()
	if err != nil {
		return err
	}
	if *batchFlag != "" {
		return runBatch(ctx, dep, src, bos, template)
	}
	if *listFlag != "" {
		return runList(ctx, dep, src, bos, template)
	}
	prompt, err := encodePrompt(src, *promptFlag, bos, *tokensFlag)
	if err != nil {
		return err
	}
	info := infoWriter()
	m, err := loadModel(src, bos, info)
	if err != nil {
		return err
	}
	tok := m.Tokenizer
	fmt.Fprintf(info, "prompt: %q (%d tokens%s), generating %d tokens\n", *promptFlag, len(prompt), bosNote(tok), *tokensFlag)
	opts := pipeline.Options{Model: m, ModelDir: src.Dir, ModelName: src.Builtin, Prompt: prompt, Tokens: *tokensFlag, Bucket: *bucketFlag, CacheDir: *keyFlags.Cache, KeyKind: keyFlags.Kind(), Chain: *chainFlag, Verifier: template, Log: info,
		Generated: func(output []int) {
			// The text is known long before the proof: show it now.
			fmt.Printf("  output: %s\n", describe(tok, output))
		}}
	aggOpts := pipeline.AggregatedOptions{Options: opts, NativeJobs: *jobsFlag, Wrap: *wrapFlag}
	dep.Apply(&aggOpts)
	if *planFlag {
		// A turn's circuits are fixed by the cache's capacity.
		if *continueFlag != "" {
			conv, err := pipeline.ReadConversation(*continueFlag)
			if err != nil {
				return err
			}
			aggOpts.Capacity = conv.Capacity
		}
		return plan(design, aggOpts, len(prompt))
	}
	if design == pipeline.Aggregated {
		q, done, err := workersQueue(ctx, src)
		if err != nil {
			return err
		}
		defer done()
		aggOpts.Queue = q
	}
	if *capacityFlag > 0 || *continueFlag != "" {
		return runTurn(ctx, aggOpts, tok)
	}
	var rep *pipeline.Report
	if design == pipeline.Direct {
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
	return finish(ctx, rep)
}

// finish prints a run's stages (--stats), writes its artifacts (--out)
// and submits its proof (--submit).
func finish(ctx context.Context, rep *pipeline.Report) error {
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
	return submit(ctx, rep)
}

// submit sends the run's list with its final proof to the registry
// behind --rpc-url with --submit: every kind of run the same way.
func submit(ctx context.Context, rep *pipeline.Report) error {
	if !*submitFlag {
		return nil
	}
	if rep.Proof == nil {
		return errors.New("--submit needs a final proof: use the direct design, or --wrap with the aggregated one")
	}
	key, err := solidity.LoadKey(*keystoreFlag, *passwordFlag)
	if err != nil {
		return err
	}
	receipt, err := solidity.SubmitRPC(ctx, *rpcFlag, key, solidity.ChainID(*chainIDFlag), common.HexToAddress(*registryFlag), rep.Proof, rep.List)
	if err != nil {
		return fmt.Errorf("submit: %w", err)
	}
	fmt.Printf("submitted %d leaves in transaction %s (block %d, %d gas)\n", len(rep.List.Leaves), receipt.TxHash, receipt.BlockNumber, receipt.GasUsed)
	return nil
}

// checkFlags checks the flags that need no model and returns the
// deployment.
func checkFlags() (flags.Spec, error) {
	dep, err := deployFlags.Parse()
	if err != nil {
		return flags.Spec{}, err
	}
	design := dep.Design
	if *submitFlag && (*rpcFlag == "" || *registryFlag == "") {
		return flags.Spec{}, errors.New("--submit needs --rpc-url and --registry")
	}
	if *submitFlag && !common.IsHexAddress(*registryFlag) {
		return flags.Spec{}, fmt.Errorf("--registry %q is not an address", *registryFlag)
	}
	if *submitFlag && design == pipeline.Aggregated && !*wrapFlag {
		return flags.Spec{}, errors.New("--submit needs a final proof: with --design aggregated, add --wrap")
	}
	if *jsonFlag && !*planFlag {
		return flags.Spec{}, errors.New("--json goes with --plan")
	}
	if *tokensFlag < 1 {
		return flags.Spec{}, errors.New("--tokens must be at least 1")
	}
	if *jobsFlag < 0 {
		return flags.Spec{}, errors.New("--native-jobs must be at least 0")
	}
	if err := flags.CheckBucket(*bucketFlag); err != nil {
		return flags.Spec{}, err
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := checkTurnFlags(design, set); err != nil {
		return flags.Spec{}, err
	}
	if err := checkStreamFlags(); err != nil {
		return flags.Spec{}, err
	}
	if err := checkBatchFlags(design, set); err != nil {
		return flags.Spec{}, err
	}
	if err := checkListFlags(design, set); err != nil {
		return flags.Spec{}, err
	}
	if err := checkWorkerFlags(design, set); err != nil {
		return flags.Spec{}, err
	}
	return dep, nil
}

// checkTurnFlags checks the flags of a conversation's turn: the
// aggregated design, a capacity or a conversation to continue (not both),
// and no --plan (set: the flags given on the command line).
func checkTurnFlags(design pipeline.Design, set map[string]bool) error {
	if *capacityFlag == 0 && *continueFlag == "" {
		return nil
	}
	if *capacityFlag > 0 && *continueFlag != "" && !set["mix"] {
		return errors.New("--continue reads the capacity from the conversation: drop --capacity")
	}
	if design != pipeline.Aggregated {
		return errors.New("a conversation's turns (--capacity, --continue) are proven in the aggregated design: add --design aggregated")
	}
	return nil
}

// checkStreamFlags checks that --stream goes with a conversation's turn.
func checkStreamFlags() error {
	if *streamFlag && *capacityFlag == 0 && *continueFlag == "" {
		return errors.New("--stream proves a conversation's turns: add --capacity (a new conversation) or --continue")
	}
	return nil
}

// runTurn proves a conversation's turn (--capacity, --continue) and
// writes its artifacts.
func runTurn(ctx context.Context, aggOpts pipeline.AggregatedOptions, tok *tokenizer.Codec) error {
	opts := pipeline.TurnOptions{AggregatedOptions: aggOpts}
	out := *outFlag
	var conv *pipeline.Conversation
	if dir := *continueFlag; dir != "" {
		var err error
		if conv, err = pipeline.ReadConversation(dir); err != nil {
			return err
		}
		if opts.Capacity > 0 && opts.Capacity != conv.Capacity {
			return fmt.Errorf("%s: a conversation over a cache of %d rows, the deployment's --capacity is %d", dir, conv.Capacity, opts.Capacity)
		}
		opts.Capacity, opts.History = conv.Capacity, conv.History
		state, ok := new(big.Int).SetString(strings.TrimPrefix(conv.State, "0x"), 16)
		if !ok {
			return fmt.Errorf("%s: the conversation's state %q", dir, conv.State)
		}
		opts.StateIn = state
		if opts.Earlier, err = conv.Recorded(); err != nil {
			return err
		}
		if out == "" {
			out = dir
		}
		fmt.Printf("conversation: %d cached tokens of %d, state %s\n", len(conv.History), conv.Capacity, conv.State)
	} else {
		opts.Capacity = *capacityFlag
	}
	if *streamFlag {
		return runStream(ctx, opts, out, tok)
	}
	rep, err := pipeline.RunTurn(ctx, opts)
	if err != nil {
		// A proof made before a failed on-chain stage is kept.
		if rep != nil && rep.Proof != nil && out != "" {
			if werr := pipeline.WriteTurnArtifacts(out, rep); werr != nil {
				return fmt.Errorf("%w (and writing the turn to %s: %v)", err, out, werr)
			}
			fmt.Fprintf(os.Stderr, "the turn, verified natively, is written to %s\n", out)
		}
		return err
	}
	if conv != nil && fmt.Sprintf("%#x", rep.List.ModelID) != conv.ModelID {
		return fmt.Errorf("the conversation was proven with model id %s, this turn's is %#x", conv.ModelID, rep.List.ModelID)
	}
	fmt.Printf("\noutput: %s\n", describe(tok, rep.Output))
	fmt.Printf("turn: %s\n", rep.Turn)
	if *statsFlag {
		fmt.Println()
		if err := rep.WriteStats(os.Stdout); err != nil {
			return err
		}
	}
	if out != "" {
		if err := pipeline.WriteTurnArtifacts(out, rep); err != nil {
			return err
		}
		fmt.Printf("artifacts written to %s (continue the conversation with --continue %s)\n", out, out)
	}
	return submit(ctx, rep.Report)
}

// runStream proves a generation token by token (--stream): it writes
// each turn's artifacts as soon as the turn is proven, and prints a line
// per turn and the cost per token of the one-token turns.
func runStream(ctx context.Context, opts pipeline.TurnOptions, out string, tok *tokenizer.Codec) error {
	plan, err := pipeline.PlanStream(opts.Model, len(opts.Prompt), opts.Tokens, opts.Bucket, opts.Buckets)
	if err != nil {
		return err
	}
	fmt.Printf("stream: a first turn of %d tokens in the bucket of %d rows, then %d turns of one token (buckets %v)\n", plan.First, plan.FirstRows, opts.Tokens-plan.First, plan.Buckets)
	var output []int
	var perToken []time.Duration
	reports, err := pipeline.RunStream(ctx, opts, func(rep *pipeline.TurnReport) error {
		output = append(output, rep.Output...)
		if len(rep.Output) == 1 && rep.Rows == 1 {
			perToken = append(perToken, rep.Duration())
		}
		size := ""
		if rep.ProofBytes > 0 {
			size = fmt.Sprintf(", proof %d bytes", rep.ProofBytes)
		}
		fmt.Printf("turn: %s, proven in %v (native %v%s), state %#x\n", describe(tok, rep.Output), rep.Duration().Round(time.Millisecond),
			rep.Duration("native segment proofs").Round(time.Millisecond), size, rep.Turn.StateOut)
		if out != "" {
			if err := pipeline.WriteTurnArtifacts(out, rep); err != nil {
				return err
			}
		}
		return submit(ctx, rep.Report)
	})
	if err != nil {
		if len(reports) > 0 && out != "" {
			fmt.Fprintf(os.Stderr, "the stream's first %d turns are written to %s (continue with --continue %s)\n", len(reports), out, out)
		}
		return err
	}
	fmt.Printf("\noutput: %s\n", describe(tok, output))
	if len(perToken) > 0 {
		var sum time.Duration
		for _, d := range perToken {
			sum += d
		}
		fmt.Printf("one-token turns: %d, %v each on average\n", len(perToken), (sum / time.Duration(len(perToken))).Round(time.Millisecond))
	}
	if out != "" {
		fmt.Printf("artifacts written to %s (continue the conversation with --continue %s)\n", out, out)
	}
	return nil
}

// encodePrompt reads only the model's config and tokenizer: it encodes
// the prompt and checks that the pass over the prompt and all generated
// tokens but the last fits the model's context.
func encodePrompt(src model.Source, text string, bos tokenizer.BOSMode, tokens int) ([]int, error) {
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

// plan prints the plan of a run (--plan, --json).
func plan(design pipeline.Design, opts pipeline.AggregatedOptions, promptLen int) error {
	items, err := pipeline.Plan(design, opts, promptLen)
	if err != nil {
		return err
	}
	if *jsonFlag {
		return pipeline.WritePlanJSON(os.Stdout, items)
	}
	return pipeline.WritePlan(os.Stdout, items)
}

// describeHeads names the model's heads and, when the integer pass pads
// them, the layout it computes in.
func describeHeads(c *model.Config) string {
	hl := c.HeadLayout()
	s := fmt.Sprintf("%d heads", c.Heads)
	if c.KVHeads != c.Heads {
		s += fmt.Sprintf(" (%d key/value)", c.KVHeads)
	}
	if hl.Padded() {
		s += fmt.Sprintf(" of %d, padded to %d heads (%d key/value) of %d", c.HeadDim(), hl.Heads, hl.KVHeads, hl.HeadDim)
	}
	return s
}
