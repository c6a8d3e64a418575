package tokenizer

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestByteTokenizer(t *testing.T) {
	tok := NewByte()
	if tok.VocabSize() != 256 {
		t.Fatalf("VocabSize = %d", tok.VocabSize())
	}
	ids, err := tok.Encode("a\x00\xffé")
	if err != nil || !reflect.DeepEqual(ids, []int{'a', 0, 255, 0xc3, 0xa9}) {
		t.Fatalf("Encode = %v, %v", ids, err)
	}
	if s, err := tok.Decode(ids); err != nil || s != "a\x00\xffé" {
		t.Fatalf("Decode = %q, %v", s, err)
	}
	for _, bad := range []int{-1, 256} {
		if _, err := tok.Decode([]int{1, bad}); err == nil || !strings.Contains(err.Error(), "position 1") {
			t.Errorf("Decode(%d): %v", bad, err)
		}
	}
}

func TestByteToRune(t *testing.T) {
	known := map[byte]rune{
		'!': '!', 'a': 'a', '~': '~', 0xA1: '¡', 0xAC: '¬', 0xAE: '®', 0xFF: 'ÿ',
		0x00: 'Ā', '\n': 'Ċ', ' ': 'Ġ', 0x7F: 'ġ', 0x80: 'Ģ', 0xA0: 'ł', 0xAD: 'Ń',
	}
	for b, r := range known {
		if byteToRune[b] != r {
			t.Errorf("byte %#02x maps to %q, want %q", b, byteToRune[b], r)
		}
	}
	seen := make(map[rune]bool)
	for b := 0; b < 256; b++ {
		r := byteToRune[b]
		if seen[r] {
			t.Fatalf("character %q used twice", r)
		}
		seen[r] = true
		if runeToByte[r] != byte(b) {
			t.Fatalf("runeToByte does not invert byte %#02x", b)
		}
	}
}

func TestSplitGPT2(t *testing.T) {
	cases := map[string][]string{
		"":                  nil,
		"Hello world":       {"Hello", " world"},
		"I'm here":          {"I", "'m", " here"},
		"you're we've":      {"you", "'re", " we", "'ve"},
		"don't I'll he'd":   {"don", "'t", " I", "'ll", " he", "'d"},
		"it's":              {"it", "'s"},
		"IT'S":              {"IT", "'", "S"},
		"''s":               {"''", "s"},
		" 's":               {" '", "s"},
		"  hi":              {" ", " hi"},
		"a  b":              {"a", " ", " b"},
		"a \n b":            {"a", " \n", " b"},
		"a\nb":              {"a", "\n", "b"},
		"\t\tx":             {"\t", "\t", "x"},
		"end   ":            {"end", "   "},
		"x\n\n":             {"x", "\n\n"},
		" ":                 {" "},
		" 123":              {" 123"},
		"abc123":            {"abc", "123"},
		"hi!!?":             {"hi", "!!?"},
		" !? x":             {" !?", " x"},
		"ünïcödé 日本語 ٣":     {"ünïcödé", " 日本語", " ٣"},
		"a\u00a0b":          {"a", "\u00a0", "b"},
		"a\xffb":            {"a", "\xff", "b"},
		"€5 😀😀 x":           {"€", "5", " 😀😀", " x"},
		"x\r\n\r\ny":        {"x", "\r\n\r", "\n", "y"},
		"  \u3000 tail end": {"  \u3000", " tail", " end"},
	}
	for in, want := range cases {
		if got := splitGPT2(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitGPT2(%q) = %q, want %q", in, got, want)
		}
	}
}

// testVocab is a byte-level vocabulary: the byte-level character of byte b
// has id b, then the merged tokens of testMerges in order, then
// <|endoftext|>.
var testMerges = []string{
	"Ġ t", "h e", "Ġt he", "i n", "Ġ a", "l l", "e ll", "h ell", "hell o",
	"Ġ w", "o r", "Ġw or", "l d", "Ġwor ld", "Ġ Ġ", "1 2",
}

func testVocab() map[string]int {
	vocab := make(map[string]int)
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = b
	}
	for _, m := range testMerges {
		vocab[strings.ReplaceAll(m, " ", "")] = len(vocab)
	}
	vocab[endOfText] = len(vocab)
	return vocab
}

