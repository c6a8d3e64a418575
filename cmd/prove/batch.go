package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/veriformer/veriformer/cmd/internal/flags"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

// checkBatchFlags checks the flags of a batch (--batch): the aggregated
// design, no conversation, no plan, the prompts and lengths from the
// file; --batch-slots only with --batch.
func checkBatchFlags(design pipeline.Design, set map[string]bool) error {
	if !set["batch"] {
		if set["batch-slots"] {
			return errors.New("--batch-slots goes with --batch")
		}
		return nil
	}
	switch {
	case design != pipeline.Aggregated:
		return errors.New("a batch (--batch) is proven in the aggregated design: add --design aggregated")
	case set["capacity"] || set["continue"] || set["stream"]:
		return errors.New("a batch of conversations' turns is not supported: drop --capacity, --continue and --stream")
	case set["prompt"] || set["tokens"]:
		return errors.New("--batch reads each request's prompt and tokens from the file: drop --prompt and --tokens")
	}
	return nil
}

// fileLine is a line of a batch or list file as read: the request (with
// its error when it cannot be one), the conversation a list's turn names,
// and where the line is (path:line).
type fileLine struct {
	pipeline.BatchRequest
	Conversation, Where string
}

// readLines reads a batch or list file and encodes its text prompts: a
// line that cannot be read or encoded gets its error, which the run
// reports before leaving the line out.
func readLines(path string, src model.Source, bos tokenizer.BOSMode) ([]fileLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines, err := pipeline.ParseBatchFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]fileLine, len(lines))
	for i, l := range lines {
		q := &out[i]
		q.Tokens, q.Conversation = l.Line.Tokens, l.Line.Conversation
		q.Where = fmt.Sprintf("%s:%d", path, l.Number)
		switch {
		case l.Err != nil:
			q.Err = l.Err
		case l.Line.Prompt != nil:
			q.Prompt, q.Err = encodePrompt(src, *l.Line.Prompt, bos, l.Line.Tokens)
		default:
			q.Prompt = l.Line.PromptTokens
		}
	}
	return out, nil
}

// batchRequests reads the batch file: a line that cannot be read or
// encoded, or a turn's, becomes a request with its error, which the run
// reports and leaves out. It returns each request's place in the file
// (path:line) too.
func batchRequests(path string, src model.Source, bos tokenizer.BOSMode) ([]pipeline.BatchRequest, []string, error) {
	lines, err := readLines(path, src, bos)
	if err != nil {
		return nil, nil, err
	}
	requests := make([]pipeline.BatchRequest, len(lines))
	where := make([]string, len(lines))
	for i, l := range lines {
		requests[i], where[i] = l.BatchRequest, l.Where
		if l.Err == nil && l.Conversation != "" {
			requests[i].Err = errors.New("a conversation's turn goes in a mixed list (--list with --mix), not in a batch")
		}
	}
	return requests, where, nil
}

// runBatch proves the batch of --batch, prints each request's outcome,
// writes the artifacts with --out and submits the batch with --submit.
func runBatch(ctx context.Context, dep flags.Spec, src model.Source, bos tokenizer.BOSMode, template solidity.Template) error {
	requests, where, err := batchRequests(*batchFlag, src, bos)
	if err != nil {
		return err
	}
	m, err := loadModel(src, bos, infoWriter())
	if err != nil {
		return err
	}
	tok := m.Tokenizer
	fmt.Fprintf(infoWriter(), "batch: %d requests from %s\n", len(requests), *batchFlag)
	opts := pipeline.BatchOptions{
		AggregatedOptions: pipeline.AggregatedOptions{
			Options:    pipeline.Options{Model: m, ModelDir: src.Dir, ModelName: src.Builtin, Bucket: *bucketFlag, CacheDir: *keyFlags.Cache, KeyKind: keyFlags.Kind(), Chain: *chainFlag, Verifier: template, Log: infoWriter()},
			NativeJobs: *jobsFlag, Wrap: *wrapFlag,
		},
		Requests: requests,
	}
	dep.Apply(&opts.AggregatedOptions)
	if *planFlag {
		// The bucket the requests the circuits' slots hold would fill.
		if opts.Slots == 0 {
			opts.Slots = pipeline.DefaultBatchSlots
		}
		rows, taken := 0, 0
		for _, r := range requests {
			if r.Err == nil && taken < opts.Slots {
				rows += len(r.Prompt) + r.Tokens - 1
				taken++
			}
		}
		if opts.Bucket == 0 {
			if opts.Bucket, err = pipeline.BatchRows(max(rows, 1), 0); err != nil {
				return err
			}
		}
		opts.Prompt, opts.Tokens = []int{0}, 1
		return plan(pipeline.Aggregated, opts.AggregatedOptions, 1)
	}
	q, done, err := workersQueue(ctx, src)
	if err != nil {
		return err
	}
	defer done()
	opts.Queue = q
	rep, err := pipeline.RunBatch(ctx, opts)
	if err != nil {
		// A proof made before a failed on-chain stage is kept.
		if rep != nil && rep.Proof != nil && *outFlag != "" {
			if werr := pipeline.WriteBatchArtifacts(*outFlag, rep); werr != nil {
				return fmt.Errorf("%w (and writing the proof to %s: %v)", err, *outFlag, werr)
			}
			fmt.Fprintf(os.Stderr, "the proof, verified natively, is written to %s\n", *outFlag)
		}
		return err
	}
	fmt.Println()
	for i, res := range rep.Results {
		if res.Index < 0 {
			fmt.Printf("request %d (%s): left out: %v\n", i+1, where[i], res.Err)
			continue
		}
		fmt.Printf("request %d (%s): leaf %d of the list, output %s\n", i+1, where[i], res.Index, describe(tok, res.Output))
	}
	fmt.Printf("batch: %d of %d requests proven in a bucket of %d rows, model id %#x, list digest %#x\n",
		rep.Proven(), len(rep.Results), rep.Rows, rep.Statement.ModelID, rep.Statement.InputDigest)
	if *statsFlag {
		fmt.Println()
		if err := rep.WriteStats(os.Stdout); err != nil {
			return err
		}
	}
	if *outFlag != "" {
		if err := pipeline.WriteBatchArtifacts(*outFlag, rep); err != nil {
			return err
		}
		fmt.Printf("artifacts written to %s\n", *outFlag)
	}
	return submit(ctx, rep.Report)
}
