package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"

	"github.com/consensys/gnark/backend/groth16"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/statement"
)

// TurnOptions configure one turn of a conversation in the aggregated
// design ([RunTurn]). AggregatedOptions.Capacity is the cache's rows, the
// same for every turn of the conversation (the circuits depend on it).
type TurnOptions struct {
	AggregatedOptions
	// History is the conversation's cached tokens, in order: the rows
	// the previous turns kept (their prompts and outputs,
	// committed.TurnKeep); empty for a first turn.
	History []int
	// StateIn, when not nil, is the digest the history's state must
	// have: the state out of the previous turn (Conversation.State).
	StateIn *big.Int
}

// TurnReport is the outcome of a turn: the run's Report (its output, its
// bucket, the aggregator's proof or the wrapper's), the states in and out
// of the conversation, the final turn statement (the model id the
// deployment's, as the wrapper states it) and the history after the
// turn.
type TurnReport struct {
	*Report
	StateIn, StateOut *committed.State
	Turn              statement.Turn
	History           []int
}

// RunTurn proves one turn of a conversation in the aggregated design:
// the request (opts.Prompt, opts.Tokens generated greedily) over the
// cache of opts.History, in the bucket that holds it, within a cache of
// opts.Capacity rows. The state in is the commitment to the history's
// cache (the empty state for a first turn); the turn's segments are
// proven natively and verified from it (committed.VerifyTurn), then by
// the turn segment circuits, the turn aggregator and, with Wrap, the turn
// wrapper, whose one public input is the turn's digest. The on-chain
// check of a turn (the registry's submitTurn) is not part of a run yet:
// Chain is refused.
func RunTurn(ctx context.Context, opts TurnOptions) (*TurnReport, error) {
	if err := opts.checkRun(); err != nil {
		return nil, err
	}
	if opts.Chain {
		return nil, fmt.Errorf("pipeline: a turn's on-chain check is not part of a run yet")
	}
	if opts.Capacity < 1 {
		return nil, fmt.Errorf("pipeline: a turn needs the cache's capacity (rows)")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	m := opts.Model
	if opts.Capacity > m.Config.MaxPositions {
		return nil, fmt.Errorf("pipeline: a cache of %d rows beyond the model's context of %d", opts.Capacity, m.Config.MaxPositions)
	}
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}}
	rep := &TurnReport{Report: r.report}
	rows, err := opts.rows(len(opts.Prompt), opts.Tokens)
	if err != nil {
		return nil, err
	}
	if len(opts.History)+rows > opts.Capacity {
		return nil, fmt.Errorf("pipeline: a history of %d rows and a turn in a bucket of %d exceed the cache's %d rows", len(opts.History), rows, opts.Capacity)
	}
	var (
		cache, next *model.Cache
		pass        statement.Request
		tr          *model.Trace
	)
	if err := r.stage("inference", func() (string, error) {
		cache = m.NewCache()
		if len(opts.History) > 0 {
			if _, err := m.Forward(cache, opts.History); err != nil {
				return "", fmt.Errorf("pipeline: the history: %w", err)
			}
		}
		output, err := m.Continue(cache, opts.Prompt, opts.Tokens)
		if err != nil {
			return "", err
		}
		pass = statement.Request{Prompt: opts.Prompt, Output: output, Rows: rows}
		if tr, next, err = committed.TurnTrace(m, cache, pass, opts.Capacity); err != nil {
			return "", err
		}
		rep.Output, rep.Rows = output, rows
		return fmt.Sprintf("%d tokens generated after %d cached rows, a pass in the bucket of %d, %d rows kept", len(output), cache.Len, rows, committed.TurnKeep(pass)), nil
	}); err != nil {
		return nil, err
	}
	r.generated(rep.Output)
	keys, err := r.setupAggregated(&opts.AggregatedOptions, len(opts.Prompt), len(rep.Output))
	if err != nil {
		return nil, err
	}
	rep.Constraints = keys.SegmentConstraints
	turn := committed.Turn{Start: cache.Len, Capacity: opts.Capacity}
	var (
		st       statement.Statement
		segments []recursion.SegmentProof
	)
	if err := r.stage("state in", func() (string, error) {
		var err error
		if rep.StateIn, err = committed.StateOf(keys.SRS, m, cache, opts.Capacity); err != nil {
			return "", err
		}
		if opts.StateIn != nil && rep.StateIn.Digest().Cmp(opts.StateIn) != 0 {
			return "", fmt.Errorf("pipeline: the history's cache has state %#x, the previous turn left %#x", rep.StateIn.Digest(), opts.StateIn)
		}
		return fmt.Sprintf("%d rows, digest %#x", rep.StateIn.Rows, rep.StateIn.Digest()), nil
	}); err != nil {
		return nil, err
	}
	conv := &turnProving{turn: turn, in: rep.StateIn}
	if st, segments, err = r.proveSegments(&opts.AggregatedOptions, keys, pass, tr, conv); err != nil {
		return nil, err
	}
	rep.StateOut = conv.out
	in, out := rep.StateIn.Digest(), rep.StateOut.Digest()
	aggTurn := recursion.AggregatorTurn{Layers: m.Config.Layers, Capacity: opts.Capacity}
	a := recursion.TurnAggregatorAssignment(keys.Shapes, gpcs.KeyOf(keys.Committed.PCS), aggTurn, st, in, out,
		rep.StateIn.Rows, rep.StateIn.Keys, rep.StateIn.Values, committed.TurnKeep(pass), segments)
	aggProof, err := r.proveAggregator(keys, a, func(p groth16.Proof) error {
		return recursion.VerifyTurnAggregated(p, keys.Aggregator.VK, st, in, out)
	})
	if err != nil {
		return nil, err
	}
	rep.Aggregated = &AggregatedProof{Proof: aggProof, Key: keys.Aggregator.VK, Statement: st, Deployment: keys.Deployment, Slot: keys.Slot, Commitments: keys.Catalog.aggregatorCommitments}
	rep.History = append(append([]int(nil), opts.History...), append(append([]int(nil), pass.Prompt...), pass.Output...)[:committed.TurnKeep(pass)]...)
	if next.Len != len(rep.History) {
		return nil, fmt.Errorf("pipeline: the turn leaves %d cached rows for a history of %d tokens", next.Len, len(rep.History))
	}
	final := st
	final.ModelID = keys.FinalModelID
	rep.Statement = final
	rep.Turn = statement.Turn{ModelID: final.ModelID, StateIn: in, InputDigest: final.InputDigest, OutputDigest: final.OutputDigest, StateOut: out}
	if !opts.Wrap {
		return rep, nil
	}
	if err := r.stage("turn wrapper proof", func() (string, error) {
		wrapper, err := r.wrapperKeys(keys)
		if err != nil {
			return "", err
		}
		var turn statement.Turn
		rep.Proof, turn, err = recursion.WrapTurn(aggProof, keys.Aggregator.VK, st, in, out, keys.Deployment, keys.Slot, wrapper)
		if err != nil {
			return "", err
		}
		if turn.String() != rep.Turn.String() {
			return "", fmt.Errorf("pipeline: the wrapper states %v, the run %v", turn, rep.Turn)
		}
		if rep.ProofBytes, err = proofSize(rep.Proof); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d bytes, verified", rep.ProofBytes), nil
	}); err != nil {
		return nil, err
	}
	return rep, nil
}

