package tokenizer

import (
	"math/rand"
	"strings"
	"testing"
)

// BenchmarkEncodeGPT2 encodes about 64 KiB of mixed text with the test
// vocabulary.
func BenchmarkEncodeGPT2(b *testing.B) {
	tok := testGPT2(b)
	rng := rand.New(rand.NewSource(1))
	var text strings.Builder
	for text.Len() < 1<<16 {
		text.WriteString(randomText(rng, true))
	}
	s := text.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := tok.Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeLongWord merges one 16 KiB word, the worst case of a
// tokenizer without pre-tokenizer.
func BenchmarkMergeLongWord(b *testing.B) {
	tok := testGPT2(b)
	word := strings.Repeat("hello", 1<<12/5*4)
	b.SetBytes(int64(len(word)))
	for b.Loop() {
		if _, err := tok.(*BPE).encodeWord(nil, word); err != nil {
			b.Fatal(err)
		}
	}
}
