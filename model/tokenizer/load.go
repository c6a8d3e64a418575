package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// modelSpec is everything needed to build a BPE tokenizer.
type modelSpec struct {
	vocab        map[string]int
	merges       [][2]string
	unkToken     *string
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	added        []addedSpec
	normalizers  []normalizer
	pre          preTokenizer
	decoders     []decoder
}

// addedSpec is one entry of added_tokens.
type addedSpec struct {
	ID         *int   `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
}

// build validates spec and assembles the tokenizer.
func build(spec *modelSpec) (*BPE, error) {
	if len(spec.vocab) == 0 {
		return nil, errNoVocab
	}
	t := &BPE{
		vocab:        spec.vocab,
		tokens:       make(map[int]string, len(spec.vocab)+len(spec.added)),
		merges:       make(map[[2]int]merge, len(spec.merges)),
		unk:          -1,
		fuseUnk:      spec.fuseUnk,
		byteFallback: spec.byteFallback,
		ignoreMerges: spec.ignoreMerges,
		normalizers:  spec.normalizers,
		pre:          spec.pre,
		decoders:     spec.decoders,
	}
	for token, id := range spec.vocab {
		if id < 0 || id >= maxID {
			return nil, fmt.Errorf("tokenizer: vocabulary: id %d of %q is out of range [0, %d)", id, token, maxID)
		}
		if other, dup := t.tokens[id]; dup {
			a, b := min(token, other), max(token, other)
			return nil, fmt.Errorf("tokenizer: vocabulary: id %d belongs to both %q and %q", id, a, b)
		}
		t.tokens[id] = token
		t.vocabSize = max(t.vocabSize, id+1)
	}
	for rank, m := range spec.merges {
		left, ok1 := t.vocab[m[0]]
		right, ok2 := t.vocab[m[1]]
		merged, ok3 := t.vocab[m[0]+m[1]]
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("tokenizer: merge %d (%q %q): a part or the merged token is not in the vocabulary", rank, m[0], m[1])
		}
		t.merges[[2]int{left, right}] = merge{rank: rank, id: merged}
	}
	for i, a := range spec.added {
		if a.ID == nil {
			return nil, fmt.Errorf("tokenizer: added token %d (%q): missing id", i, a.Content)
		}
		id := *a.ID
		switch {
		case a.Content == "":
			return nil, fmt.Errorf("tokenizer: added token %d: empty content", i)
		case id < 0 || id >= maxID:
			return nil, fmt.Errorf("tokenizer: added token %q: id %d is out of range [0, %d)", a.Content, id, maxID)
		case a.SingleWord:
			return nil, fmt.Errorf("tokenizer: added token %q: single_word matching is not supported", a.Content)
		}
		if other, ok := t.tokens[id]; ok && other != a.Content {
			return nil, fmt.Errorf("tokenizer: added token %q: id %d already belongs to %q", a.Content, id, other)
		}
		if existing, ok := t.TokenID(a.Content); ok && existing != id {
			return nil, fmt.Errorf("tokenizer: added token %q: id %d, but the token already has id %d", a.Content, id, existing)
		}
		t.tokens[id] = a.Content
		t.vocabSize = max(t.vocabSize, id+1)
		token := addedToken{content: a.Content, id: id, lstrip: a.LStrip, rstrip: a.RStrip}
		if a.Normalized {
			t.normalizedAdded.add(token)
		} else {
			t.rawAdded.add(token)
		}
	}
	if spec.unkToken != nil {
		id, ok := t.TokenID(*spec.unkToken)
		if !ok {
			return nil, fmt.Errorf("tokenizer: unknown token %q is not in the vocabulary", *spec.unkToken)
		}
		t.unk = id
	}
	return t, nil
}

// LoadGPT2 builds a GPT-2 style byte-level BPE tokenizer from the contents of
// vocab.json (an object from token to id) and merges.txt (an optional
// "#version" line, then one merge "left right" per line, highest priority
// first). "<|endoftext|>", if in the vocabulary, is matched as a special
// token in the text.
func LoadGPT2(vocabJSON, mergesTXT []byte) (Tokenizer, error) {
	vocab, err := decodeVocab(vocabJSON)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: vocab.json: %w", err)
	}
	merges, err := parseMergesTXT(mergesTXT)
	if err != nil {
		return nil, err
	}
	spec := &modelSpec{
		vocab:    vocab,
		merges:   merges,
		pre:      preTokenizer{kind: preByteLevel, splitWords: splitGPT2, pattern: gpt2Pattern},
		decoders: []decoder{{kind: decodeByteLevel}},
	}
	if id, ok := vocab[endOfText]; ok {
		spec.added = []addedSpec{{ID: &id, Content: endOfText}}
	}
	return build(spec)
}

// endOfText is GPT-2's end-of-text token.
const endOfText = "<|endoftext|>"

func parseMergesTXT(data []byte) ([][2]string, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("tokenizer: merges.txt is not valid UTF-8")
	}
	var merges [][2]string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || (i == 0 && strings.HasPrefix(line, "#version")) {
			continue
		}
		m, err := splitMerge(line)
		if err != nil {
			return nil, fmt.Errorf("tokenizer: merges.txt line %d: %w", i+1, err)
		}
		merges = append(merges, m)
	}
	return merges, nil
}

// splitMerge splits "left right" at its single space.
func splitMerge(s string) ([2]string, error) {
	parts := strings.Split(s, " ")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return [2]string{}, fmt.Errorf("merge %q is not two tokens separated by one space", s)
	}
	return [2]string{parts[0], parts[1]}, nil
}

// decodeVocab decodes a JSON object from token to id, rejecting repeated
// tokens and ids that are not integers.
func decodeVocab(data []byte) (map[string]int, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	vocab := make(map[string]int)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		token, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("unexpected %v", tok)
		}
		if _, dup := vocab[token]; dup {
			return nil, fmt.Errorf("token %q appears twice", token)
		}
		tok, err = dec.Token()
		if err != nil {
			return nil, err
		}
		number, ok := tok.(json.Number)
		if !ok {
			return nil, fmt.Errorf("id of %q is not a number", token)
		}
		id, err := number.Int64()
		if err != nil || id < 0 || id >= maxID {
			return nil, fmt.Errorf("id %s of %q is not an integer in [0, %d)", number, token, maxID)
		}
		vocab[token] = int(id)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("content after the JSON object")
	}
	return vocab, nil
}

// tokenizerJSON is the part of a tokenizer.json that encoding and decoding
// depend on. Truncation, padding and the post-processor (which adds
// beginning- and end-of-sequence tokens) are not applied.
type tokenizerJSON struct {
	AddedTokens  []addedSpec     `json:"added_tokens"`
	Normalizer   json.RawMessage `json:"normalizer"`
	PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	Decoder      json.RawMessage `json:"decoder"`
	Model        struct {
		Type                    string          `json:"type"`
		Dropout                 *float64        `json:"dropout"`
		UnkToken                *string         `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
		FuseUnk                 bool            `json:"fuse_unk"`
		ByteFallback            bool            `json:"byte_fallback"`
		IgnoreMerges            bool            `json:"ignore_merges"`
		Vocab                   json.RawMessage `json:"vocab"`
		Merges                  json.RawMessage `json:"merges"`
	} `json:"model"`
}

