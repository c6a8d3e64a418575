package pipeline

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/solidity"
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
	// Earlier are the conversation's earlier turns, in order, with their
	// wrapper proofs (Conversation.Recorded). With Wrap and Chain, the
	// run records each of them on a new simulated chain before this
	// turn: the registry records a turn only once the turn that left its
	// state in is recorded, and a simulated chain starts empty.
	Earlier []RecordedTurn
	// keys, when not nil, holds the verifying keys of each bucket the
	// turns of one run have set up or loaded, so that the next turn in
	// the same bucket skips their stages ([RunStream]).
	keys map[int]*AggregatedKeys
}

// RecordedTurn is a proven turn as its prover keeps it: the final model
// id, the turn's leaf and the wrapper's proof of their list of one in
// the Solidity verifier's encoding (solidity.ProofBytes; nil when the
// turn was not wrapped).
type RecordedTurn struct {
	ModelID *big.Int
	Turn    statement.Leaf
	// Leaves are the leaves of the mixed list the turn was proven in
	// ([RunList]); nil for a turn proven alone, in its list of one.
	Leaves []statement.Leaf
	Proof  []byte
}

// List returns the list the turn was proven in: its list of one, or its
// mixed list.
func (t RecordedTurn) List() statement.List {
	if t.Leaves != nil {
		return statement.List{ModelID: t.ModelID, Leaves: t.Leaves}
	}
	return statement.List{ModelID: t.ModelID, Leaves: []statement.Leaf{t.Turn}}
}

// inList reports whether the turn is one of its list's leaves.
func (t RecordedTurn) inList() bool {
	want, err := t.Turn.Words()
	if err != nil {
		return false
	}
	for _, leaf := range t.List().Leaves {
		if got, err := leaf.Words(); err == nil && slices.EqualFunc(got, want, func(a, b *big.Int) bool { return a.Cmp(b) == 0 }) {
			return true
		}
	}
	return false
}

// checkRecords checks a conversation's turns: each states the model id
// and has a proof of 256 or 384 bytes or none; the first starts from the
// empty state and each other from the state the one before it left; the
// last leaves state (unless there is none).
func checkRecords(turns []RecordedTurn, modelID, state *big.Int) error {
	prev := statement.EmptyState
	for i, t := range turns {
		if t.Turn.Kind != statement.KindTurn {
			return fmt.Errorf("turn %d is a %v", i+1, t.Turn.Kind)
		}
		if err := t.List().Check(); err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		if !t.inList() {
			return fmt.Errorf("turn %d is not a leaf of the list it was proven in", i+1)
		}
		if t.ModelID.Cmp(modelID) != 0 {
			return fmt.Errorf("turn %d states model id %#x, the conversation's is %#x", i+1, t.ModelID, modelID)
		}
		if t.Turn.StateIn.Cmp(prev) != 0 {
			return fmt.Errorf("turn %d starts from state %#x, the turn before it left %#x", i+1, t.Turn.StateIn, prev)
		}
		if n := len(t.Proof); n != 0 && n != 256 && n != 384 {
			return fmt.Errorf("turn %d: a proof of %d bytes, want 256 or 384", i+1, n)
		}
		prev = t.Turn.StateOut
	}
	if len(turns) > 0 && prev.Cmp(state) != 0 {
		return fmt.Errorf("the last turn left state %#x, the conversation is in %#x", prev, state)
	}
	return nil
}

// TurnReport is the outcome of a turn: the run's Report (its output, its
// bucket, the aggregator's proof or the wrapper's), the states in and out
// of the conversation, the final turn statement (the model id the
// deployment's, as the wrapper states it) and the history after the
// turn.
type TurnReport struct {
	*Report
	StateIn, StateOut *committed.State
	Turn              statement.Leaf
	History           []int
	// Turns are the conversation's turns so far, this one last, with
	// their wrapper proofs (this one's nil without Wrap).
	Turns []RecordedTurn
	// TurnGas is the gas each submission used on the simulated chain,
	// the earlier turns' first (nil without Chain).
	TurnGas []uint64
}

