package tokenizer

import "fmt"

// Tokenizer turns text into token ids and back.
type Tokenizer interface {
	// Encode returns the token ids of text. No beginning- or end-of-sequence
	// token is added; callers that need one add its id themselves.
	Encode(text string) ([]int, error)
	// Decode returns the text of ids. An id outside the vocabulary is an
	// error. The result holds the decoded bytes as they are, so a prefix of a
	// longer sequence may end inside a multi-byte UTF-8 character.
	Decode(ids []int) (string, error)
	// VocabSize is one more than the largest token id.
	VocabSize() int
	// canonical writes the tokenizer's part of [Codec.Digest]; it also
	// keeps the implementations to this package, whose every one the
	// digest covers.
	canonical(e *canonical)
}

// byteTokenizer maps every byte to the token with the same value.
type byteTokenizer struct{}

// NewByte returns the byte-level tokenizer: token id = byte value, a
// vocabulary of 256. Decode(Encode(s)) = s for every string s.
func NewByte() Tokenizer { return byteTokenizer{} }

func (byteTokenizer) Encode(text string) ([]int, error) {
	ids := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		ids[i] = int(text[i])
	}
	return ids, nil
}

func (byteTokenizer) Decode(ids []int) (string, error) {
	out := make([]byte, len(ids))
	for i, id := range ids {
		if id < 0 || id > 255 {
			return "", fmt.Errorf("tokenizer: id %d at position %d is outside the byte vocabulary", id, i)
		}
		out[i] = byte(id)
	}
	return string(out), nil
}

func (byteTokenizer) VocabSize() int { return 256 }

func (byteTokenizer) canonical(e *canonical) { e.string("byte") }