// LoadTokenizerJSON builds a tokenizer from a Hugging Face tokenizer.json
// whose model is BPE. Supported pipeline parts: normalizers Prepend,
// Replace (literal pattern) and Sequence; pre-tokenizers ByteLevel and
// Metaspace; decoders ByteLevel, ByteFallback, Fuse, Replace, Strip,
// Metaspace and Sequence. Anything else is an error rather than a silently
// different tokenization.
func LoadTokenizerJSON(data []byte) (Tokenizer, error) {
	var doc tokenizerJSON
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: %w", err)
	}
	m := &doc.Model
	if m.Type != "" && m.Type != "BPE" {
		return nil, fmt.Errorf("tokenizer: model type %q is not supported, only BPE", m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return nil, fmt.Errorf("tokenizer: BPE dropout %v is not supported", *m.Dropout)
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" {
		return nil, fmt.Errorf("tokenizer: continuing_subword_prefix %q is not supported", *m.ContinuingSubwordPrefix)
	}
	if m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return nil, fmt.Errorf("tokenizer: end_of_word_suffix %q is not supported", *m.EndOfWordSuffix)
	}
	if len(m.Vocab) == 0 {
		return nil, errors.New("tokenizer: tokenizer.json has no model vocabulary")
	}
	spec := &modelSpec{
		unkToken:     m.UnkToken,
		fuseUnk:      m.FuseUnk,
		byteFallback: m.ByteFallback,
		ignoreMerges: m.IgnoreMerges,
		added:        doc.AddedTokens,
	}
	var err error
	if spec.vocab, err = decodeVocab(m.Vocab); err != nil {
		return nil, fmt.Errorf("tokenizer: model vocabulary: %w", err)
	}
	if spec.merges, err = decodeMerges(m.Merges); err != nil {
		return nil, err
	}
	if spec.normalizers, err = decodeNormalizer(doc.Normalizer); err != nil {
		return nil, err
	}
	if spec.pre, err = decodePreTokenizer(doc.PreTokenizer); err != nil {
		return nil, err
	}
	if spec.decoders, err = decodeDecoder(doc.Decoder); err != nil {
		return nil, err
	}
	return build(spec)
}

