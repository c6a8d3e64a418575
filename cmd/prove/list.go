package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/veriformer/veriformer/cmd/internal/flags"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/model/tokenizer"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/solidity"
)

// checkListFlags checks the flags of a mixed list (--list): the
// aggregated design, a deployment with mixed lists (--mix, --capacity),
// the prompts and lengths from the file, no batch, no lone turn.
func checkListFlags(design pipeline.Design, set map[string]bool) error {
	if !set["list"] {
		return nil
	}
	switch {
	case design != pipeline.Aggregated:
		return errors.New("a mixed list (--list) is proven in the aggregated design: add --design aggregated")
	case !set["mix"] || !set["capacity"]:
		return errors.New("a mixed list needs its deployment's --mix R,T and the turns' --capacity")
	case set["batch"] || set["continue"] || set["stream"]:
		return errors.New("--list proves the list's turns itself: drop --batch, --continue and --stream")
	case set["prompt"] || set["tokens"]:
		return errors.New("--list reads each leaf's prompt and tokens from the file: drop --prompt and --tokens")
	}
	return nil
}

// conversationOf reads the conversation in dir (conversation.json) as
// the next turn of a mixed list: its history, the state its last turn
// left and its turns so far. A directory without a conversation starts
// one. The capacity must be the deployment's.
func conversationOf(dir string, capacity int) (pipeline.ListTurn, error) {
	var t pipeline.ListTurn
	if _, err := os.Stat(filepath.Join(dir, "conversation.json")); errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	conv, err := pipeline.ReadConversation(dir)
	if err != nil {
		return t, err
	}
	if conv.Capacity != capacity {
		return t, fmt.Errorf("%s: a conversation over a cache of %d rows, the deployment's is %d", dir, conv.Capacity, capacity)
	}
	state, ok := new(big.Int).SetString(strings.TrimPrefix(conv.State, "0x"), 16)
	if !ok {
		return t, fmt.Errorf("%s: the conversation's state %q", dir, conv.State)
	}
	t.History, t.StateIn = conv.History, state
	if t.Earlier, err = conv.Recorded(); err != nil {
		return t, err
	}
	return t, nil
}

// listLeaves reads the list file: its request lines (no "conversation")
// and turn lines ("conversation": the directory of the conversation the
// turn continues, or starts), the first of each the deployment's mix
// holds. A line that cannot be read, encoded or held is printed as left
// out with its file and line; too few of either refuse the run before
// anything is proven. It returns the turns' directories too.
func listLeaves(path string, mix *pipeline.Mix, capacity int, src model.Source, bos tokenizer.BOSMode) ([]pipeline.ListRequest, []pipeline.ListTurn, []string, error) {
	lines, err := readLines(path, src, bos)
	if err != nil {
		return nil, nil, nil, err
	}
	var (
		reqs  []pipeline.ListRequest
		turns []pipeline.ListTurn
		dirs  []string
	)
	for _, q := range lines {
		leave := func(err error) { fmt.Fprintf(infoWriter(), "line %s: left out: %v\n", q.Where, err) }
		switch {
		case q.Err != nil:
			leave(q.Err)
		case q.Conversation == "" && len(reqs) == mix.Requests:
			leave(fmt.Errorf("past the list's %s", pipeline.Count(mix.Requests, "request")))
		case q.Conversation == "":
			reqs = append(reqs, pipeline.ListRequest{Prompt: q.Prompt, Tokens: q.Tokens})
		case len(turns) == mix.Turns:
			leave(fmt.Errorf("past the list's %s", pipeline.Count(mix.Turns, "turn")))
		default:
			t, err := conversationOf(q.Conversation, capacity)
			if err != nil {
				leave(err)
				continue
			}
			t.Prompt, t.Tokens = q.Prompt, q.Tokens
			turns, dirs = append(turns, t), append(dirs, q.Conversation)
		}
	}
	if len(reqs) < mix.Requests || len(turns) < mix.Turns {
		return nil, nil, nil, fmt.Errorf("%s: %s and %s to prove, the deployment's lists hold %d and %d (--mix)", path, pipeline.Count(len(reqs), "request"), pipeline.Count(len(turns), "turn"), mix.Requests, mix.Turns)
	}
	return reqs, turns, dirs, nil
}

// runList proves the mixed list of --list, prints each leaf, writes each
// turn's artifacts to its conversation's directory and the list's to
// --out, and submits the list with --submit.
func runList(ctx context.Context, dep flags.Spec, src model.Source, bos tokenizer.BOSMode, template solidity.Template) error {
	reqs, turns, dirs, err := listLeaves(*listFlag, dep.Mix, dep.Capacity, src, bos)
	if err != nil {
		return err
	}
	m, err := loadModel(src, bos, infoWriter())
	if err != nil {
		return err
	}
	tok := m.Tokenizer
	fmt.Fprintf(infoWriter(), "list: %s and %s from %s\n", pipeline.Count(len(reqs), "request"), pipeline.Count(len(turns), "turn"), *listFlag)
	opts := pipeline.ListOptions{
		AggregatedOptions: pipeline.AggregatedOptions{
			Options:    pipeline.Options{Model: m, ModelDir: src.Dir, ModelName: src.Builtin, Bucket: *bucketFlag, CacheDir: *keyFlags.Cache, KeyKind: keyFlags.Kind(), Chain: *chainFlag, Verifier: template, Log: infoWriter()},
			NativeJobs: *jobsFlag, Wrap: *wrapFlag, MixedList: true,
		},
		Requests: reqs, Turns: turns,
	}
	dep.Apply(&opts.AggregatedOptions)
	if *planFlag {
		// Every leaf is proven in the bucket of the longest.
		if opts.Bucket, err = opts.Rows(); err != nil {
			return err
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
	rep, err := pipeline.RunList(ctx, opts)
	if rep != nil && rep.Aggregated != nil {
		// The turns' artifacts, even when the on-chain stage failed.
		for i, t := range rep.Turns {
			if werr := pipeline.WriteTurnArtifacts(dirs[i], t); werr != nil {
				return errors.Join(err, werr)
			}
		}
	}
	if err != nil {
		return err
	}
	fmt.Println()
	for i, out := range rep.Outputs {
		fmt.Printf("request %d: leaf %d, output %s\n", i+1, i, describe(tok, out))
	}
	for i, t := range rep.Turns {
		fmt.Printf("turn %d (%s): leaf %d, output %s, state %#x → %#x (continue with a line naming %s)\n", i+1, dirs[i], len(reqs)+i, describe(tok, t.Output), t.Turn.StateIn, t.Turn.StateOut, dirs[i])
	}
	fmt.Printf("list: %d leaves in a bucket of %d rows, model id %#x, list digest %#x\n", len(rep.List.Leaves), rep.Rows, rep.Statement.ModelID, rep.Statement.InputDigest)
	return finish(ctx, rep.Report)
}