// checkTurn checks a turn's options before anything runs (the
// conversation's earlier turns, what recording them needs, the cache's
// capacity), fills in the defaults, and reports whether the turn ends on
// a simulated chain.
func (opts *TurnOptions) checkTurn() (bool, error) {
	if err := opts.checkRun(); err != nil {
		return false, err
	}
	if opts.Capacity < 1 {
		return false, fmt.Errorf("pipeline: a turn needs the cache's capacity (rows)")
	}
	if len(opts.Earlier) > 0 {
		last := opts.Earlier[len(opts.Earlier)-1]
		if opts.StateIn != nil && last.Turn.StateOut.Cmp(opts.StateIn) != 0 {
			return false, fmt.Errorf("pipeline: the conversation's last turn left state %#x, the turn starts from %#x", last.Turn.StateOut, opts.StateIn)
		}
		if err := checkRecords(opts.Earlier, last.ModelID, last.Turn.StateOut); err != nil {
			return false, fmt.Errorf("pipeline: the conversation's turns: %w", err)
		}
	}
	onChain := opts.Chain && opts.Wrap
	if onChain {
		if len(opts.History) > 0 && len(opts.Earlier) == 0 {
			return false, fmt.Errorf("pipeline: recording a turn on a new simulated chain needs the conversation's earlier turns and their proofs (or run without the chain)")
		}
		for i, t := range opts.Earlier {
			if len(t.Proof) == 0 {
				return false, fmt.Errorf("pipeline: turn %d of the conversation has no wrapper proof: it cannot be recorded on chain (run without the chain)", i+1)
			}
		}
		if err := checkSolc(); err != nil {
			return false, err
		}
	}
	if err := opts.defaults(); err != nil {
		return false, err
	}
	if m := opts.Model; opts.Capacity > m.Config.MaxPositions {
		return false, fmt.Errorf("pipeline: a cache of %d rows beyond the model's context of %d", opts.Capacity, m.Config.MaxPositions)
	}
	return onChain, nil
}