func testGPT2(t testing.TB) Tokenizer {
	t.Helper()
	vocab, err := json.Marshal(testVocab())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := LoadGPT2(vocab, []byte("#version: 0.2\n"+strings.Join(testMerges, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// ids maps token strings of testVocab to ids.
func ids(t *testing.T, vocab map[string]int, tokens ...string) []int {
	t.Helper()
	out := make([]int, len(tokens))
	for i, s := range tokens {
		id, ok := vocab[s]
		if !ok {
			t.Fatalf("token %q not in the test vocabulary", s)
		}
		out[i] = id
	}
	return out
}

func TestGPT2KnownEncodings(t *testing.T) {
	tok := testGPT2(t)
	vocab := testVocab()
	cases := []struct {
		text   string
		tokens []string
	}{
		// h e l l o: (h,e) has rank 1 and merges first; then (l,l); "he ll"
		// has no merge, so "hell" is never formed.
		{"hello", []string{"he", "ll", "o"}},
		// e l l o: (l,l) then (e,ll).
		{"ello", []string{"ell", "o"}},
		// Ġ w o r l d: ranks 9, 10, 11, 12, 13 in turn.
		{"hello world", []string{"he", "ll", "o", "Ġworld"}},
		{"the the", []string{"t", "he", "Ġthe"}},
		{"in a", []string{"in", "Ġa"}},
		// The whitespace run gives up its last space to the next word.
		{"a   the", []string{"a", "ĠĠ", "Ġthe"}},
		{"12 123\n", []string{"12", "Ġ", "12", "3", "Ċ"}},
		{"<|endoftext|>the<|endoftext|>", []string{endOfText, "t", "he", endOfText}},
		{"é", []string{"Ã", "©"}},
		{"", nil},
	}
	for _, c := range cases {
		got, err := tok.Encode(c.text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", c.text, err)
		}
		want := ids(t, vocab, c.tokens...)
		if len(c.tokens) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Encode(%q) = %v, want %v %q", c.text, got, want, c.tokens)
		}
		if s, err := tok.Decode(got); err != nil || s != c.text {
			t.Errorf("Decode(Encode(%q)) = %q, %v", c.text, s, err)
		}
	}
	if tok.VocabSize() != len(vocab) {
		t.Errorf("VocabSize = %d, want %d", tok.VocabSize(), len(vocab))
	}
	bpe := tok.(*BPE)
	if id, ok := bpe.TokenID(endOfText); !ok || id != vocab[endOfText] {
		t.Errorf("TokenID(eot) = %d, %v", id, ok)
	}
	if s, ok := bpe.Token(vocab["Ġworld"]); !ok || s != "Ġworld" {
		t.Errorf("Token = %q, %v", s, ok)
	}
	if _, ok := bpe.TokenID("nope"); ok {
		t.Error("TokenID found a missing token")
	}
	for _, bad := range [][]int{{-1}, {len(vocab)}, {0, 1 << 30}} {
		if _, err := tok.Decode(bad); err == nil || !strings.Contains(err.Error(), "unknown id") {
			t.Errorf("Decode(%v): %v", bad, err)
		}
	}
}

// randomText draws strings that stress the pre-tokenizer: letters, digits,
// apostrophe contractions, punctuation, whitespace runs of every kind,
// multi-byte characters and, unless validOnly, invalid bytes.
func randomText(rng *rand.Rand, validOnly bool) string {
	pieces := []string{
		"a", "b", "Z", "the", "'s", "'re", "'", "'ll", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000",
		"1", "42", "٣", "!", "?!", ".", "é", "ü", "日本", "😀", "▁", "Ġ", "<|endoftext|>", "<s>", "\u200b",
	}
	if !validOnly {
		pieces = append(pieces, "\xff", "\xc3", "\xe2\x82")
	}
	var b strings.Builder
	n := rng.Intn(12)
	for i := 0; i < n; i++ {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

func TestGPT2RoundTripRandom(t *testing.T) {
	seed := int64(20261122)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	tok := testGPT2(t)
	for i := 0; i < 3000; i++ {
		text := randomText(rng, false)
		if got := strings.Join(splitGPT2(text), ""); got != text {
			t.Fatalf("pieces of %q join to %q", text, got)
		}
		ids, err := tok.Encode(text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", text, err)
		}
		back, err := tok.Decode(ids)
		if err != nil || back != text {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", text, back, err)
		}
	}
}

// naiveMerge is the textbook BPE loop: merge the adjacent pair of lowest rank,
// leftmost among equals, until none has a merge.
func naiveMerge(ids []int, merges map[[2]int]merge) []int {
	ids = append([]int{}, ids...)
	for {
		best, at := -1, -1
		for i := 0; i+1 < len(ids); i++ {
			if m, ok := merges[[2]int{ids[i], ids[i+1]}]; ok && (best < 0 || m.rank < best) {
				best, at = m.rank, i
			}
		}
		if at < 0 {
			return ids
		}
		ids[at] = merges[[2]int{ids[at], ids[at+1]}].id
		ids = append(ids[:at+1], ids[at+2:]...)
	}
}

func TestMergeMatchesNaive(t *testing.T) {
	seed := int64(7)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for trial := 0; trial < 200; trial++ {
		// A random merge table over an alphabet of 4 symbols, each merge
		// making a fresh id, applied to random words.
		tok := &BPE{merges: make(map[[2]int]merge)}
		nextID := 4
		for rank := 0; rank < 12; rank++ {
			pair := [2]int{rng.Intn(nextID), rng.Intn(nextID)}
			if _, ok := tok.merges[pair]; ok {
				continue
			}
			tok.merges[pair] = merge{rank: rank, id: nextID}
			nextID++
		}
		for w := 0; w < 20; w++ {
			word := make([]int, rng.Intn(16))
			for i := range word {
				word[i] = rng.Intn(4)
			}
			want := naiveMerge(word, tok.merges)
			got := tok.mergeSymbols(append([]int{}, word...))
			if len(want) == 0 {
				want = []int{}
			}
			if !reflect.DeepEqual(append([]int{}, got...), want) {
				t.Fatalf("merges %v, word %v: got %v, want %v", tok.merges, word, got, want)
			}
		}
	}
}

// gpt2TokenizerJSON is the tokenizer.json equivalent of testGPT2, with merges
// spelled as strings or as pairs.
func gpt2TokenizerJSON(t testing.TB, pairs bool) []byte {
	t.Helper()
	var merges any = testMerges
	if pairs {
		list := make([][2]string, len(testMerges))
		for i, m := range testMerges {
			a, b, _ := strings.Cut(m, " ")
			list[i] = [2]string{a, b}
		}
		merges = list
	}
	vocab := testVocab()
	doc := map[string]any{
		"version":    "1.0",
		"truncation": nil,
		"padding":    nil,
		"added_tokens": []map[string]any{{
			"id": vocab[endOfText], "content": endOfText, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": true, "special": true,
		}},
		"normalizer":     nil,
		"pre_tokenizer":  map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false,
			"vocab": vocab, "merges": merges,
		},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestTokenizerJSONMatchesGPT2(t *testing.T) {
	seed := int64(99)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	reference := testGPT2(t)
	for _, pairs := range []bool{false, true} {
		tok, err := LoadTokenizerJSON(gpt2TokenizerJSON(t, pairs))
		if err != nil {
			t.Fatal(err)
		}
		if tok.VocabSize() != reference.VocabSize() {
			t.Errorf("VocabSize %d, want %d", tok.VocabSize(), reference.VocabSize())
		}
		for i := 0; i < 500; i++ {
			text := randomText(rng, false)
			want, err1 := reference.Encode(text)
			got, err2 := tok.Encode(text)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Encode(%q): tokenizer.json %v (%v), vocab+merges %v (%v)", text, got, err2, want, err1)
			}
		}
	}
}

func TestSplitLlama3(t *testing.T) {
	cases := map[string][]string{
		"":                 nil,
		"Hello world":      {"Hello", " world"},
		"I'M here, 'S 'Re": {"I", "'M", " here", ",", " '", "S", " '", "Re"},
		"'sup":             {"'s", "up"},
		"'hello":           {"'hello"},
		"(hi) [there]":     {"(hi", ")", " [", "there", "]"},
		"!hello !!x":       {"!hello", " !!", "x"},
		"\thello":          {"\thello"},
		"\nhello":          {"\n", "hello"},
		"1234567 12":       {"123", "456", "7", " ", "12"},
		"٣٤٥٦":             {"٣٤٥", "٦"},
		"x\n\n  y":         {"x", "\n\n", " ", " y"},
		"  \n  hello":      {"  \n", " ", " hello"},
		"a  \n":            {"a", "  \n"},
		"end.\r\n\r\nnext": {"end", ".\r\n\r\n", "next"},
		"\t!":              {"\t", "!"},
		"tail   ":          {"tail", "   "},
		"a\u00a0b c":       {"a", "\u00a0b", " c"},
		"日本語 text😀😀\xff":   {"日本語", " text", "😀😀\xff"},
	}
	for in, want := range cases {
		if got := splitLlama3(in, 3); !reflect.DeepEqual(got, want) {
			t.Errorf("splitLlama3(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := splitLlama3("12345", 1), []string{"1", "2", "3", "4", "5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("single digits: %q", got)
	}
}

func TestLlama3Style(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(gpt2TokenizerJSON(t, false), &doc); err != nil {
		t.Fatal(err)
	}
	var pre any
	if err := json.Unmarshal([]byte(splitSequence(llama3Pattern, "Isolated", false, false)), &pre); err != nil {
		t.Fatal(err)
	}
	doc["pre_tokenizer"] = pre
	doc["model"].(map[string]any)["ignore_merges"] = true
	data, _ := json.Marshal(doc)
	tok, err := LoadTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	vocab := testVocab()
	cases := []struct {
		text   string
		tokens []string
	}{
		// ignore_merges: a word in the vocabulary is taken whole, even
		// "hello", which the merges never reach (compare TestGPT2KnownEncodings).
		{"hello world", []string{"hello", "Ġworld"}},
		{"ello", []string{"ell", "o"}},
		// Numbers split into runs of three digits before merging.
		{"1212", []string{"12", "1", "2"}},
		{"x\n\n  the", []string{"x", "Ċ", "Ċ", "Ġ", "Ġthe"}},
	}
	for _, c := range cases {
		got, err := tok.Encode(c.text)
		if err != nil || !reflect.DeepEqual(got, ids(t, vocab, c.tokens...)) {
			t.Errorf("Encode(%q) = %v, %v; want %q", c.text, got, err, c.tokens)
		}
	}
	seed := int64(11)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < 2000; i++ {
		text := randomText(rng, false)
		if joined := strings.Join(splitLlama3(text, 3), ""); joined != text {
			t.Fatalf("pieces of %q join to %q", text, joined)
		}
		ids, err := tok.Encode(text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", text, err)
		}
		if back, err := tok.Decode(ids); err != nil || back != text {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", text, back, err)
		}
	}
}

func TestByteLevelPrefixSpace(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(gpt2TokenizerJSON(t, false), &doc); err != nil {
		t.Fatal(err)
	}
	doc["pre_tokenizer"] = map[string]any{"type": "ByteLevel", "add_prefix_space": true}
	data, _ := json.Marshal(doc)
	tok, err := LoadTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	vocab := testVocab()
	// "the" gains a leading space and so becomes "Ġthe"; " the" is unchanged.
	for _, text := range []string{"the", " the"} {
		got, err := tok.Encode(text)
		if err != nil || !reflect.DeepEqual(got, ids(t, vocab, "Ġthe")) {
			t.Errorf("Encode(%q) = %v, %v", text, got, err)
		}
	}
}

// llamaTokenizerJSON is a small sentencepiece-style BPE in the layout of
// Llama 2's tokenizer.json: a normalizer that prepends "▁" and turns spaces
// into "▁", no pre-tokenizer, byte fallback, and a decoder chain that undoes
// it all.
func llamaTokenizerJSON(t testing.TB, byteFallback bool) []byte {
	t.Helper()
	vocab := map[string]int{"<unk>": 0, "<s>": 1, "</s>": 2}
	if byteFallback {
		for b := 0; b < 256; b++ {
			vocab[byteToken(byte(b))] = len(vocab)
		}
	}
	merges := []string{"▁ h", "e l", "▁h el", "l o", "▁ w", "o r", "▁w or", "▁ ▁"}
	for _, s := range []string{"▁", "a", "d", "e", "h", "i", "l", "o", "r", "w"} {
		vocab[s] = len(vocab)
	}
	for _, m := range merges {
		vocab[strings.ReplaceAll(m, " ", "")] = len(vocab)
	}
	added := []map[string]any{}
	for _, s := range []string{"<unk>", "<s>", "</s>"} {
		added = append(added, map[string]any{"id": vocab[s], "content": s, "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	doc := map[string]any{
		"added_tokens": added,
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		}},
		"pre_tokenizer":  nil,
		"post_processor": map[string]any{"type": "TemplateProcessing"},
		"decoder": map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "},
			map[string]any{"type": "ByteFallback"},
			map[string]any{"type": "Fuse"},
			map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0},
		}},
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": "<unk>", "continuing_subword_prefix": nil,
			"end_of_word_suffix": nil, "fuse_unk": true, "byte_fallback": byteFallback,
			"vocab": vocab, "merges": merges,
		},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func vocabOf(t *testing.T, data []byte) map[string]int {
	t.Helper()
	var doc struct {
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Model.Vocab
}

func TestLlamaStyle(t *testing.T) {
	data := llamaTokenizerJSON(t, true)
	tok, err := LoadTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	vocab := vocabOf(t, data)
	cases := []struct {
		text    string
		tokens  []string
		decoded string
	}{
		// ▁ h e l l o: (▁,h) rank 0, (e,l) rank 1, (▁h,el) rank 2, (l,o) rank 3.
		{"hello", []string{"▁hel", "lo"}, "hello"},
		{"hello world", []string{"▁hel", "lo", "▁wor", "l", "d"}, "hello world"},
		{" a", []string{"▁▁", "a"}, " a"},
		// é is not in the vocabulary: its UTF-8 bytes C3 A9 fall back.
		{"hé", []string{"▁h", "<0xC3>", "<0xA9>"}, "hé"},
		// The special token is cut out first; the rest is normalized on its
		// own and so gains a "▁", which decodes to a space.
		{"<s>hi", []string{"<s>", "▁h", "i"}, "<s> hi"},
		{"", nil, ""},
	}
	for _, c := range cases {
		got, err := tok.Encode(c.text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", c.text, err)
		}
		want := ids(t, vocab, c.tokens...)
		if len(c.tokens) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Encode(%q) = %v, want %v %q", c.text, got, want, c.tokens)
		}
		if s, err := tok.Decode(got); err != nil || s != c.decoded {
			t.Errorf("Decode(Encode(%q)) = %q, %v; want %q", c.text, s, err, c.decoded)
		}
	}
	if id, ok := tok.(*BPE).TokenID("<s>"); !ok || id != 1 {
		t.Errorf("TokenID(<s>) = %d, %v", id, ok)
	}

	seed := int64(3)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for i := 0; i < 2000; i++ {
		text := randomText(rng, true)
		if strings.Contains(text, "▁") || strings.Contains(text, "<s>") {
			continue
		}
		ids, err := tok.Encode(text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", text, err)
		}
		if back, err := tok.Decode(ids); err != nil || back != text {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", text, back, err)
		}
	}
}

func TestUnknownToken(t *testing.T) {
	data := llamaTokenizerJSON(t, false)
	tok, err := LoadTokenizerJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	vocab := vocabOf(t, data)
	// z, x and é are unknown; fuse_unk makes each run one <unk>.
	got, err := tok.Encode("hzxa é")
	want := ids(t, vocab, "▁h", "<unk>", "a", "▁", "<unk>")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Encode = %v, %v; want %v", got, err, want)
	}

	// Fusing joins runs of unknown characters only, not a known character
	// that happens to be the unknown token.
	fused, err := LoadTokenizerJSON([]byte(`{"model":{"unk_token":"?","fuse_unk":true,"vocab":{"?":0,"a":1},"merges":[]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string][]int{"?xy": {0, 0}, "xy?": {0, 0}, "x?ya": {0, 0, 0, 1}} {
		if got, err := fused.Encode(text); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("fused Encode(%q) = %v, %v; want %v", text, got, err, want)
		}
	}

	// Without an unknown token, an unknown character is an error.
	vocabJSON, _ := json.Marshal(map[string]int{"a": 0, "b": 1})
	gpt2, err := LoadGPT2(vocabJSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gpt2.Encode("abc"); err == nil || !strings.Contains(err.Error(), "not in the vocabulary") {
		t.Errorf("Encode with a missing character: %v", err)
	}
}

func TestMetaspace(t *testing.T) {
	vocab := map[string]int{"<unk>": 0, "▁": 1, "a": 2, "b": 3, "▁a": 4, "▁b": 5}
	spec := func(pre, dec string) []byte {
		v, _ := json.Marshal(vocab)
		return []byte(fmt.Sprintf(`{"added_tokens":[{"id":0,"content":"<unk>","normalized":false,"special":true}],
			"pre_tokenizer":%s,"decoder":%s,
			"model":{"type":"BPE","unk_token":"<unk>","vocab":%s,"merges":["▁ a","▁ b"]}}`, pre, dec, v))
	}
	cases := []struct {
		pre, dec, text string
		want           []int
		decoded        string
	}{
		{`{"type":"Metaspace","replacement":"▁","add_prefix_space":true}`, `{"type":"Metaspace","replacement":"▁","add_prefix_space":true}`,
			"a b", []int{4, 5}, "a b"},
		{`{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, `{"type":"Metaspace","prepend_scheme":"always"}`,
			"ab  a", []int{4, 3, 1, 4}, "ab  a"},
		{`{"type":"Metaspace","prepend_scheme":"never","split":false}`, `{"type":"Metaspace","prepend_scheme":"never"}`,
			"a b", []int{2, 5}, "a b"},
		// "first" prepends only to the piece at the start of the text.
		{`{"type":"Metaspace","prepend_scheme":"first"}`, `{"type":"Metaspace","prepend_scheme":"first"}`,
			"a<unk>a", []int{4, 0, 2}, "a<unk>a"},
		{`{"type":"Metaspace","prepend_scheme":"always"}`, `{"type":"Metaspace","prepend_scheme":"always"}`,
			"a<unk>a", []int{4, 0, 4}, "a<unk> a"},
		// No decoder: tokens are joined with spaces.
		{`null`, `null`, "ab", []int{2, 3}, "a b"},
	}
	for _, c := range cases {
		tok, err := LoadTokenizerJSON(spec(c.pre, c.dec))
		if err != nil {
			t.Fatalf("%s: %v", c.pre, err)
		}
		got, err := tok.Encode(c.text)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Encode(%q) = %v, %v; want %v", c.pre, c.text, got, err, c.want)
		}
		if s, err := tok.Decode(got); err != nil || s != c.decoded {
			t.Errorf("%s: Decode = %q, %v; want %q", c.pre, s, err, c.decoded)
		}
	}
}

func TestAddedTokens(t *testing.T) {
	vocab := testVocab()
	v, _ := json.Marshal(vocab)
	n := len(vocab)
	doc := fmt.Sprintf(`{"added_tokens":[
		{"id":%d,"content":"<|endoftext|>","normalized":false},
		{"id":%d,"content":"<mask>","lstrip":true,"rstrip":false,"normalized":false},
		{"id":%d,"content":"<sep>","rstrip":true,"normalized":true},
		{"id":%d,"content":"<sep>x","normalized":false}],
		"normalizer":{"type":"Replace","pattern":{"String":"#"},"content":"<sep>"},
		"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false},"decoder":{"type":"ByteLevel"},
		"model":{"vocab":%s,"merges":[]}}`, vocab[endOfText], n, n+1, n+2, v)
	tok, err := LoadTokenizerJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != n+3 {
		t.Errorf("VocabSize = %d, want %d", tok.VocabSize(), n+3)
	}
	cases := []struct {
		text string
		want []int
	}{
		// lstrip takes the spaces before <mask>.
		{"a  <mask> b", []int{'a', n, vocab["Ġ"], 'b'}},
		// "<sep>" is normalized: it is found in the raw text and also where
		// the normalizer writes it; rstrip takes the space after it.
		{"a<sep> b", []int{'a', n + 1, 'b'}},
		{"a#b", []int{'a', n + 1, 'b'}},
		// The longest match wins, and the raw "<sep>x" is matched before
		// normalization.
		{"<sep>x", []int{n + 2}},
	}
	for _, c := range cases {
		got, err := tok.Encode(c.text)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Encode(%q) = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	if s, err := tok.Decode([]int{'a', n, n + 2}); err != nil || s != "a<mask><sep>x" {
		t.Errorf("Decode = %q, %v", s, err)
	}
}

func TestIgnoreMerges(t *testing.T) {
	vocab := map[string]int{"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "bc": 5}
	v, _ := json.Marshal(vocab)
	for _, ignore := range []bool{false, true} {
		doc := fmt.Sprintf(`{"model":{"type":"BPE","ignore_merges":%v,"vocab":%s,"merges":["b c","a b"]},"decoder":{"type":"Fuse"}}`, ignore, v)
		tok, err := LoadTokenizerJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		// With merges, (b,c) goes first and "abc" is out of reach; with
		// ignore_merges the whole word is a token.
		want := []int{0, 5}
		if ignore {
			want = []int{4}
		}
		if got, err := tok.Encode("abc"); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ignore_merges=%v: Encode = %v, %v; want %v", ignore, got, err, want)
		}
	}
}

// splitSequence is a Split-then-ByteLevel pre-tokenizer as Llama 3 spells it.
func splitSequence(pattern, behavior string, invert, prefixSpace bool) string {
	p, _ := json.Marshal(pattern)
	return fmt.Sprintf(`{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":%s},"behavior":%q,"invert":%v},`+
		`{"type":"ByteLevel","add_prefix_space":%v,"trim_offsets":true,"use_regex":false}]}`, p, behavior, invert, prefixSpace)
}

func TestLoadErrors(t *testing.T) {
	vocab := `{"a":0,"b":1,"ab":2}`
	model := func(extra string) string {
		return `{"model":{"type":"BPE","vocab":` + vocab + `,"merges":["a b"]` + extra + `}}`
	}
	with := func(field, value string) string {
		return `{"` + field + `":` + value + `,"model":{"type":"BPE","vocab":` + vocab + `,"merges":[]}}`
	}
	cases := []struct {
		name, doc, want string
	}{
		{"not JSON", `{`, "tokenizer.json"},
		{"no model", `{}`, "no model vocabulary"},
		{"model type", `{"model":{"type":"WordPiece","vocab":{"a":0}}}`, `"WordPiece" is not supported`},
		{"dropout", model(`,"dropout":0.1`), "dropout"},
		{"prefix", model(`,"continuing_subword_prefix":"##"`), "continuing_subword_prefix"},
		{"suffix", model(`,"end_of_word_suffix":"</w>"`), "end_of_word_suffix"},
		{"empty vocab", `{"model":{"vocab":{},"merges":[]}}`, "empty vocabulary"},
		{"vocab not object", `{"model":{"vocab":[1],"merges":[]}}`, "not a JSON object"},
		{"negative id", `{"model":{"vocab":{"a":-1}}}`, "not an integer"},
		{"fractional id", `{"model":{"vocab":{"a":1.5}}}`, "not an integer"},
		{"huge id", `{"model":{"vocab":{"a":16777216}}}`, "not an integer"},
		{"string id", `{"model":{"vocab":{"a":"0"}}}`, "not a number"},
		{"duplicate token", `{"model":{"vocab":{"a":0,"a":1}}}`, "appears twice"},
		{"shared id", `{"model":{"vocab":{"a":0,"b":0}}}`, `belongs to both "a" and "b"`},
		{"merge missing token", `{"model":{"vocab":{"a":0,"b":1},"merges":["a b"]}}`, "not in the vocabulary"},
		{"merge three parts", model(`,"merges":["a b c"]`), "not two tokens"},
		{"merge one part", model(`,"merges":["ab"]`), "not two tokens"},
		{"merge bad pair", model(`,"merges":[["a"]]`), "neither"},
		{"merge number", model(`,"merges":[1]`), "neither"},
		{"merges not list", model(`,"merges":{}`), "merges"},
		{"unk missing", model(`,"unk_token":"<unk>"`), "unknown token"},
		{"normalizer", with("normalizer", `{"type":"NFC"}`), `normalizer "NFC" is not supported`},
		{"normalizer in sequence", with("normalizer", `{"type":"Sequence","normalizers":[{"type":"Lowercase"}]}`), "Lowercase"},
		{"normalizer regex", with("normalizer", `{"type":"Replace","pattern":{"Regex":" +"},"content":" "}`), "regular expression"},
		{"normalizer empty pattern", with("normalizer", `{"type":"Replace","pattern":{"String":""},"content":" "}`), "non-empty"},
		{"normalizer not object", with("normalizer", `7`), "normalizer"},
		{"pre-tokenizer", with("pre_tokenizer", `{"type":"Whitespace"}`), `pre_tokenizer "Whitespace"`},
		{"pre-tokenizer empty sequence", with("pre_tokenizer", `{"type":"Sequence","pretokenizers":[]}`), "Sequence is supported only"},
		{"pre-tokenizer sequence order", with("pre_tokenizer", `{"type":"Sequence","pretokenizers":[{"type":"ByteLevel","use_regex":false},{"type":"Split","pattern":{"Regex":"\\s+"},"behavior":"Isolated"}]}`), "Sequence is supported only"},
		{"pre-tokenizer split behavior", with("pre_tokenizer", splitSequence(gpt2Pattern, "Removed", false, false)), "Sequence is supported only"},
		{"pre-tokenizer split inverted", with("pre_tokenizer", splitSequence(gpt2Pattern, "Isolated", true, false)), "Sequence is supported only"},
		{"pre-tokenizer split prefix", with("pre_tokenizer", splitSequence(gpt2Pattern, "Isolated", false, true)), "Sequence is supported only"},
		{"pre-tokenizer split pattern", with("pre_tokenizer", splitSequence(`\\s+`, "Isolated", false, false)), "pattern"},
		{"pre-tokenizer split not object", with("pre_tokenizer", `{"type":"Sequence","pretokenizers":[1,2]}`), "Sequence is supported only"},
		{"metaspace scheme", with("pre_tokenizer", `{"type":"Metaspace","prepend_scheme":"sometimes"}`), "prepend_scheme"},
		{"metaspace replacement", with("pre_tokenizer", `{"type":"Metaspace","replacement":"ab"}`), "not one character"},
		{"decoder", with("decoder", `{"type":"WordPiece"}`), `decoder "WordPiece"`},
		{"decoder in sequence", with("decoder", `{"type":"Sequence","decoders":[{"type":"CTC"}]}`), "CTC"},
		{"decoder regex", with("decoder", `{"type":"Replace","pattern":{"Regex":"x"},"content":""}`), "regular expression"},
		{"strip content", with("decoder", `{"type":"Strip","content":"ab","start":1,"stop":0}`), "not one character"},
		{"strip negative", with("decoder", `{"type":"Strip","content":" ","start":-1,"stop":0}`), "negative"},
		{"decoder metaspace", with("decoder", `{"type":"Metaspace","replacement":""}`), "not one character"},
		{"added no id", with("added_tokens", `[{"content":"x"}]`), "missing id"},
		{"added empty", with("added_tokens", `[{"id":5,"content":""}]`), "empty content"},
		{"added range", with("added_tokens", `[{"id":-3,"content":"x"}]`), "out of range"},
		{"added single word", with("added_tokens", `[{"id":5,"content":"x","single_word":true}]`), "single_word"},
		{"added id taken", with("added_tokens", `[{"id":0,"content":"x"}]`), `already belongs to "a"`},
		{"added other id", with("added_tokens", `[{"id":7,"content":"ab"}]`), "already has id 2"},
		{"added twice", with("added_tokens", `[{"id":7,"content":"x"},{"id":8,"content":"x"}]`), "already has id 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, err := LoadTokenizerJSON([]byte(c.doc))
			if err == nil {
				t.Fatalf("accepted: %+v", tok)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "tokenizer: ") {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestLoadGPT2Errors(t *testing.T) {
	good := []byte(`{"a":0,"b":1,"ab":2}`)
	cases := []struct {
		name          string
		vocab, merges string
		want          string
	}{
		{"vocab not JSON", `{"a":`, "", "vocab.json"},
		{"vocab trailing", `{"a":0}}`, "", "content after"},
		{"vocab array", `[]`, "", "not a JSON object"},
		{"merge line", string(good), "#version: 0.2\na b\nab\n", "line 3"},
		{"merge double space", string(good), "a  b", "line 1"},
		{"merges not UTF-8", string(good), "a \xff", "UTF-8"},
		{"merge unknown", string(good), "a a", "not in the vocabulary"},
	}
	for _, c := range cases {
		_, err := LoadGPT2([]byte(c.vocab), []byte(c.merges))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// CRLF line ends and a missing version line are fine.
	tok, err := LoadGPT2(good, []byte("a b\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tok.Encode("ab"); err != nil || !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("Encode = %v, %v", got, err)
	}
}

func TestLoadDir(t *testing.T) {
	write := func(dir, name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vocab, _ := json.Marshal(testVocab())
	merges := []byte(strings.Join(testMerges, "\n"))

	both := t.TempDir()
	write(both, "tokenizer.json", llamaTokenizerJSON(t, true))
	write(both, "vocab.json", vocab)
	write(both, "merges.txt", merges)
	tok, err := LoadDir(both)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tok.(*BPE).TokenID("<s>"); !ok {
		t.Error("tokenizer.json was not preferred")
	}

	gpt2 := t.TempDir()
	write(gpt2, "vocab.json", vocab)
	write(gpt2, "merges.txt", merges)
	tok, err = LoadDir(gpt2)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := tok.Encode(" world"); !reflect.DeepEqual(got, []int{testVocab()["Ġworld"]}) {
		t.Errorf("vocab.json+merges.txt: Encode = %v", got)
	}

	empty := t.TempDir()
	if _, err := LoadDir(empty); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("empty dir: %v", err)
	}
	noMerges := t.TempDir()
	write(noMerges, "vocab.json", vocab)
	if _, err := LoadDir(noMerges); err == nil || !strings.Contains(err.Error(), "merges.txt") {
		t.Errorf("no merges: %v", err)
	}
	bad := t.TempDir()
	write(bad, "tokenizer.json", []byte("{"))
	if _, err := LoadDir(bad); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("bad tokenizer.json: %v", err)
	}
	badGPT2 := t.TempDir()
	write(badGPT2, "vocab.json", []byte("[]"))
	write(badGPT2, "merges.txt", nil)
	if _, err := LoadDir(badGPT2); err == nil || !strings.Contains(err.Error(), badGPT2) {
		t.Errorf("bad vocab.json: %v", err)
	}
}

func TestDecodeInvalidUTF8Bytes(t *testing.T) {
	// A prefix of the ids of a multi-byte character decodes to its bytes so
	// far; joining the pieces restores the character.
	tok := testGPT2(t)
	ids, err := tok.Encode("€")
	if err != nil || len(ids) != 3 {
		t.Fatalf("Encode(€) = %v, %v", ids, err)
	}
	first, _ := tok.Decode(ids[:1])
	rest, _ := tok.Decode(ids[1:])
	if utf8.ValidString(first) || first+rest != "€" {
		t.Errorf("pieces %q + %q", first, rest)
	}
}
