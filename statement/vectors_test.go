package statement_test

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"math/big"
	"os"
	"testing"

	"github.com/veriformer/veriformer/internal/listvectors"
	"github.com/veriformer/veriformer/statement"
)

var updateLists = flag.Bool("update", false, "rewrite testdata/lists.json")

func hexOf(v *big.Int) string { return "0x" + v.Text(16) }

// word returns a deterministic value below 2^bits.
func word(seed, bits int) *big.Int {
	sum := sha256.Sum256([]byte{byte(seed), byte(seed >> 8)})
	v := new(big.Int).SetBytes(sum[:])
	return v.Rsh(v, uint(256-bits))
}

// goldenLists are the lists of testdata/lists.json.
func goldenLists() map[string]statement.List {
	top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), statement.KindShift), big.NewInt(1))
	id := word(1, statement.ModelIDBits)
	req := func(s int) statement.Leaf { return statement.RequestLeaf(word(s, 253), word(s+1, 253)) }
	turn := func(in, s, out int) statement.Leaf {
		st := func(x int) *big.Int {
			if x == 0 {
				return statement.EmptyState
			}
			return word(x, 250)
		}
		return statement.TurnLeaf(st(in), word(s, 253), word(s+1, 253), st(out))
	}
	var many []statement.Leaf
	for i := range 9 {
		many = append(many, req(100+2*i))
	}
	return map[string]statement.List{
		"one request":            {ModelID: id, Leaves: []statement.Leaf{req(10)}},
		"largest values":         {ModelID: new(big.Int).Rsh(top, statement.KindShift-statement.ModelIDBits), Leaves: []statement.Leaf{statement.RequestLeaf(top, top)}},
		"zero values":            {ModelID: big.NewInt(0), Leaves: []statement.Leaf{statement.RequestLeaf(big.NewInt(0), big.NewInt(0))}},
		"one first turn":         {ModelID: id, Leaves: []statement.Leaf{turn(0, 20, 7)}},
		"two requests and turns": {ModelID: id, Leaves: []statement.Leaf{req(30), turn(0, 40, 8), req(32), turn(8, 42, 9)}},
		"nine requests":          {ModelID: id, Leaves: many},
	}
}

// TestListVectors writes testdata/lists.json with -update and checks
// every vector as the in-circuit and Solidity tests read it
// (internal/listvectors): its words, list digest and statement digest as
// statement.List computes them, and its words parsed back into its
// leaves.
func TestListVectors(t *testing.T) {
	if *updateLists {
		names := []string{"one request", "largest values", "zero values", "one first turn", "two requests and turns", "nine requests"}
		lists := goldenLists()
		var vectors []listvectors.JSON
		for _, name := range names {
			l := lists[name]
			v := listvectors.JSON{Name: name, ModelID: hexOf(l.ModelID)}
			for _, leaf := range l.Leaves {
				lv := listvectors.LeafJSON{Kind: leaf.Kind, Input: hexOf(leaf.Input), Output: hexOf(leaf.Output)}
				if leaf.Kind == statement.KindTurn {
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
		if err := os.WriteFile(listvectors.File(), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vectors, err := listvectors.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(vectors) != len(goldenLists()) {
		t.Fatalf("%d vectors, want %d", len(vectors), len(goldenLists()))
	}
	for _, v := range vectors {
		l := v.List
		words, err := l.Words()
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(words) != len(v.Words) {
			t.Fatalf("%s: %d words, want %d", v.Name, len(words), len(v.Words))
		}
		for i := range words {
			if words[i].Cmp(v.Words[i]) != 0 {
				t.Fatalf("%s: word %d", v.Name, i)
			}
		}
		ld, err := l.ListDigest()
		if err != nil || ld.Cmp(v.ListDigest) != 0 {
			t.Fatalf("%s: list digest %v (%v), want %#x", v.Name, ld, err, v.ListDigest)
		}
		d, err := l.Digest()
		if err != nil || d.Cmp(v.Digest) != 0 {
			t.Fatalf("%s: digest %v (%v), want %#x", v.Name, d, err, v.Digest)
		}
		back, err := statement.ParseWords(words)
		if err != nil || len(back) != len(l.Leaves) {
			t.Fatalf("%s: parse: %v", v.Name, err)
		}
		again, _ := statement.List{ModelID: l.ModelID, Leaves: back}.Words()
		for i := range again {
			if again[i].Cmp(words[i]) != 0 {
				t.Fatalf("%s: parse changed word %d", v.Name, i)
			}
		}
	}
}
