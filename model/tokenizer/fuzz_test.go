package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncodeDecode checks that Decode inverts Encode: for the GPT-2 style
// tokenizer on every string, valid UTF-8 or not; for the Llama style one on
// valid UTF-8 without "▁" or special-token text, which its normalizer and
// decoder cannot tell apart from spaces.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"", "hello world", "I'm  here\n\n you're", "a\u00a0b\t\tc", "日本語 ٣ 😀", "\xff\xfe", "<|endoftext|>x", "  ", "'s's"} {
		f.Add(s)
	}
	gpt2 := testGPT2(f)
	llama, err := LoadTokenizerJSON(llamaTokenizerJSON(f, true))
	if err != nil {
		f.Fatal(err)
	}
	byteLevel := NewByte()
	f.Fuzz(func(t *testing.T, text string) {
		for _, split := range splitPatterns {
			if joined := strings.Join(split(text), ""); joined != text {
				t.Fatalf("pieces of %q join to %q", text, joined)
			}
		}
		check := func(name string, tok Tokenizer) {
			ids, err := tok.Encode(text)
			if err != nil {
				t.Fatalf("%s: Encode(%q): %v", name, text, err)
			}
			back, err := tok.Decode(ids)
			if err != nil || back != text {
				t.Fatalf("%s: Decode(Encode(%q)) = %q, %v", name, text, back, err)
			}
		}
		check("gpt2", gpt2)
		check("byte", byteLevel)
		if utf8.ValidString(text) && !strings.Contains(text, "▁") && !strings.Contains(text, "<s>") &&
			!strings.Contains(text, "</s>") && !strings.Contains(text, "<unk>") {
			check("llama", llama)
		}
	})
}

// FuzzLoadTokenizerJSON checks that loading never panics and that a loaded
// tokenizer encodes without panicking into ids that it can decode.
func FuzzLoadTokenizerJSON(f *testing.F) {
	f.Add(gpt2TokenizerJSON(f, false), "hello world")
	f.Add(gpt2TokenizerJSON(f, true), "<|endoftext|> x")
	f.Add(llamaTokenizerJSON(f, true), "hé <s>")
	f.Add(llamaTokenizerJSON(f, false), "zz top")
	f.Add([]byte(`{"model":{"vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]},"pre_tokenizer":{"type":"Metaspace","prepend_scheme":"first"},"decoder":{"type":"Metaspace"}}`), "ab a")
	f.Add([]byte(`{"added_tokens":[{"id":3,"content":"x","lstrip":true,"rstrip":true}],"model":{"vocab":{"a":0},"merges":[]},"decoder":{"type":"Strip","content":"a","start":2,"stop":1}}`), "a x a")
	f.Add([]byte(`{"model":{"vocab":{"a":0}}}`), "")
	f.Add([]byte(`{"pre_tokenizer":`+splitSequence(llama3Pattern, "Isolated", false, false)+`,"model":{"ignore_merges":true,"vocab":{"a":0,"Ġ":1,"Ġa":2},"merges":["Ġ a"]}}`), "a a 123")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		tok, err := LoadTokenizerJSON(data)
		if err != nil {
			return
		}
		ids, err := tok.Encode(text)
		if err != nil {
			return
		}
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) gave id %d outside [0, %d)", text, id, tok.VocabSize())
			}
		}
		if _, err := tok.Decode(ids); err != nil {
			t.Fatalf("Decode of encoded ids %v: %v", ids, err)
		}
	})
}
