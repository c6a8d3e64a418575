package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"time"

	bls12377fr "github.com/consensys/gnark-crypto/ecc/bls12-377/fr"
	"github.com/consensys/gnark/backend/groth16"
	"github.com/ethereum/go-ethereum/common"

	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// DefaultBatchSlots is the number of request slots of a batch's circuits
// when BatchOptions does not say (AggregatedOptions.Slots): a batch of
// more requests is cut at that many, the others reported and left out.
const DefaultBatchSlots = 32

// MaxBatchRows bounds a batch's bucket: 2¹⁵ rows, the last slot of the
// bucket tree's first half.
const MaxBatchRows = 1 << 15

// BatchRows returns the bucket of a batch's pass of n rows: bucket when
// it is set (a power of two of at least n rows, at most MaxBatchRows),
// else the smallest power of two that holds n rows. Unlike a single
// request's bucket ([Rows]) it may exceed the model's context: positions
// restart per request.
func BatchRows(n, bucket int) (int, error) {
	if n < 1 || n > MaxBatchRows {
		return 0, fmt.Errorf("pipeline: a batch of %d rows, want 1 to %d", n, MaxBatchRows)
	}
	if bucket == 0 {
		return 1 << bits.Len(uint(n-1)), nil
	}
	if bucket < n || bucket > MaxBatchRows || bucket&(bucket-1) != 0 {
		return 0, fmt.Errorf("pipeline: a batch's bucket of %d rows for %d rows: want a power of two of %d to %d rows", bucket, n, n, MaxBatchRows)
	}
	return bucket, nil
}

// BatchRequest is one request of a batch: a prompt, and how many tokens
// to generate greedily after it. Err, when set, is why the request could
// not be read (a line of a batch file, [ParseBatchFile]): RunBatch
// reports it and leaves the request out.
type BatchRequest struct {
	Prompt []int
	Tokens int
	Err    error
}

// BatchOptions configure a batch's run ([RunBatch]). Of the embedded
// options, Prompt and Tokens are unused; Bucket is the batch's bucket
// (0 for the smallest of Buckets, or the smallest power of two, that
// holds the stacked requests, [BatchRows]); Buckets are the batch
// buckets the deployment covers; Slots the circuits' request slots
// (DefaultBatchSlots when 0).
type BatchOptions struct {
	AggregatedOptions
	Requests []BatchRequest
}

// BatchResult is what became of one request of a batch: the tokens it
// generated and its place in the batch's statements, or why it was left
// out.
type BatchResult struct {
	Prompt []int
	Output []int
	// Index is the request's place among the batch's statements, −1 when
	// it was left out.
	Index int
	Err   error
}

// BatchReport is the outcome of a batch's run: the run's Report (its
// Rows the batch's bucket, its Statement the final model id, the list
// digest and the number of requests, its List the requests' leaves under
// the final model id, what the registry's submit takes; Prompt and
// Output empty), each request's result in the order given and the
// requests proven.
type BatchReport struct {
	*Report
	Results []BatchResult
	Stack   statement.Stack
	// Root is the root the registry stored (zero without the chain).
	Root common.Hash
}

// Proven returns how many requests the batch proves.
func (r *BatchReport) Proven() int { return len(r.Stack.Requests) }

