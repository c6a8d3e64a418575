package transcript

import (
	"fmt"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/permutation/poseidon2"

	native "github.com/veriformer/veriformer/transcript"
)

// Transcript is the in-circuit twin of the native transcript: the same
// Poseidon2 compression, the same constants, the same order of operations,
// so both derive identical challenges from identical absorbed elements.
type Transcript struct {
	api   frontend.API
	perm  *poseidon2.Permutation
	state frontend.Variable
	tag   frontend.Variable
}

// New starts a transcript for the protocol named domain, seeded with the
// statement, exactly as the native New.
func New(api frontend.API, domain string, statement ...frontend.Variable) (*Transcript, error) {
	t, err := Resume(api, constant(api, "domain/"+domain))
	if err != nil {
		return nil, err
	}
	t.Absorb(len(statement))
	t.Absorb(statement...)
	return t, nil
}

// Resume returns a transcript in the given state, as if it had been
// produced by the calls that led to it: [New] from the domain's constant,
// a fork of a circuit's transcript, a segment's continued.
func Resume(api frontend.API, state frontend.Variable) (*Transcript, error) {
	perm, err := poseidon2.NewPoseidon2(api)
	if err != nil {
		return nil, fmt.Errorf("transcript: poseidon2: %w", err)
	}
	return &Transcript{api: api, perm: perm, state: state, tag: constant(api, "challenge")}, nil
}

// Absorb feeds variables into the transcript, one compression each.
func (t *Transcript) Absorb(xs ...frontend.Variable) {
	for _, x := range xs {
		t.state = t.perm.Compress(t.state, x)
	}
}

// Label absorbs the constant of a label.
func (t *Transcript) Label(label string) {
	t.Absorb(constant(t.api, "label/"+label))
}

// Challenge squeezes one challenge.
func (t *Transcript) Challenge() frontend.Variable {
	t.state = t.perm.Compress(t.state, t.tag)
	return t.state
}

// Challenges squeezes n challenges in sequence.
func (t *Transcript) Challenges(n int) []frontend.Variable {
	out := make([]frontend.Variable, n)
	for i := range out {
		out[i] = t.Challenge()
	}
	return out
}

// State returns the current state.
func (t *Transcript) State() frontend.Variable {
	return t.state
}

func constant(api frontend.API, s string) frontend.Variable {
	return native.ConstantBig(s, api.Compiler().Field())
}
