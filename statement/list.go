package statement

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
)

// Kind is the kind of a leaf of a [List].
type Kind uint8

const (
	// KindRequest is a request: (input digest, output digest).
	KindRequest Kind = 1
	// KindTurn is a turn of a conversation: (state in, input digest,
	// output digest, state out).
	KindTurn Kind = 2
)

// String implements fmt.Stringer.
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindTurn:
		return "turn"
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// KindShift is the bit at which a leaf's kind sits in its first word:
// every value of a leaf is below 2^KindShift, so the first word, value +
// kind·2^KindShift, tells the kind apart.
const KindShift = 254

// MaxLeaves is the most leaves one list holds.
const MaxLeaves = 1 << 12

// Leaf is one statement of a list: a request, or a turn of a
// conversation, whose StateIn and StateOut are digests of the
// conversation's committed state before and after it (a first turn's
// StateIn is [EmptyState]).
type Leaf struct {
	Kind                             Kind
	StateIn, Input, Output, StateOut *big.Int
}

// RequestLeaf returns the leaf of a request.
func RequestLeaf(input, output *big.Int) Leaf {
	return Leaf{Kind: KindRequest, Input: input, Output: output}
}

// TurnLeaf returns the leaf of a turn.
func TurnLeaf(stateIn, input, output, stateOut *big.Int) Leaf {
	return Leaf{Kind: KindTurn, StateIn: stateIn, Input: input, Output: output, StateOut: stateOut}
}

// String implements fmt.Stringer.
func (l Leaf) String() string {
	if l.Kind == KindTurn {
		return fmt.Sprintf("turn state in %#x input %#x output %#x state out %#x", l.StateIn, l.Input, l.Output, l.StateOut)
	}
	return fmt.Sprintf("%v input %#x output %#x", l.Kind, l.Input, l.Output)
}

// Words returns the leaf's words: (input + 1·2^254, output) for a
// request, (state in + 2·2^254, input, output, state out) for a turn.
func (l Leaf) Words() ([]*big.Int, error) {
	var values []*big.Int
	switch l.Kind {
	case KindRequest:
		values = []*big.Int{l.Input, l.Output}
	case KindTurn:
		values = []*big.Int{l.StateIn, l.Input, l.Output, l.StateOut}
		if l.StateOut != nil && l.StateOut.Sign() == 0 {
			return nil, errors.New("statement: a turn leaves the empty state")
		}
	default:
		return nil, fmt.Errorf("statement: leaf of %v", l.Kind)
	}
	out := make([]*big.Int, len(values))
	for i, v := range values {
		if v == nil || v.Sign() < 0 || v.BitLen() > KindShift {
			return nil, fmt.Errorf("statement: %v: value %d (%v) is not below 2^%d", l.Kind, i, v, KindShift)
		}
		out[i] = new(big.Int).Set(v)
	}
	out[0].Add(out[0], new(big.Int).Lsh(big.NewInt(int64(l.Kind)), KindShift))
	return out, nil
}

// List is what a proof states: the model id and an ordered list of
// leaves, each a request or a turn. A single request is a list of one.
type List struct {
	ModelID *big.Int
	Leaves  []Leaf
}

// Check reports whether the list has 1 to [MaxLeaves] well-formed leaves
// and a model id below 2^[ModelIDBits].
func (l List) Check() error {
	if l.ModelID == nil || l.ModelID.Sign() < 0 || l.ModelID.BitLen() > ModelIDBits {
		return fmt.Errorf("statement: model id %v is not below 2^%d", l.ModelID, ModelIDBits)
	}
	if n := len(l.Leaves); n == 0 || n > MaxLeaves {
		return fmt.Errorf("statement: a list of %d leaves, want 1 to %d", n, MaxLeaves)
	}
	for i, leaf := range l.Leaves {
		if _, err := leaf.Words(); err != nil {
			return fmt.Errorf("statement: leaf %d: %w", i, err)
		}
	}
	return nil
}

// Words returns the leaves' words, in order.
func (l List) Words() ([]*big.Int, error) {
	if err := l.Check(); err != nil {
		return nil, err
	}
	var out []*big.Int
	for _, leaf := range l.Leaves {
		w, _ := leaf.Words()
		out = append(out, w...)
	}
	return out, nil
}

// ListDigest returns the list digest: SHA-256 of the leaves' words as
// 32-byte big-endian words, its low [ListBits] bits.
func (l List) ListDigest() (*big.Int, error) {
	words, err := l.Words()
	if err != nil {
		return nil, err
	}
	return ListDigestOfWords(words), nil
}

// ListDigestOfWords returns the low [ListBits] bits of SHA-256 of the
// words (each below 2^256) as 32-byte big-endian words.
func ListDigestOfWords(words []*big.Int) *big.Int {
	buf := make([]byte, 32*len(words))
	for i, w := range words {
		w.FillBytes(buf[32*i : 32*i+32])
	}
	sum := sha256.Sum256(buf)
	sum[0] &= 0xff >> (256 - ListBits)
	return new(big.Int).SetBytes(sum[:])
}

// Digest returns the statement digest of the list, the final proof's one
// public input: SHA-256 of the model id and the list digest as 32-byte
// big-endian words, its low [DigestBits] bits.
func (l List) Digest() (*big.Int, error) {
	list, err := l.ListDigest()
	if err != nil {
		return nil, err
	}
	return DigestOfList(l.ModelID, list)
}

// DigestOfList returns the statement digest of a model id and a list
// digest (the second step of [List.Digest]).
func DigestOfList(modelID, list *big.Int) (*big.Int, error) {
	return digestWords(modelID, list)
}

// ParseWords parses the words of a list's leaves ([List.Words]): the
// inverse of Words, refusing a word sequence no list has. Library API,
// the parser of the words the registry records (the package
// documentation); fuzzed, and used by the tests of package solidity,
// which check that it refuses what the registry refuses.
func ParseWords(words []*big.Int) ([]Leaf, error) {
	var leaves []Leaf
	for i := 0; i < len(words); {
		if len(leaves) == MaxLeaves {
			return nil, fmt.Errorf("statement: more than %d leaves", MaxLeaves)
		}
		w := words[i]
		if w == nil || w.Sign() < 0 || w.BitLen() > 256 {
			return nil, fmt.Errorf("statement: word %d (%v) is not a 256-bit word", i, w)
		}
		kind := Kind(new(big.Int).Rsh(w, KindShift).Uint64())
		n := 2
		if kind == KindTurn {
			n = 4
		} else if kind != KindRequest {
			return nil, fmt.Errorf("statement: word %d starts a leaf of %v", i, kind)
		}
		if i+n > len(words) {
			return nil, fmt.Errorf("statement: a %v at word %d has %d of its %d words", kind, i, len(words)-i, n)
		}
		v := make([]*big.Int, n)
		for j := range n {
			v[j] = new(big.Int).Set(words[i+j])
		}
		v[0].SetBit(v[0], KindShift, 0).SetBit(v[0], KindShift+1, 0)
		leaf := RequestLeaf(v[0], v[1])
		if kind == KindTurn {
			leaf = TurnLeaf(v[0], v[1], v[2], v[3])
		}
		if _, err := leaf.Words(); err != nil {
			return nil, fmt.Errorf("statement: leaf at word %d: %w", i, err)
		}
		leaves = append(leaves, leaf)
		i += n
	}
	if len(leaves) == 0 {
		return nil, errors.New("statement: no leaves")
	}
	return leaves, nil
}
