package statement

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	native "github.com/veriformer/veriformer/statement"
)

// kindShift matches statement.KindShift: every value of a leaf is below
// 2^kindShift, and a leaf's kind sits in the bits above in its first
// word.
const kindShift = native.KindShift

// Leaf is the in-circuit form of statement.Leaf: a request (Input,
// Output) or a turn (StateIn, Input, Output, StateOut). Kind is fixed
// when the circuit is compiled; StateIn and StateOut are unused for a
// request.
type Leaf struct {
	Kind                             native.Kind
	StateIn, Input, Output, StateOut frontend.Variable
}

// values returns the leaf's values in the order of its words.
func (l Leaf) values() ([]frontend.Variable, error) {
	switch l.Kind {
	case native.KindRequest:
		return []frontend.Variable{l.Input, l.Output}, nil
	case native.KindTurn:
		return []frontend.Variable{l.StateIn, l.Input, l.Output, l.StateOut}, nil
	}
	return nil, fmt.Errorf("statement: leaf of %v", l.Kind)
}

// leafWords returns the leaf's words as big-endian 32-bit words:
// (Input + 1·2²⁵⁴, Output) for a request, (StateIn + 2·2²⁵⁴, Input,
// Output, StateOut) for a turn (statement.Leaf.Words), asserting every
// value below 2²⁵⁴ and a turn's StateOut non-zero.
func leafWords(api frontend.API, l Leaf) ([]u32, error) {
	values, err := l.values()
	if err != nil {
		return nil, err
	}
	if l.Kind == native.KindTurn {
		api.AssertIsDifferent(l.StateOut, 0)
	}
	var out []u32
	for i, v := range values {
		w := wordOf(api, v, kindShift)
		if i == 0 {
			// Bits 254 and 255 of the word: bits 30 and 31 of its top
			// 32-bit word.
			w[0][kindShift-224] = int(l.Kind & 1)
			w[0][kindShift-223] = int(l.Kind >> 1 & 1)
		}
		out = append(out, w[:]...)
	}
	return out, nil
}

// ListDigestOf returns the list digest of the leaves
// (statement.List.ListDigest): SHA-256 of the leaves' words, each a
// 32-byte big-endian word, concatenated, its low 250 bits. Each value is
// asserted below 2²⁵⁴ by its decomposition, canonical (below the field's
// order) in a field of at most 254 bits, so the words hashed are those
// of the integers natively hashed; a turn's StateOut is asserted
// non-zero, as natively. The field must have more than 250 bits, and
// there must be 1 to statement.MaxLeaves leaves, each a request or a
// turn.
//
// It uses field arithmetic alone, neither lookups nor commitments, so it
// serves in any such field, BW6-761's included, and in a Groth16 circuit
// with no commitment. Cost: 255 constraints per value (more for the
// canonical comparison in a field of 254 bits or fewer), a few per turn
// for its non-zero StateOut, about 26 400
// per SHA-256 compression of a message block (one per request, two per
// turn) and about 19 200 for the padding block, whose message is
// constant.
func ListDigestOf(api frontend.API, leaves []Leaf) (frontend.Variable, error) {
	if n := len(leaves); n < 1 || n > native.MaxLeaves {
		return nil, fmt.Errorf("statement: a list of %d leaves, want 1 to %d", n, native.MaxLeaves)
	}
	if fieldBits := api.Compiler().FieldBitLen(); fieldBits <= listBits {
		return nil, fmt.Errorf("statement: list digest over a %d-bit field, want more than %d bits", fieldBits, listBits)
	}
	var msg []u32
	for i, l := range leaves {
		w, err := leafWords(api, l)
		if err != nil {
			return nil, fmt.Errorf("statement: leaf %d: %w", i, err)
		}
		msg = append(msg, w...)
	}
	return digestValue(api, sha256Words(api, msg), listBits), nil
}
