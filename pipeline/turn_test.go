package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestParseConversation: a conversation file round-trips; an unknown
// field, trailing data, a history longer than the capacity, a negative
// or too large token, a capacity of 0 and an id without 0x are refused.
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
// accepted file holds a history within its capacity.
func FuzzParseConversation(f *testing.F) {
	f.Add([]byte(`{"modelId":"0x1234","capacity":8,"history":[72,105],"state":"0xabc"}`))
	f.Add([]byte(`{"modelId":"0x1","capacity":1,"history":[],"state":"0x0"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConversation(data)
		if err != nil {
			return
		}
		if c.Capacity < 1 || len(c.History) > c.Capacity {
			t.Fatalf("accepted %+v", c)
		}
	})
}
