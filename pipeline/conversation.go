package pipeline

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/statement"
)

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