// RunTurn proves one turn of a conversation in the aggregated design:
// the request (opts.Prompt, opts.Tokens generated greedily) over the
// cache of opts.History, in the bucket that holds it, within a cache of
// opts.Capacity rows. The state in is the commitment to the history's
// cache (the empty state for a first turn); the turn's segments are
// proven natively and verified from it (committed.VerifyTurn), then by
// the turn segment circuits, the turn aggregator and, with Wrap, the
// wrapper, whose one public input is the statement digest of the turn's
// list of one. With Wrap and Chain, the wrapper's verifier and the
// registry are deployed on a
// new simulated chain, which records opts.Earlier and then this turn
// (the registry's submit); solcjs must be found before anything is
// proven, and if the on-chain stage fails the report of the verified
// proof is returned with the error.
func RunTurn(ctx context.Context, opts TurnOptions) (*TurnReport, error) {
	onChain, err := opts.checkTurn()
	if err != nil {
		return nil, err
	}
	m := opts.Model
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}}
	rep := &TurnReport{Report: r.report}
	rows, err := opts.rows(len(opts.Prompt), opts.Tokens)
	if err != nil {
		return nil, err
	}
	if len(opts.History)+rows > opts.Capacity {
		return nil, fmt.Errorf("pipeline: a history of %d rows and a turn in a bucket of %d exceed the cache's %d rows (start a new conversation, or deploy a larger capacity)", len(opts.History), rows, opts.Capacity)
	}
	if len(opts.Buckets) > 0 {
		// Checked before anything is proven: a turn the deployment cannot
		// serve costs nothing.
		if err := checkDeployment(m, opts.Buckets, rows, false); err != nil {
			return nil, fmt.Errorf("%w (a shorter prompt or fewer tokens fit a smaller bucket; or deploy the bucket)", err)
		}
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
	keys := opts.keys[rows]
	if keys == nil {
		if keys, err = r.setupAggregated(&opts.AggregatedOptions, len(opts.Prompt), len(rep.Output)); err != nil {
			return nil, err
		}
		if opts.keys != nil {
			opts.keys[rows] = keys
		}
	}
	rep.Constraints = keys.SegmentConstraints
	if err := r.proveTurn(&opts, keys, rep, cache, next, pass, tr); err != nil {
		return nil, err
	}
	in := rep.StateIn.Digest()
	rep.History = append(append([]int(nil), opts.History...), append(append([]int(nil), pass.Prompt...), pass.Output...)[:committed.TurnKeep(pass)]...)
	if next.Len != len(rep.History) {
		return nil, fmt.Errorf("pipeline: the turn leaves %d cached rows for a history of %d tokens", next.Len, len(rep.History))
	}
	rep.Turn = rep.List.Leaves[0]
	if len(opts.Earlier) > 0 {
		last := opts.Earlier[len(opts.Earlier)-1]
		if last.ModelID.Cmp(keys.FinalModelID) != 0 || last.Turn.StateOut.Cmp(in) != 0 {
			return nil, fmt.Errorf("pipeline: the conversation's last turn states model id %#x and state out %#x, this turn %#x and state in %#x", last.ModelID, last.Turn.StateOut, keys.FinalModelID, in)
		}
	}
	rep.Turns = append(slices.Clone(opts.Earlier), RecordedTurn{ModelID: keys.FinalModelID, Turn: rep.Turn})
	if !opts.Wrap {
		return rep, nil
	}
	if err := r.wrap(keys, rep.Report); err != nil {
		return nil, err
	}
	if rep.Turns[len(rep.Turns)-1].Proof, err = solidity.ProofBytes(rep.Proof); err != nil {
		return nil, err
	}
	if onChain {
		if err := r.recordTurns(ctx, keys.Wrapper.VK, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// proveTurn runs the proving stages of a turn over cache: the state in
// (checked against opts.StateIn), the turn's segments, natively and in
// their circuits, and the turn aggregator, whose proof and list it
// records in rep.
func (r *runner) proveTurn(opts *TurnOptions, keys *AggregatedKeys, rep *TurnReport, cache, next *model.Cache, pass statement.Request, tr *model.Trace) error {
	m := opts.Model
	turn := committed.Turn{Start: cache.Len, Capacity: opts.Capacity}
	var (
		st       statement.Statement
		segments []recursion.SegmentProof
		err      error
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
		return err
	}
	conv := &turnProving{turn: turn, history: opts.History, in: rep.StateIn}
	if opts.Queue != nil {
		// The workers' specs state the turn's leaf, its state out
		// included: the commitment to the cache the turn leaves, which
		// the native proofs must give.
		if conv.out, err = committed.StateOf(keys.SRS, m, next, opts.Capacity); err != nil {
			return err
		}
		st, list, aggProof, err := r.proveOnWorkers(&opts.AggregatedOptions, keys, pass, tr, conv)
		if err != nil {
			return err
		}
		rep.StateOut = conv.out
		rep.setAggregated(keys, st, list, aggProof)
		return nil
	}
	if st, _, segments, err = r.proveSegments(&opts.AggregatedOptions, keys, pass, tr, conv); err != nil {
		return err
	}
	rep.StateOut = conv.out
	list := conv.list(st)
	aggProof, err := r.aggregate(keys, st, list, segments, turnWitness(rep.StateIn, rep.StateOut, pass))
	if err != nil {
		return err
	}
	rep.setAggregated(keys, st, list, aggProof)
	return nil
}

// turnWitness is the turn aggregator's witness of a turn from state in
// to state out.
func turnWitness(in, out *committed.State, pass committed.Pass) *recursion.TurnWitness {
	return &recursion.TurnWitness{StateIn: in.Digest(), StateOut: out.Digest(), Rows: in.Rows, Keys: in.Keys, Values: in.Values, Keep: committed.TurnKeep(pass)}
}

// recordTurns deploys the wrapper's verifier and the registry on a new
// simulated chain and records the conversation's turns in order, each in
// the list it was proven in ([runner.record]); the registry must then
// hold the state the last turn left.
func (r *runner) recordTurns(ctx context.Context, vk groth16.VerifyingKey, rep *TurnReport) error {
	d, err := r.deployContracts(ctx, vk, rep.List.ModelID, false)
	if err != nil {
		return err
	}
	defer d.sim.Close()
	return r.stage("on-chain record", func() (string, error) {
		gas, err := r.record(ctx, d, turnSubmissions(rep.Turns))
		if err != nil {
			return "", err
		}
		ok, err := solidity.IsState(ctx, d.chain.Backend(), rep.Deployment.Registry, rep.List.ModelID, rep.Turn.StateOut)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("the registry did not record the turn's state out")
		}
		rep.TurnGas = gas
		rep.SubmitGas = gas[len(gas)-1]
		return fmt.Sprintf("%d turns recorded in order, submit %v gas", len(rep.Turns), rep.TurnGas), nil
	})
}

// submission is a list and the wrapper's proof of it, in the Solidity
// verifier's encoding.
type submission struct {
	list  statement.List
	proof []byte
}

// turnSubmissions returns the lists the turns were proven in, in order,
// each once.
func turnSubmissions(turns []RecordedTurn) []submission {
	var out []submission
	seen := map[string]bool{}
	for _, t := range turns {
		l := t.List()
		digest, err := l.Digest()
		if err != nil || seen[digest.String()] {
			continue
		}
		seen[digest.String()] = true
		out = append(out, submission{list: l, proof: t.Proof})
	}
	return out
}

// record submits the lists in order to the deployed registry: each
// submission must verify, emit the list's event and one event per leaf
// (a request's or a turn's), and leave every leaf recorded. It returns
// each submission's gas.
func (r *runner) record(ctx context.Context, d *deployed, subs []submission) ([]uint64, error) {
	registry := r.report.Deployment.Registry
	var gas []uint64
	for i, s := range subs {
		data, err := solidity.PackSubmitBytes(s.proof, s.list)
		if err != nil {
			return nil, fmt.Errorf("list %d: %w", i+1, err)
		}
		receipt, err := d.chain.SubmitCalldata(ctx, registry, data)
		if err != nil {
			return nil, fmt.Errorf("list %d: %w", i+1, err)
		}
		if err := checkRecorded(ctx, d.chain, registry, receipt, s.list); err != nil {
			return nil, fmt.Errorf("list %d: %w", i+1, err)
		}
		requests, err := solidity.Events(receipt, registry)
		if err != nil {
			return nil, err
		}
		turns, err := solidity.TurnEvents(receipt, registry)
		if err != nil {
			return nil, err
		}
		if len(requests)+len(turns) != len(s.list.Leaves) {
			return nil, fmt.Errorf("list %d: the registry emitted %d request and %d turn events for %d leaves", i+1, len(requests), len(turns), len(s.list.Leaves))
		}
		gas = append(gas, receipt.GasUsed)
	}
	return gas, nil
}

// Conversation is what a prover keeps of a conversation between its
// turns (conversation.json): the model's id, the cache's capacity, the
// tokens cached so far, the digest of the state the last turn left, and
// the turns so far with their proofs, which a new simulated chain records
// before the next turn.
type Conversation struct {
	ModelID  string             `json:"modelId"`
	Capacity int                `json:"capacity"`
	History  []int              `json:"history"`
	State    string             `json:"state"`
	Turns    []ConversationTurn `json:"turns,omitempty"`
}

// ConversationTurn is a turn of a conversation file: the final model id,
// the turn's four values and the wrapper's proof in the Solidity
// verifier's encoding (none when the turn was not wrapped), each a
// 0x-prefixed hexadecimal string.
type ConversationTurn struct {
	ModelID      string `json:"modelId"`
	StateIn      string `json:"stateIn"`
	InputDigest  string `json:"inputDigest"`
	OutputDigest string `json:"outputDigest"`
	StateOut     string `json:"stateOut"`
	// List holds the words of the mixed list the turn was proven in
	// (statement.List.Words), none for a turn proven alone.
	List  []string `json:"list,omitempty"`
	Proof string   `json:"proof,omitempty"`
}

// Recorded decodes the conversation's turns ([RecordedTurn]).
func (c *Conversation) Recorded() ([]RecordedTurn, error) {
	out := make([]RecordedTurn, len(c.Turns))
	for i, t := range c.Turns {
		words := make([]*big.Int, 5)
		for j, v := range []string{t.ModelID, t.StateIn, t.InputDigest, t.OutputDigest, t.StateOut} {
			var err error
			if words[j], err = parseHex(v); err != nil {
				return nil, fmt.Errorf("pipeline: conversation: turn %d: %w", i+1, err)
			}
		}
		out[i].ModelID, out[i].Turn = words[0], statement.TurnLeaf(words[1], words[2], words[3], words[4])
		if len(t.List) > 0 {
			if len(t.List) > 4*statement.MaxLeaves {
				return nil, fmt.Errorf("pipeline: conversation: turn %d: a list of %d words", i+1, len(t.List))
			}
			listWords := make([]*big.Int, len(t.List))
			for j, v := range t.List {
				var err error
				if listWords[j], err = parseHex(v); err != nil {
					return nil, fmt.Errorf("pipeline: conversation: turn %d: the list: %w", i+1, err)
				}
			}
			var err error
			if out[i].Leaves, err = statement.ParseWords(listWords); err != nil {
				return nil, fmt.Errorf("pipeline: conversation: turn %d: the list: %w", i+1, err)
			}
		}
		if t.Proof != "" {
			p, ok := strings.CutPrefix(t.Proof, "0x")
			if !ok || len(p) > 2*384 {
				return nil, fmt.Errorf("pipeline: conversation: turn %d: the proof is not 0x and at most 384 bytes in hexadecimal", i+1)
			}
			var err error
			if out[i].Proof, err = hex.DecodeString(p); err != nil {
				return nil, fmt.Errorf("pipeline: conversation: turn %d: the proof: %w", i+1, err)
			}
		}
	}
	return out, nil
}

// parseHex decodes a 0x-prefixed hexadecimal integer of at most 64
// digits.
func parseHex(v string) (*big.Int, error) {
	digits, ok := strings.CutPrefix(v, "0x")
	if ok && len(digits) > 0 && len(digits) <= 64 {
		if n, ok := new(big.Int).SetString(digits, 16); ok {
			return n, nil
		}
	}
	return nil, fmt.Errorf("%q is not a 0x-prefixed hexadecimal integer of at most 64 digits", v)
}

// conversationTurns encodes turns for a conversation file.
func conversationTurns(turns []RecordedTurn) []ConversationTurn {
	out := make([]ConversationTurn, len(turns))
	for i, t := range turns {
		out[i] = ConversationTurn{
			ModelID:      fmt.Sprintf("%#x", t.ModelID),
			StateIn:      fmt.Sprintf("%#x", t.Turn.StateIn),
			InputDigest:  fmt.Sprintf("%#x", t.Turn.Input),
			OutputDigest: fmt.Sprintf("%#x", t.Turn.Output),
			StateOut:     fmt.Sprintf("%#x", t.Turn.StateOut),
		}
		if t.Leaves != nil {
			words, _ := t.List().Words()
			for _, w := range words {
				out[i].List = append(out[i].List, fmt.Sprintf("%#x", w))
			}
		}
		if len(t.Proof) > 0 {
			out[i].Proof = "0x" + hex.EncodeToString(t.Proof)
		}
	}
	return out
}

// maxConversation bounds a conversation file (the history of the largest
// context at a few bytes a token).
const maxConversation = 1 << 24

// ParseConversation decodes and checks a conversation file: a JSON
// object of the fields of [Conversation] and no other, a positive
// capacity, a history of at most capacity tokens, each non-negative and
// below 2²⁰, the ids and digests as 0x-prefixed hexadecimal integers of
// at most 64 digits, and turns that chain: each of the model, with a
// proof of 256 or 384 bytes or none, the first from the empty state,
// each next from the state the one before left, the last leaving the
// conversation's state. It never panics (fuzzed).
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
	id, err := parseHex(c.ModelID)
	if err != nil {
		return nil, fmt.Errorf("pipeline: conversation: the model id: %w", err)
	}
	state, err := parseHex(c.State)
	if err != nil {
		return nil, fmt.Errorf("pipeline: conversation: the state: %w", err)
	}
	turns, err := c.Recorded()
	if err != nil {
		return nil, err
	}
	if err := checkRecords(turns, id, state); err != nil {
		return nil, fmt.Errorf("pipeline: conversation: %w", err)
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
// final model id, the turn's four values, the statement digest of their
// list of one, the prompt and output),
// state-in.bin and state-out.bin (committed.State's encoding, what a
// verifier of the turn's native proofs needs), conversation.json (what
// the next turn reads, [Conversation]) and the proof the run ends with,
// with what checks it ([VerifyArtifacts]).
func WriteTurnArtifacts(dir string, r *TurnReport) error {
	files := map[string][]byte{}
	if err := proofFiles(files, r.Report); err != nil {
		return err
	}
	digest, err := r.List.Digest()
	if err != nil {
		return err
	}
	t, err := json.MarshalIndent(map[string]any{
		"modelId":         fmt.Sprintf("%#x", r.List.ModelID),
		"stateIn":         fmt.Sprintf("%#x", r.Turn.StateIn),
		"inputDigest":     fmt.Sprintf("%#x", r.Turn.Input),
		"outputDigest":    fmt.Sprintf("%#x", r.Turn.Output),
		"stateOut":        fmt.Sprintf("%#x", r.Turn.StateOut),
		"statementDigest": fmt.Sprintf("%#x", digest),
		"prompt":          r.Prompt,
		"output":          r.Output,
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
	c, err := json.MarshalIndent(Conversation{ModelID: fmt.Sprintf("%#x", r.List.ModelID), Capacity: r.StateOut.Capacity, History: r.History, State: fmt.Sprintf("%#x", r.Turn.StateOut), Turns: conversationTurns(r.Turns)}, "", "  ")
	if err != nil {
		return err
	}
	files["conversation.json"] = append(c, '\n')
	return writeFiles(dir, files)
}
