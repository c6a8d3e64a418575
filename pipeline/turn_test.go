package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/statement"
)

// TestParseConversation: a conversation file round-trips, with its turns
// and their proofs; turns that do not chain from the empty state to the
// conversation's state, a turn of another model, a proof of a wrong
// length or encoding, a value beyond the field, an unknown field,
// trailing data, a history longer than the capacity, a negative or too
// large token, a capacity of 0 and an id without 0x are refused.
func TestParseConversation(t *testing.T) {
	good := Conversation{ModelID: "0x1234", Capacity: 8, History: []int{72, 105, 33}, State: "0xabc"}
	data, err := json.Marshal(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conversation.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadConversation(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Capacity != 8 || len(c.History) != 3 || c.State != "0xabc" || c.ModelID != "0x1234" {
		t.Fatalf("read %+v", c)
	}
	// A file with its turns: they round-trip, proofs included.
	// The second turn was proven in a mixed list, after a request.
	second := statement.TurnLeaf(big.NewInt(0xabc), big.NewInt(8), big.NewInt(9), big.NewInt(0xdef))
	turns := []RecordedTurn{
		{ModelID: big.NewInt(0x1234), Turn: statement.TurnLeaf(big.NewInt(0), big.NewInt(5), big.NewInt(6), big.NewInt(0xabc)), Proof: bytes.Repeat([]byte{7}, 384)},
		{ModelID: big.NewInt(0x1234), Turn: second, Leaves: []statement.Leaf{statement.RequestLeaf(big.NewInt(3), big.NewInt(4)), second}},
	}
	good.State, good.Turns = "0xdef", conversationTurns(turns)
	if data, err = json.Marshal(good); err != nil {
		t.Fatal(err)
	}
	if c, err = ParseConversation(data); err != nil {
		t.Fatal(err)
	}
	got, err := c.Recorded()
	if err != nil || len(got) != 2 || got[0].Turn.String() != turns[0].Turn.String() || got[1].Turn.String() != turns[1].Turn.String() ||
		!bytes.Equal(got[0].Proof, turns[0].Proof) || got[1].Proof != nil || got[0].Leaves != nil || len(got[1].List().Leaves) != 2 {
		t.Fatalf("turns read back as %+v (%v)", got, err)
	}
	if subs := turnSubmissions(append(got, got[1])); len(subs) != 2 || len(subs[1].list.Leaves) != 2 {
		t.Fatalf("the turns' lists to record: %d", len(subs))
	}
	for name, change := range map[string]func(c *Conversation){
		"a first turn from a state":        func(c *Conversation) { c.Turns[0].StateIn = "0x1" },
		"a broken link":                    func(c *Conversation) { c.Turns[1].StateIn = "0xabd" },
		"a last state out not the state":   func(c *Conversation) { c.State = "0xabc" },
		"a turn of another model":          func(c *Conversation) { c.Turns[1].ModelID = "0x1235" },
		"a turn leaving the empty state":   func(c *Conversation) { c.Turns[1].StateOut, c.State = "0x0", "0x0" },
		"a proof of 100 bytes":             func(c *Conversation) { c.Turns[1].Proof = "0x" + strings.Repeat("00", 100) },
		"a proof of 385 bytes":             func(c *Conversation) { c.Turns[1].Proof = "0x" + strings.Repeat("00", 385) },
		"a proof that is not hexadecimal":  func(c *Conversation) { c.Turns[1].Proof = "0x" + strings.Repeat("zz", 256) },
		"a proof without 0x":               func(c *Conversation) { c.Turns[1].Proof = strings.Repeat("00", 256) },
		"a digest beyond the field":        func(c *Conversation) { c.Turns[1].InputDigest = "0x" + strings.Repeat("f", 64) },
		"a digest of 65 digits":            func(c *Conversation) { c.Turns[1].InputDigest = "0x1" + strings.Repeat("0", 64) },
		"a turn digest without 0x":         func(c *Conversation) { c.Turns[1].OutputDigest = "9" },
		"the conversation's id not a word": func(c *Conversation) { c.ModelID = "0x" + strings.Repeat("1", 65) },
		"a list without the turn":          func(c *Conversation) { c.Turns[1].List = c.Turns[1].List[:2] },
		"a list of a request's half":       func(c *Conversation) { c.Turns[1].List = c.Turns[1].List[1:] },
		"a list word without 0x":           func(c *Conversation) { c.Turns[1].List = append([]string{"3"}, c.Turns[1].List[1:]...) },
	} {
		bad := good
		bad.Turns = slices.Clone(good.Turns)
		bad.Turns[1].List = slices.Clone(good.Turns[1].List)
		change(&bad)
		data, err := json.Marshal(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseConversation(data); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	for name, bad := range map[string]string{
		"an unknown field":        `{"modelId":"0x1","capacity":8,"history":[],"state":"0x0","extra":1}`,
		"trailing data":           `{"modelId":"0x1","capacity":8,"history":[],"state":"0x0"} {}`,
		"a history past capacity": `{"modelId":"0x1","capacity":2,"history":[1,2,3],"state":"0x0"}`,
		"a negative token":        `{"modelId":"0x1","capacity":8,"history":[-1],"state":"0x0"}`,
		"a token of 21 bits":      `{"modelId":"0x1","capacity":8,"history":[1048576],"state":"0x0"}`,
		"no capacity":             `{"modelId":"0x1","capacity":0,"history":[],"state":"0x0"}`,
		"an id without 0x":        `{"modelId":"1","capacity":8,"history":[],"state":"0x0"}`,
		"a state that is not hex": `{"modelId":"0x1","capacity":8,"history":[],"state":"0xzz"}`,
		"not an object":           `[1, 2]`,
	} {
		if _, err := ParseConversation([]byte(bad)); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// FuzzParseConversation decodes arbitrary bytes: never a panic, and an
// accepted file holds a history within its capacity and turns that decode
// and chain.
func FuzzParseConversation(f *testing.F) {
	f.Add([]byte(`{"modelId":"0x1234","capacity":8,"history":[72,105],"state":"0xabc"}`))
	f.Add([]byte(`{"modelId":"0x1","capacity":1,"history":[],"state":"0x0"}`))
	f.Add([]byte(`{"modelId":"0x1","capacity":4,"history":[1],"state":"0x3","turns":[{"modelId":"0x1","stateIn":"0x0","inputDigest":"0x5","outputDigest":"0x6","stateOut":"0x3","proof":"0x` + strings.Repeat("07", 256) + `"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConversation(data)
		if err != nil {
			return
		}
		if c.Capacity < 1 || len(c.History) > c.Capacity {
			t.Fatalf("accepted %+v", c)
		}
		turns, err := c.Recorded()
		if err != nil {
			t.Fatalf("accepted turns that do not decode: %v", err)
		}
		id, _ := parseHex(c.ModelID)
		state, _ := parseHex(c.State)
		if err := checkRecords(turns, id, state); err != nil {
			t.Fatalf("accepted turns that do not chain: %v", err)
		}
	})
}

// TestRunTurnRecords: before anything is proven, a turn recorded on chain
// is refused without the conversation's earlier turns, with an earlier
// turn that has no proof, and with earlier turns that do not chain to the
// turn's state in.
func TestRunTurnRecords(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	first := RecordedTurn{ModelID: big.NewInt(1), Turn: statement.TurnLeaf(big.NewInt(0), big.NewInt(2), big.NewInt(3), big.NewInt(4)), Proof: make([]byte, 256)}
	unproven := first
	unproven.Proof = nil
	stray := first
	stray.Turn.StateIn = big.NewInt(9)
	for _, c := range []struct {
		name    string
		earlier []RecordedTurn
		want    string
	}{
		{"no earlier turns", nil, "earlier turns"},
		{"an earlier turn without its proof", []RecordedTurn{unproven}, "no wrapper proof"},
		{"earlier turns from a state", []RecordedTurn{stray}, "starts from state"},
	} {
		opts := TurnOptions{
			AggregatedOptions: AggregatedOptions{Options: Options{Model: m, Prompt: []int{'!'}, Tokens: 1, Chain: true}, Wrap: true, Capacity: 8},
			History:           []int{'H', 'i'},
			StateIn:           big.NewInt(4),
			Earlier:           c.earlier,
		}
		if _, err := RunTurn(context.Background(), opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// TestRunTurnUnserved: a turn the deployment cannot serve — a bucket it
// does not list, a capacity the history and the turn exceed — is refused
// at once, before any inference or proof, with what to do instead.
func TestRunTurnUnserved(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		opts TurnOptions
		want string
	}{
		"an unlisted bucket":  {TurnOptions{AggregatedOptions: AggregatedOptions{Options: Options{Model: m, Prompt: []int{'H', 'i', '!'}, Tokens: 3}, Buckets: []int{2}, Capacity: 8}}, "deployment"},
		"beyond the capacity": {TurnOptions{AggregatedOptions: AggregatedOptions{Options: Options{Model: m, Prompt: []int{'!'}, Tokens: 1, Bucket: 2}, Capacity: 4}, History: []int{'H', 'i', '!'}}, "new conversation"},
	} {
		var log bytes.Buffer
		c.opts.Log = &log
		_, err := RunTurn(context.Background(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
		if log.Len() != 0 {
			t.Errorf("%s: refused after a stage ran:\n%s", name, log.String())
		}
	}
}

// TestPlanStream: the first turn of a stream fills the smallest bucket
// that holds its prompt (or the deployment's), the next ones are of one
// row, and every turn's bucket is in the deployment.
func TestPlanStream(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prompt, tokens, bucket int
		buckets                []int
		want                   StreamPlan
	}{
		{2, 5, 0, nil, StreamPlan{FirstRows: 2, First: 1, Buckets: []int{2, 1}}},
		{3, 5, 0, nil, StreamPlan{FirstRows: 4, First: 2, Buckets: []int{4, 1}}},
		{3, 1, 0, nil, StreamPlan{FirstRows: 4, First: 1, Buckets: []int{4}}},
		{1, 3, 0, nil, StreamPlan{FirstRows: 1, First: 1, Buckets: []int{1}}},
		{3, 6, 8, nil, StreamPlan{FirstRows: 8, First: 6, Buckets: []int{8}}},
		{3, 7, 0, []int{8, 1}, StreamPlan{FirstRows: 8, First: 6, Buckets: []int{8, 1}}},
	} {
		got, err := PlanStream(m, c.prompt, c.tokens, c.bucket, c.buckets)
		if err != nil || got.FirstRows != c.want.FirstRows || got.First != c.want.First || !slices.Equal(got.Buckets, c.want.Buckets) {
			t.Errorf("%d + %d tokens, bucket %d, deployment %v: %+v (%v), want %+v", c.prompt, c.tokens, c.bucket, c.buckets, got, err, c.want)
		}
	}
	for _, c := range []struct {
		prompt, tokens int
		buckets        []int
	}{{0, 2, nil}, {2, 0, nil}, {3, 5, []int{4}}, {9, 1, nil}} {
		if got, err := PlanStream(m, c.prompt, c.tokens, 0, c.buckets); err == nil {
			t.Errorf("%d + %d tokens, deployment %v: %+v", c.prompt, c.tokens, c.buckets, got)
		}
	}
}