// Conversation is what a prover keeps of a conversation between its
// turns (conversation.json): the model's id, the cache's capacity, the
// tokens cached so far, and the digest of the state the last turn left.
type Conversation struct {
	ModelID  string `json:"modelId"`
	Capacity int    `json:"capacity"`
	History  []int  `json:"history"`
	State    string `json:"state"`
}

// maxConversation bounds a conversation file (the history of the largest
// context at a few bytes a token).
const maxConversation = 1 << 24

// ParseConversation decodes and checks a conversation file: a JSON
// object of the fields of [Conversation] and no other, a positive
// capacity, a history of at most capacity tokens, each non-negative and
// below 2²⁰, and the ids as 0x-prefixed hexadecimal integers. It never
// panics (fuzzed).
func ParseConversation(data []byte) (*Conversation, error) {
	if len(data) > maxConversation {
		return nil, fmt.Errorf("pipeline: a conversation file of %d bytes", len(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Conversation
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("pipeline: conversation: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("pipeline: conversation: data after the object")
	}
	if c.Capacity < 1 || c.Capacity > 1<<24 || len(c.History) > c.Capacity {
		return nil, fmt.Errorf("pipeline: conversation: a history of %d tokens in a cache of %d rows", len(c.History), c.Capacity)
	}
	for i, t := range c.History {
		if t < 0 || t >= 1<<statement.TokenBits {
			return nil, fmt.Errorf("pipeline: conversation: token %d is %d", i, t)
		}
	}
	for _, v := range []string{c.ModelID, c.State} {
		if _, ok := new(big.Int).SetString(strings.TrimPrefix(v, "0x"), 16); !ok || !strings.HasPrefix(v, "0x") {
			return nil, fmt.Errorf("pipeline: conversation: %q is not a 0x-prefixed hexadecimal integer", v)
		}
	}
	return &c, nil
}

// ReadConversation reads dir/conversation.json ([ParseConversation]).
func ReadConversation(dir string) (*Conversation, error) {
	data, err := os.ReadFile(filepath.Join(dir, "conversation.json"))
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	return ParseConversation(data)
}

// WriteTurnArtifacts writes a turn's outputs to dir: turn.json (the
// final turn statement, its digest, the prompt and output),
// state-in.bin and state-out.bin (committed.State's encoding, what a
// verifier of the turn's native proofs needs), conversation.json (what
// the next turn reads, [Conversation]) and proof.bin (the turn wrapper's
// proof, when there is one).
func WriteTurnArtifacts(dir string, r *TurnReport) error {
	files := map[string][]byte{}
	if err := addProof(files, r.Proof); err != nil {
		return err
	}
	digest, err := r.Turn.Digest()
	if err != nil {
		return err
	}
	t, err := json.MarshalIndent(map[string]any{
		"modelId":      fmt.Sprintf("%#x", r.Turn.ModelID),
		"stateIn":      fmt.Sprintf("%#x", r.Turn.StateIn),
		"inputDigest":  fmt.Sprintf("%#x", r.Turn.InputDigest),
		"outputDigest": fmt.Sprintf("%#x", r.Turn.OutputDigest),
		"stateOut":     fmt.Sprintf("%#x", r.Turn.StateOut),
		"turnDigest":   fmt.Sprintf("%#x", digest),
		"prompt":       r.Prompt,
		"output":       r.Output,
	}, "", "  ")
	if err != nil {
		return err
	}
	files["turn.json"] = append(t, '\n')
	for name, s := range map[string]*committed.State{"state-in.bin": r.StateIn, "state-out.bin": r.StateOut} {
		if files[name], err = s.MarshalBinary(); err != nil {
			return err
		}
	}
	c, err := json.MarshalIndent(Conversation{ModelID: fmt.Sprintf("%#x", r.Turn.ModelID), Capacity: r.StateOut.Capacity, History: r.History, State: fmt.Sprintf("%#x", r.Turn.StateOut)}, "", "  ")
	if err != nil {
		return err
	}
	files["conversation.json"] = append(c, '\n')
	return writeFiles(dir, files)
}