// decodeMerges accepts both spellings of merges: "left right" strings and
// two-element arrays.
func decodeMerges(raw json.RawMessage) ([][2]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("tokenizer: merges: %w", err)
	}
	merges := make([][2]string, len(items))
	for i, item := range items {
		var s string
		if err := json.Unmarshal(item, &s); err == nil && !isNull(item) {
			if merges[i], err = splitMerge(s); err != nil {
				return nil, fmt.Errorf("tokenizer: merge %d: %w", i, err)
			}
			continue
		}
		var pair []string
		if err := json.Unmarshal(item, &pair); err != nil || len(pair) != 2 || pair[0] == "" || pair[1] == "" {
			return nil, fmt.Errorf("tokenizer: merge %d: %s is neither \"left right\" nor a pair of tokens", i, item)
		}
		merges[i] = [2]string{pair[0], pair[1]}
	}
	return merges, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// component is the common shape of normalizers, pre-tokenizers and decoders.
type component struct {
	Type string `json:"type"`
	// Sequence.
	Normalizers   []json.RawMessage `json:"normalizers"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
	Decoders      []json.RawMessage `json:"decoders"`
	// Split.
	Behavior string `json:"behavior"`
	Invert   bool   `json:"invert"`
	// Prepend.
	Prepend string `json:"prepend"`
	// Replace.
	Pattern struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Content string `json:"content"`
	// Strip.
	Start int `json:"start"`
	Stop  int `json:"stop"`
	// ByteLevel.
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// Metaspace.
	Replacement   *string `json:"replacement"`
	PrependScheme *string `json:"prepend_scheme"`
	Split         *bool   `json:"split"`
}

func decodeComponent(what string, raw json.RawMessage) (*component, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", what, err)
	}
	return &c, nil
}

// replacePattern returns the literal pattern of a Replace component.
func (c *component) replacePattern(what string) (string, error) {
	if c.Pattern.Regex != nil {
		return "", fmt.Errorf("tokenizer: %s Replace with a regular expression is not supported", what)
	}
	if c.Pattern.String == nil || *c.Pattern.String == "" {
		return "", fmt.Errorf("tokenizer: %s Replace needs a non-empty String pattern", what)
	}
	return *c.Pattern.String, nil
}

func decodeNormalizer(raw json.RawMessage) ([]normalizer, error) {
	c, err := decodeComponent("normalizer", raw)
	if c == nil || err != nil {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var out []normalizer
		for _, item := range c.Normalizers {
			inner, err := decodeNormalizer(item)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
		return out, nil
	case "Prepend":
		if c.Prepend == "" {
			return nil, nil
		}
		return []normalizer{{prepend: c.Prepend}}, nil
	case "Replace":
		old, err := c.replacePattern("normalizer")
		if err != nil {
			return nil, err
		}
		return []normalizer{{old: old, new: c.Content}}, nil
	}
	return nil, fmt.Errorf("tokenizer: normalizer %q is not supported", c.Type)
}

// metaspace reads the Metaspace settings shared by the pre-tokenizer and
// the decoder: the replacement character (default "▁") and the prepend
// scheme, spelled either prepend_scheme or, in older files,
// add_prefix_space.
func (c *component) metaspace() (string, prependScheme, error) {
	replacement := "▁"
	if c.Replacement != nil {
		replacement = *c.Replacement
	}
	if utf8.RuneCountInString(replacement) != 1 || !utf8.ValidString(replacement) {
		return "", 0, fmt.Errorf("tokenizer: Metaspace replacement %q is not one character", replacement)
	}
	scheme := prependAlways
	switch {
	case c.PrependScheme != nil:
		switch *c.PrependScheme {
		case "always":
		case "first":
			scheme = prependFirst
		case "never":
			scheme = prependNever
		default:
			return "", 0, fmt.Errorf("tokenizer: Metaspace prepend_scheme %q is not always, first or never", *c.PrependScheme)
		}
	case c.AddPrefixSpace != nil && !*c.AddPrefixSpace:
		scheme = prependNever
	}
	return replacement, scheme, nil
}

func decodePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	c, err := decodeComponent("pre_tokenizer", raw)
	if c == nil || err != nil {
		return preTokenizer{}, err
	}
	switch c.Type {
	case "ByteLevel":
		p := preTokenizer{kind: preByteLevel, addPrefixSpace: true, splitWords: splitGPT2, pattern: gpt2Pattern}
		if c.AddPrefixSpace != nil {
			p.addPrefixSpace = *c.AddPrefixSpace
		}
		if c.UseRegex != nil && !*c.UseRegex {
			p.splitWords, p.pattern = nil, ""
		}
		return p, nil
	case "Metaspace":
		replacement, scheme, err := c.metaspace()
		if err != nil {
			return preTokenizer{}, err
		}
		p := preTokenizer{kind: preMetaspace, replacement: replacement, prepend: scheme, split: true}
		if c.Split != nil {
			p.split = *c.Split
		}
		return p, nil
	case "Sequence":
		return decodeSplitByteLevel(c)
	}
	return preTokenizer{}, fmt.Errorf("tokenizer: pre_tokenizer %q is not supported", c.Type)
}

// splitPatterns are the Split regular expressions this package implements by
// hand, with the splitter of each.
var splitPatterns = map[string]func(string) []string{
	gpt2Pattern:   splitGPT2,
	llama3Pattern: func(s string) []string { return splitLlama3(s, 3) },
	qwen2Pattern:  func(s string) []string { return splitLlama3(s, 1) },
}

// decodeSplitByteLevel accepts the pre-tokenizer of Llama 3 and similar
// models: a Sequence of a Split on a known pattern (Isolated, not inverted)
// and a ByteLevel that neither splits nor prefixes a space.
func decodeSplitByteLevel(c *component) (preTokenizer, error) {
	unsupported := errors.New("tokenizer: pre_tokenizer Sequence is supported only as Split on a known pattern followed by ByteLevel without regex and prefix space")
	if len(c.PreTokenizers) != 2 {
		return preTokenizer{}, unsupported
	}
	var split, byteLevel component
	if json.Unmarshal(c.PreTokenizers[0], &split) != nil || json.Unmarshal(c.PreTokenizers[1], &byteLevel) != nil {
		return preTokenizer{}, unsupported
	}
	if split.Type != "Split" || split.Behavior != "Isolated" || split.Invert || split.Pattern.Regex == nil ||
		byteLevel.Type != "ByteLevel" || byteLevel.UseRegex == nil || *byteLevel.UseRegex ||
		(byteLevel.AddPrefixSpace != nil && *byteLevel.AddPrefixSpace) {
		return preTokenizer{}, unsupported
	}
	splitWords, ok := splitPatterns[*split.Pattern.Regex]
	if !ok {
		return preTokenizer{}, fmt.Errorf("tokenizer: pre_tokenizer Split pattern %q is not supported", *split.Pattern.Regex)
	}
	return preTokenizer{kind: preByteLevel, splitWords: splitWords, pattern: *split.Pattern.Regex}, nil
}

func decodeDecoder(raw json.RawMessage) ([]decoder, error) {
	c, err := decodeComponent("decoder", raw)
	if c == nil || err != nil {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var out []decoder
		for _, item := range c.Decoders {
			inner, err := decodeDecoder(item)
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		}
		return out, nil
	case "ByteLevel":
		return []decoder{{kind: decodeByteLevel}}, nil
	case "ByteFallback":
		return []decoder{{kind: decodeByteFallback}}, nil
	case "Fuse":
		return []decoder{{kind: decodeFuse}}, nil
	case "Replace":
		old, err := c.replacePattern("decoder")
		if err != nil {
			return nil, err
		}
		return []decoder{{kind: decodeReplace, old: old, new: c.Content}}, nil
	case "Strip":
		r, size := utf8.DecodeRuneInString(c.Content)
		if size == 0 || size != len(c.Content) || r == utf8.RuneError {
			return nil, fmt.Errorf("tokenizer: decoder Strip content %q is not one character", c.Content)
		}
		if c.Start < 0 || c.Stop < 0 {
			return nil, fmt.Errorf("tokenizer: decoder Strip start %d, stop %d: negative", c.Start, c.Stop)
		}
		return []decoder{{kind: decodeStrip, content: r, start: c.Start, stop: c.Stop}}, nil
	case "Metaspace":
		replacement, scheme, err := c.metaspace()
		if err != nil {
			return nil, err
		}
		return []decoder{{kind: decodeMetaspace, replacement: replacement, prepend: scheme}}, nil
	}
	return nil, fmt.Errorf("tokenizer: decoder %q is not supported", c.Type)
}

// LoadDir loads the tokenizer of a model directory: tokenizer.json if
// present, else vocab.json with merges.txt.
func LoadDir(dir string) (Tokenizer, error) {
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err == nil {
		t, err := LoadTokenizerJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "tokenizer.json"), err)
		}
		return t, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	vocab, err := os.ReadFile(filepath.Join(dir, "vocab.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("tokenizer: %s has neither tokenizer.json nor vocab.json with merges.txt", dir)
		}
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	merges, err := os.ReadFile(filepath.Join(dir, "merges.txt"))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: vocab.json without merges.txt: %w", err)
	}
	t, err := LoadGPT2(vocab, merges)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return t, nil
}
