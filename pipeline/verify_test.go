package pipeline

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/statement"
)

// testList is a list of a request and two chained turns.
func testList() statement.List {
	return statement.List{ModelID: big.NewInt(0x1234), Leaves: []statement.Leaf{
		statement.RequestLeaf(big.NewInt(5), big.NewInt(6)),
		statement.TurnLeaf(big.NewInt(0), big.NewInt(7), big.NewInt(8), big.NewInt(0xabc)),
		statement.TurnLeaf(big.NewInt(0xabc), big.NewInt(9), big.NewInt(10), big.NewInt(0xdef)),
	}}
}

// TestListJSON: list.json round-trips, and a file whose words or digests
// are not its leaves', or that is malformed, is refused.
func TestListJSON(t *testing.T) {
	l := testList()
	j, err := ListJSONOf(l)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseListJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := l.Digest()
	if d, err := got.Digest(); err != nil || d.Cmp(want) != 0 || len(got.Leaves) != 3 {
		t.Fatalf("read back %v (%v)", got, err)
	}
	for name, change := range map[string]func(j *ListJSON){
		"a leaf changed":             func(j *ListJSON) { j.Leaves[0].Input = "0x4" },
		"a word changed":             func(j *ListJSON) { j.Words[1] = "0x7" },
		"a word missing":             func(j *ListJSON) { j.Words = j.Words[1:] },
		"the list digest changed":    func(j *ListJSON) { j.ListDigest = "0x1" },
		"the statement digest":       func(j *ListJSON) { j.StatementDigest = j.ListDigest },
		"the model id changed":       func(j *ListJSON) { j.ModelID = "0x1235" },
		"an unknown kind":            func(j *ListJSON) { j.Leaves[0].Kind = "batch" },
		"a request with states":      func(j *ListJSON) { j.Leaves[0].StateIn = "0x1" },
		"a turn without its state":   func(j *ListJSON) { j.Leaves[1].StateOut = "" },
		"a turn to the empty state":  func(j *ListJSON) { j.Leaves[2].StateOut = "0x0" },
		"a number in decimal":        func(j *ListJSON) { j.ModelID = "4660" },
		"no leaves":                  func(j *ListJSON) { j.Leaves, j.Words = nil, nil },
		"a value of more than 254 b": func(j *ListJSON) { j.Leaves[0].Output = "0x" + strings.Repeat("f", 64) },
	} {
		bad, _ := ListJSONOf(l)
		change(bad)
		data, _ := json.Marshal(bad)
		if _, err := ParseListJSON(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for name, data := range map[string]string{
		"not JSON":      "{",
		"unknown field": `{"modelId":"0x1","leaves":[],"extra":1}`,
		"empty":         "",
	} {
		if _, err := ParseListJSON([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestVerifyArtifactsRefuses: a directory without a list, or with a list
// and no proof, is refused before anything is verified.
func TestVerifyArtifactsRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := VerifyArtifacts(dir, ""); err == nil {
		t.Fatal("an empty directory verified")
	}
	j, _ := ListJSONOf(testList())
	data, _ := json.Marshal(j)
	if err := writeFiles(dir, map[string][]byte{ListFile: data}); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyArtifacts(dir, ""); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("a list without a proof: %v", err)
	}
	if err := writeFiles(dir, map[string][]byte{ProofFile: []byte("not a proof"), ProofKeyFile: []byte("not a key")}); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyArtifacts(dir, ""); err == nil {
		t.Fatal("garbage proof and key verified")
	}
}

func FuzzParseListJSON(f *testing.F) {
	j, _ := ListJSONOf(testList())
	data, _ := json.Marshal(j)
	f.Add(data)
	f.Add([]byte(`{"modelId":"0x1","leaves":[{"kind":"request","input":"0x1","output":"0x2"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseListJSON(data)
		if err != nil {
			return
		}
		// What is accepted is a well-formed list that round-trips.
		again, err := ListJSONOf(l)
		if err != nil {
			t.Fatalf("accepted a list that does not encode: %v", err)
		}
		back, _ := json.Marshal(again)
		if _, err := ParseListJSON(back); err != nil {
			t.Fatalf("a list read from a file does not read back: %v", err)
		}
	})
}
