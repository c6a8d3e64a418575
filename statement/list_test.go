package statement

import (
	"math/big"
	"testing"
)

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
