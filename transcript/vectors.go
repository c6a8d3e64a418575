package transcript

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"

	"github.com/veriformer/veriformer/field"
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

// Replay runs the vector's operations on a fresh native transcript and
// returns the challenges and final state it produces.
func Replay[E field.Scalar, P field.Ptr[E]](v *Vector) (challenges [][]E, final E, err error) {
	statement, err := parseAll[E, P](v.Statement)
	if err != nil {
		return nil, final, fmt.Errorf("statement: %w", err)
	}
	t := New[E, P](v.Domain, statement...)
	for i, s := range v.Steps {
		if s.Label != "" {
			t.Label(s.Label)
		}
		xs, err := parseAll[E, P](s.Absorb)
		if err != nil {
			return nil, final, fmt.Errorf("step %d: %w", i, err)
		}
		t.Absorb(xs...)
		challenges = append(challenges, t.Challenges(len(s.Challenges)))
	}
	return challenges, t.State(), nil
}

// ReadVectors loads vectors from a JSON file.
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

func parseAll[E field.Scalar, P field.Ptr[E]](ss []string) ([]E, error) {
	out := make([]E, len(ss))
	for i, s := range ss {
		b, ok := new(big.Int).SetString(s, 10)
		if !ok || b.Sign() < 0 || b.Cmp(field.Modulus[E]()) >= 0 {
			return nil, fmt.Errorf("element %d: %q is not a canonical field element", i, s)
		}
		P(&out[i]).SetBigInt(b)
	}
	return out, nil
}
