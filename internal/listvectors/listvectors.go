// Package listvectors reads the golden vectors of statement lists
// (statement/testdata/lists.json) that the native, in-circuit and
// Solidity tests share. It is test support, not on the product path.
package listvectors

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime"

	"github.com/veriformer/veriformer/statement"
)

// Vector is one golden list: its name, the list, and its words, list
// digest and statement digest as statement.List computes them.
type Vector struct {
	Name       string
	List       statement.List
	Words      []*big.Int
	ListDigest *big.Int
	Digest     *big.Int
}

// File is the vectors' file, statement/testdata/lists.json of the module.
func File() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "statement", "testdata", "lists.json")
}

// JSON is the file's form of a vector.
type JSON struct {
	Name       string     `json:"name"`
	ModelID    string     `json:"model_id"`
	Leaves     []LeafJSON `json:"leaves"`
	Words      []string   `json:"words"`
	ListDigest string     `json:"list_digest"`
	Digest     string     `json:"digest"`
}

// LeafJSON is the file's form of a leaf.
type LeafJSON struct {
	Kind     statement.Kind `json:"kind"`
	StateIn  string         `json:"state_in,omitempty"`
	Input    string         `json:"input"`
	Output   string         `json:"output"`
	StateOut string         `json:"state_out,omitempty"`
}

// Read reads and decodes the vectors of File.
func Read() ([]Vector, error) {
	data, err := os.ReadFile(File())
	if err != nil {
		return nil, err
	}
	var raw []JSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("listvectors: no vectors in %s", File())
	}
	out := make([]Vector, len(raw))
	for i, r := range raw {
		var bad error
		parse := func(s string) *big.Int {
			v, ok := new(big.Int).SetString(s, 0)
			if !ok && bad == nil {
				bad = fmt.Errorf("listvectors: %s: bad number %q", r.Name, s)
			}
			return v
		}
		v := Vector{Name: r.Name, List: statement.List{ModelID: parse(r.ModelID)}, ListDigest: parse(r.ListDigest), Digest: parse(r.Digest)}
		for _, l := range r.Leaves {
			leaf := statement.RequestLeaf(parse(l.Input), parse(l.Output))
			if l.Kind == statement.KindTurn {
				leaf = statement.TurnLeaf(parse(l.StateIn), parse(l.Input), parse(l.Output), parse(l.StateOut))
			}
			v.List.Leaves = append(v.List.Leaves, leaf)
		}
		for _, w := range r.Words {
			v.Words = append(v.Words, parse(w))
		}
		if bad != nil {
			return nil, bad
		}
		out[i] = v
	}
	return out, nil
}
