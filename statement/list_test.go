package statement

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"testing"
)

var updateLists = flag.Bool("update", false, "rewrite testdata/lists.json")

// ListVector is a golden vector of a list, shared by the native, gadget and
// Solidity tests (testdata/lists.json).
type listVector struct {
	Name       string       `json:"name"`
	ModelID    string       `json:"model_id"`
	Leaves     []leafVector `json:"leaves"`
	Words      []string     `json:"words"`
	ListDigest string       `json:"list_digest"`
	Digest     string       `json:"digest"`
}

type leafVector struct {
	Kind     Kind   `json:"kind"`
	StateIn  string `json:"state_in,omitempty"`
	Input    string `json:"input"`
	Output   string `json:"output"`
	StateOut string `json:"state_out,omitempty"`
}

func hexOf(v *big.Int) string { return "0x" + v.Text(16) }

// word returns a deterministic value below 2^bits.
func word(seed, bits int) *big.Int {
	sum := sha256.Sum256([]byte{byte(seed), byte(seed >> 8)})
	v := new(big.Int).SetBytes(sum[:])
	return v.Rsh(v, uint(256-bits))
}

// goldenLists are the lists of testdata/lists.json.
func goldenLists() map[string]List {
	top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), KindShift), big.NewInt(1))
	id := word(1, ModelIDBits)
	req := func(s int) Leaf { return RequestLeaf(word(s, 253), word(s+1, 253)) }
	turn := func(in, s, out int) Leaf {
		st := func(x int) *big.Int {
			if x == 0 {
				return EmptyState
			}
			return word(x, 250)
		}
		return TurnLeaf(st(in), word(s, 253), word(s+1, 253), st(out))
	}
	var many []Leaf
	for i := range 9 {
		many = append(many, req(100+2*i))
	}
	return map[string]List{
		"one request":            {ModelID: id, Leaves: []Leaf{req(10)}},
		"largest values":         {ModelID: new(big.Int).Rsh(top, KindShift-ModelIDBits), Leaves: []Leaf{RequestLeaf(top, top)}},
		"zero values":            {ModelID: big.NewInt(0), Leaves: []Leaf{RequestLeaf(big.NewInt(0), big.NewInt(0))}},
		"one first turn":         {ModelID: id, Leaves: []Leaf{turn(0, 20, 7)}},
		"two requests and turns": {ModelID: id, Leaves: []Leaf{req(30), turn(0, 40, 8), req(32), turn(8, 42, 9)}},
		"nine requests":          {ModelID: id, Leaves: many},
	}
}