// RunBatch proves many greedy generations of one model in one pass in
// the aggregated design: each request is generated on its own, then the
// requests are stacked in the rows of one batch bucket (statement.Stack:
// a block-diagonal causal mask, positions restarting per request) and
// that pass is proven as one, by the batch's segment circuits, the list
// aggregator and, with Wrap, the wrapper, whose one public input is the
// statement digest of the requests' list (statement.List.Digest). A
// request that cannot be
// proven (a bad prompt, beyond the context, beyond the circuits' slots
// or the deployment's largest bucket) is reported in its BatchResult and
// left out; the others go on. With Wrap and Chain, the wrapper's
// verifier and the registry are deployed on a new simulated chain and
// the list is recorded (the registry's submit); solcjs must be found before
// anything is proven, and if the on-chain stage fails the report of the
// verified proof is returned with the error.
func RunBatch(ctx context.Context, opts BatchOptions) (*BatchReport, error) {
	if len(opts.Requests) == 0 {
		return nil, fmt.Errorf("pipeline: a batch of no requests")
	}
	if len(opts.Requests) > statement.MaxLeaves {
		return nil, fmt.Errorf("pipeline: a batch of %d requests, at most %d", len(opts.Requests), statement.MaxLeaves)
	}
	if opts.Capacity > 0 {
		return nil, fmt.Errorf("pipeline: a batch of conversations' turns is not supported (drop the capacity)")
	}
	if opts.Slots == 0 {
		opts.Slots = DefaultBatchSlots
	}
	if opts.Chain && opts.Wrap {
		if err := checkSolc(); err != nil {
			return nil, err
		}
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	largest := opts.Bucket
	for _, b := range opts.Buckets {
		largest = max(largest, b)
	}
	if largest == 0 {
		largest = MaxBatchRows
	}
	if _, err := BatchRows(1, largest); err != nil {
		return nil, err
	}
	if len(opts.Buckets) > 0 {
		if err := checkDeployment(opts.Model, opts.Buckets, largest, true); err != nil {
			return nil, err
		}
	}
	r := &runner{opts: &opts.Options, report: &Report{Verifier: opts.Verifier}, ctx: ctx}
	rep := &BatchReport{Report: r.report, Results: make([]BatchResult, len(opts.Requests))}
	var (
		pass committed.Pass
		rows int
	)
	if err := r.stage("inference", func() (string, error) {
		var err error
		rows, err = r.generateBatch(&opts, largest, rep)
		if err != nil {
			return "", err
		}
		rep.Stack = statement.Stack{Requests: rep.Stack.Requests, Rows: rows}
		pass = committed.Pass{Rows: rows, Batch: rep.Stack.Requests}
		return fmt.Sprintf("%d of %d requests, %d rows in the bucket of %d", rep.Proven(), len(opts.Requests), rep.Stack.Len(), rows), nil
	}); err != nil {
		return nil, err
	}
	rep.Rows = rows
	m := opts.Model
	tr, err := m.ForwardStacked(pass.Tokens(), pass.Begins())
	if err != nil {
		return nil, fmt.Errorf("pipeline: the batch's pass: %w", err)
	}
	opts.Bucket = rows
	keys, err := r.setupAggregated(&opts.AggregatedOptions, 1, 1)
	if err != nil {
		return nil, err
	}
	rep.Constraints = keys.SegmentConstraints
	st, list, aggProof, err := r.proveAggregated(&opts.AggregatedOptions, keys, pass, tr)
	if err != nil {
		return nil, err
	}
	rep.setAggregated(keys, st, list, aggProof)
	if err := rep.checkList(); err != nil {
		return nil, err
	}
	if !opts.Wrap {
		return rep, nil
	}
	if err := r.wrap(keys, rep.Report); err != nil {
		return nil, err
	}
	if opts.Chain {
		if err := r.recordBatch(ctx, keys.Wrapper.VK, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// generateBatch generates each request of opts on its own, in order,
// reporting each one's result in rep.Results and stacking those that
// can be proven in rep.Stack: a request is left out when it was not read,
// its prompt holds a token outside the vocabulary, its generation
// exceeds the context, the circuits' slots are full, or its rows would
// take the batch beyond the largest bucket. It returns the batch's bucket.
func (r *runner) generateBatch(opts *BatchOptions, largest int, rep *BatchReport) (int, error) {
	m := opts.Model
	total := 0
	for i, q := range opts.Requests {
		res := &rep.Results[i]
		res.Prompt, res.Index = q.Prompt, -1
		start := time.Now()
		res.Err = func() error {
			if q.Err != nil {
				return q.Err
			}
			if len(q.Prompt) == 0 || q.Tokens < 1 {
				return fmt.Errorf("need a prompt and at least one token to generate")
			}
			for k, t := range q.Prompt {
				if t < 0 || t >= m.Config.Vocab {
					return fmt.Errorf("prompt token %d is %d, outside the vocabulary of %d", k, t, m.Config.Vocab)
				}
			}
			n := len(q.Prompt) + q.Tokens - 1
			if n > m.Config.MaxPositions {
				return fmt.Errorf("%d prompt and %d generated tokens need %d positions, beyond the model's context of %d", len(q.Prompt), q.Tokens, n, m.Config.MaxPositions)
			}
			if len(rep.Stack.Requests) == opts.Slots {
				return fmt.Errorf("the batch's circuits have %d request slots, all taken", opts.Slots)
			}
			if total+n > largest {
				return fmt.Errorf("its %d rows would take the batch to %d rows, beyond the largest bucket of %d", n, total+n, largest)
			}
			gen, err := m.Generate(q.Prompt, q.Tokens)
			if err != nil {
				return err
			}
			res.Output = gen.Tokens
			return nil
		}()
		if res.Err != nil {
			r.logf("  request %d/%d: left out: %v", i+1, len(opts.Requests), res.Err)
			continue
		}
		res.Index = len(rep.Stack.Requests)
		rep.Stack.Requests = append(rep.Stack.Requests, statement.Request{Prompt: q.Prompt, Output: res.Output})
		total += len(q.Prompt) + q.Tokens - 1
		r.logf("  request %d/%d: %d prompt tokens, %d generated in %v, rows %d–%d of the pass", i+1, len(opts.Requests), len(q.Prompt), len(res.Output),
			time.Since(start).Round(time.Millisecond), total-(len(q.Prompt)+q.Tokens-1), total-1)
	}
	if len(rep.Stack.Requests) == 0 {
		return 0, fmt.Errorf("pipeline: no request of the batch can be proven")
	}
	rows, err := batchBucket(opts, total)
	if err != nil {
		return 0, err
	}
	stack := statement.Stack{Requests: rep.Stack.Requests, Rows: rows}
	if err := stack.Check(m.Config.Vocab, m.Config.MaxPositions); err != nil {
		return 0, fmt.Errorf("pipeline: %w", err)
	}
	return rows, nil
}

// batchBucket returns the bucket of a batch's pass of n rows: opts.Bucket
// when set, else the smallest of opts.Buckets that holds it, else the
// smallest power of two ([BatchRows]).
func batchBucket(opts *BatchOptions, n int) (int, error) {
	if opts.Bucket != 0 || len(opts.Buckets) == 0 {
		return BatchRows(n, opts.Bucket)
	}
	best := 0
	for _, b := range opts.Buckets {
		if b >= n && (best == 0 || b < best) {
			best = b
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("pipeline: a batch of %d rows: the deployment's buckets are %v", n, opts.Buckets)
	}
	return BatchRows(n, best)
}

// checkList checks that the list the aggregator proved is the stack's
// requests' under the final model id.
func (rep *BatchReport) checkList() error {
	_, l, err := statement.StackStatement[bls12377fr.Element](rep.List.ModelID, rep.Stack)
	if err != nil {
		return err
	}
	got, err := rep.List.Digest()
	if err != nil {
		return err
	}
	want, err := l.Digest()
	if err != nil {
		return err
	}
	if got.Cmp(want) != 0 {
		return fmt.Errorf("pipeline: the aggregator proves list digest %#x, the batch's is %#x", got, want)
	}
	return nil
}

// recordBatch deploys the wrapper's verifier and the registry on a new
// simulated chain and records the batch's list: the registry must emit
// one InferenceVerified per request and the list's event, and then hold
// every request under the list's root.
func (r *runner) recordBatch(ctx context.Context, vk groth16.VerifyingKey, rep *BatchReport) error {
	d, err := r.deployContracts(ctx, vk, rep.List.ModelID, false)
	if err != nil {
		return err
	}
	defer d.sim.Close()
	registry := rep.Deployment.Registry
	return r.stage("on-chain record", func() (string, error) {
		receipt, err := d.chain.Submit(ctx, registry, rep.Proof, rep.List)
		if err != nil {
			return "", err
		}
		if err := checkRecorded(ctx, d.chain, registry, receipt, rep.List); err != nil {
			return "", err
		}
		events, err := solidity.Events(receipt, registry)
		if err != nil {
			return "", err
		}
		if len(events) != len(rep.List.Leaves) {
			return "", fmt.Errorf("the registry emitted %d inference events for %d requests", len(events), len(rep.List.Leaves))
		}
		if rep.Root, err = solidity.ListRoot(rep.List); err != nil {
			return "", err
		}
		rep.SubmitGas = receipt.GasUsed
		n := uint64(len(rep.List.Leaves))
		return fmt.Sprintf("%d requests under root %s, submit %d gas (%d per request)", n, rep.Root, receipt.GasUsed, receipt.GasUsed/n), nil
	})
}

// BatchLine is one line of a batch file ([ParseBatchFile]): a JSON
// object with the prompt as text ("prompt", for the model's tokenizer)
// or as token ids ("promptTokens"), one of the two, and the number of
// tokens to generate ("tokens"); in a mixed list's file, a turn names its
// conversation's directory too ("conversation").
type BatchLine struct {
	Prompt       *string `json:"prompt,omitempty"`
	PromptTokens []int   `json:"promptTokens,omitempty"`
	Tokens       int     `json:"tokens"`
	// Conversation, in a mixed list's file, makes the line a turn: the
	// directory of the conversation it continues or starts.
	Conversation string `json:"conversation,omitempty"`
}

// maxBatchFile bounds a batch file: MaxBatch lines of long prompts.
const maxBatchFile = 1 << 26

// maxLine bounds one line of a batch file.
const maxLine = 1 << 20

// ParsedLine is a line of a batch file as read: its number (from 1), the
// request, or why it cannot be one.
type ParsedLine struct {
	Number int
	Line   BatchLine
	Err    error
}

// ParseBatchFile reads a batch file: JSON Lines, one request a line
// ([BatchLine]), blank lines skipped. A line that is not such an object —
// bad JSON, an unknown field, both prompts or neither, a token count
// below 1 or above 2²⁰, a token id outside [0, 2²⁰) — gets its error and
// the others are still read, so that a batch goes on without it. The file
// as a whole is refused when it is larger than 64 MiB, has a line over
// 1 MiB, or holds no request line or more than statement.MaxLeaves. It
// never panics (fuzzed).
func ParseBatchFile(data []byte) ([]ParsedLine, error) {
	if len(data) > maxBatchFile {
		return nil, fmt.Errorf("pipeline: a batch file of %d bytes, at most %d", len(data), maxBatchFile)
	}
	var out []ParsedLine
	for i, line := range bytes.Split(data, []byte("\n")) {
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			continue
		}
		if len(out) == statement.MaxLeaves {
			return nil, fmt.Errorf("pipeline: a batch file of more than %d requests", statement.MaxLeaves)
		}
		p := ParsedLine{Number: i + 1}
		if len(text) > maxLine {
			p.Err = fmt.Errorf("a line of %d bytes, at most %d", len(text), maxLine)
		} else {
			p.Line, p.Err = parseBatchLine(text)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("pipeline: a batch file of no requests")
	}
	return out, nil
}

// parseBatchLine decodes and checks one line of a batch file.
func parseBatchLine(text []byte) (BatchLine, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	var l BatchLine
	if err := dec.Decode(&l); err != nil {
		return BatchLine{}, err
	}
	if dec.More() {
		return BatchLine{}, fmt.Errorf("data after the object")
	}
	switch {
	case l.Prompt != nil && l.PromptTokens != nil:
		return BatchLine{}, fmt.Errorf("both a prompt and prompt tokens: give one")
	case l.Prompt == nil && len(l.PromptTokens) == 0:
		return BatchLine{}, fmt.Errorf("no prompt: give \"prompt\" (text) or \"promptTokens\" (token ids)")
	case l.Prompt != nil && *l.Prompt == "":
		return BatchLine{}, fmt.Errorf("an empty prompt")
	case l.Tokens < 1 || l.Tokens > 1<<20:
		return BatchLine{}, fmt.Errorf("\"tokens\" is %d: want 1 to %d tokens to generate", l.Tokens, 1<<20)
	}
	for k, t := range l.PromptTokens {
		if t < 0 || t >= 1<<statement.TokenBits {
			return BatchLine{}, fmt.Errorf("prompt token %d is %d", k, t)
		}
	}
	return l, nil
}

// WriteBatchArtifacts writes a batch's outputs to dir: batch.json (the
// final model id, the list digest, the statement digest, the number of
// requests, the root the registry stored when it was recorded, and each
// request in the order given: its prompt, its output and statement's
// digests and place in the batch, or why it was left out) and the proof
// the run ends with, with what checks it ([VerifyArtifacts]). The registry's submit takes
// the model id and the list's words (each proven request's two digests,
// in order) with the proof.
func WriteBatchArtifacts(dir string, r *BatchReport) error {
	files := map[string][]byte{}
	if err := proofFiles(files, r.Report); err != nil {
		return err
	}
	digest, err := r.List.Digest()
	if err != nil {
		return err
	}
	type request struct {
		Prompt       []int  `json:"prompt"`
		Output       []int  `json:"output,omitempty"`
		Index        *int   `json:"index,omitempty"`
		InputDigest  string `json:"inputDigest,omitempty"`
		OutputDigest string `json:"outputDigest,omitempty"`
		Error        string `json:"error,omitempty"`
	}
	requests := make([]request, len(r.Results))
	for i, res := range r.Results {
		q := request{Prompt: res.Prompt, Output: res.Output}
		if res.Index >= 0 {
			index := res.Index
			q.Index = &index
			q.InputDigest = fmt.Sprintf("%#x", r.List.Leaves[index].Input)
			q.OutputDigest = fmt.Sprintf("%#x", r.List.Leaves[index].Output)
		} else if res.Err != nil {
			q.Error = res.Err.Error()
		}
		requests[i] = q
	}
	out := map[string]any{
		"modelId":         fmt.Sprintf("%#x", r.List.ModelID),
		"listDigest":      fmt.Sprintf("%#x", r.Statement.InputDigest),
		"statementDigest": fmt.Sprintf("%#x", digest),
		"count":           len(r.List.Leaves),
		"rows":            r.Rows,
		"requests":        requests,
	}
	if r.Root != (common.Hash{}) {
		out["root"] = r.Root.Hex()
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	files["batch.json"] = append(b, '\n')
	return writeFiles(dir, files)
}
