package transcript

import (
	"encoding/json"
	"fmt"
	"os"
)

// Vector is a golden test vector shared by the native and in-circuit tests:
// a domain and statement, then groups of absorbed elements, each followed by
// the challenges squeezed after it. Elements are decimal strings.
type Vector struct {
	Field     string   `json:"field"`
	Domain    string   `json:"domain"`
	Statement []string `json:"statement"`
	Steps     []Step   `json:"steps"`
	Final     string   `json:"final_state"`
}

// Step is one (label,) absorb-then-squeeze step of a Vector.
type Step struct {
	Label      string   `json:"label,omitempty"`
	Absorb     []string `json:"absorb"`
	Challenges []string `json:"challenges"`
}

// ReadVectors loads vectors from a JSON file: used by the tests of
// packages transcript and gadgets/transcript, which derive the vectors'
// challenges natively and in circuit.
func ReadVectors(path string) ([]Vector, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vs []Vector
	if err := json.Unmarshal(data, &vs); err != nil {
		return nil, fmt.Errorf("transcript: vectors %s: %w", path, err)
	}
	return vs, nil
}