func TestListVectors(t *testing.T) {
	const file = "testdata/lists.json"
	var vectors []listVector
	if *updateLists {
		names := []string{"one request", "largest values", "zero values", "one first turn", "two requests and turns", "nine requests"}
		lists := goldenLists()
		for _, name := range names {
			l := lists[name]
			v := listVector{Name: name, ModelID: hexOf(l.ModelID)}
			for _, leaf := range l.Leaves {
				lv := leafVector{Kind: leaf.Kind, Input: hexOf(leaf.Input), Output: hexOf(leaf.Output)}
				if leaf.Kind == KindTurn {
					lv.StateIn, lv.StateOut = hexOf(leaf.StateIn), hexOf(leaf.StateOut)
				}
				v.Leaves = append(v.Leaves, lv)
			}
			words, err := l.Words()
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range words {
				v.Words = append(v.Words, hexOf(w))
			}
			ld, _ := l.ListDigest()
			d, _ := l.Digest()
			v.ListDigest, v.Digest = hexOf(ld), hexOf(d)
			vectors = append(vectors, v)
		}
		data, _ := json.MarshalIndent(vectors, "", "  ")
		if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) != len(goldenLists()) {
		t.Fatalf("%d vectors, want %d", len(vectors), len(goldenLists()))
	}
	parse := func(s string) *big.Int {
		v, ok := new(big.Int).SetString(s, 0)
		if !ok {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	for _, v := range vectors {
		l := List{ModelID: parse(v.ModelID)}
		for _, lv := range v.Leaves {
			leaf := RequestLeaf(parse(lv.Input), parse(lv.Output))
			if lv.Kind == KindTurn {
				leaf = TurnLeaf(parse(lv.StateIn), parse(lv.Input), parse(lv.Output), parse(lv.StateOut))
			}
			l.Leaves = append(l.Leaves, leaf)
		}
		words, err := l.Words()
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(words) != len(v.Words) {
			t.Fatalf("%s: %d words, want %d", v.Name, len(words), len(v.Words))
		}
		for i := range words {
			if words[i].Cmp(parse(v.Words[i])) != 0 {
				t.Fatalf("%s: word %d", v.Name, i)
			}
		}
		ld, err := l.ListDigest()
		if err != nil || ld.Cmp(parse(v.ListDigest)) != 0 {
			t.Fatalf("%s: list digest %v (%v), want %s", v.Name, ld, err, v.ListDigest)
		}
		d, err := l.Digest()
		if err != nil || d.Cmp(parse(v.Digest)) != 0 {
			t.Fatalf("%s: digest %v (%v), want %s", v.Name, d, err, v.Digest)
		}
		back, err := ParseWords(words)
		if err != nil || len(back) != len(l.Leaves) {
			t.Fatalf("%s: parse: %v", v.Name, err)
		}
		again, _ := List{ModelID: l.ModelID, Leaves: back}.Words()
		for i := range again {
			if again[i].Cmp(words[i]) != 0 {
				t.Fatalf("%s: parse changed word %d", v.Name, i)
			}
		}
	}
}

// TestListRefuses checks that malformed leaves and lists are refused and
// that the kind separates a request from a turn of the same values.
func TestListRefuses(t *testing.T) {
	id := big.NewInt(7)
	big254 := new(big.Int).Lsh(big.NewInt(1), KindShift)
	bad := map[string]List{
		"empty":             {ModelID: id},
		"nil model":         {Leaves: []Leaf{RequestLeaf(big.NewInt(1), big.NewInt(2))}},
		"wide model":        {ModelID: new(big.Int).Lsh(big.NewInt(1), ModelIDBits), Leaves: []Leaf{RequestLeaf(big.NewInt(1), big.NewInt(2))}},
		"wide input":        {ModelID: id, Leaves: []Leaf{RequestLeaf(big254, big.NewInt(2))}},
		"nil output":        {ModelID: id, Leaves: []Leaf{RequestLeaf(big.NewInt(1), nil)}},
		"unknown kind":      {ModelID: id, Leaves: []Leaf{{Kind: 3, Input: big.NewInt(1), Output: big.NewInt(1)}}},
		"turn to empty":     {ModelID: id, Leaves: []Leaf{TurnLeaf(big.NewInt(0), big.NewInt(1), big.NewInt(2), big.NewInt(0))}},
		"negative state in": {ModelID: id, Leaves: []Leaf{TurnLeaf(big.NewInt(-1), big.NewInt(1), big.NewInt(2), big.NewInt(3))}},
		"too many":          {ModelID: id, Leaves: make([]Leaf, MaxLeaves+1)},
	}
	for name, l := range bad {
		if _, err := l.Digest(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	a := List{ModelID: id, Leaves: []Leaf{RequestLeaf(big.NewInt(1), big.NewInt(2)), RequestLeaf(big.NewInt(3), big.NewInt(4))}}
	b := List{ModelID: id, Leaves: []Leaf{TurnLeaf(big.NewInt(1), big.NewInt(2), big.NewInt(3), big.NewInt(4))}}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da.Cmp(db) == 0 {
		t.Fatal("two requests and a turn of the same values have one digest")
	}
	for name, words := range map[string][]*big.Int{
		"none":        nil,
		"short turn":  {new(big.Int).Lsh(big.NewInt(2), KindShift), big.NewInt(1)},
		"kind 0":      {big.NewInt(1), big.NewInt(2)},
		"kind 3":      {new(big.Int).Lsh(big.NewInt(3), KindShift), big.NewInt(2)},
		"wide second": {new(big.Int).Lsh(big.NewInt(1), KindShift), new(big.Int).Lsh(big.NewInt(1), KindShift)},
		"nil":         {nil, big.NewInt(1)},
	} {
		if _, err := ParseWords(words); err == nil {
			t.Errorf("parse %s: accepted", name)
		}
	}
}

func FuzzParseWords(f *testing.F) {
	f.Add([]byte{0x40, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var words []*big.Int
		for len(data) > 0 {
			n := min(len(data), 32)
			words = append(words, new(big.Int).SetBytes(data[:n]))
			data = data[n:]
		}
		leaves, err := ParseWords(words)
		if err != nil {
			return
		}
		again, err := List{ModelID: big.NewInt(1), Leaves: leaves}.Words()
		if err != nil || len(again) != len(words) {
			t.Fatalf("parsed %d words into leaves of %d words (%v)", len(words), len(again), err)
		}
		for i := range words {
			if again[i].Cmp(words[i]) != 0 {
				t.Fatalf("word %d changed", i)
			}
		}
	})
}
