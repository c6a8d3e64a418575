package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Codec is a tokenizer with its model's beginning-of-sequence rule: how a
// prompt becomes the tokens the model reads, and generated tokens become
// text. Its [Codec.Digest] is part of the model id, so a proof cannot be
// shown with another vocabulary or another BOS rule.
type Codec struct {
	Tokenizer Tokenizer
	// BOS is the id put before every prompt, or −1 for none.
	BOS int
}

// NoBOS is the Codec.BOS of a codec without a beginning-of-sequence token.
const NoBOS = -1

// BOSMode chooses the beginning-of-sequence rule when loading a codec.
type BOSMode int

const (
	// BOSAuto follows the model's files: add_bos_token in
	// tokenizer_config.json if set; else a template post-processor in
	// tokenizer.json that starts with a special token; else none (the GPT-2
	// convention).
	BOSAuto BOSMode = iota
	// BOSOn always puts the model's BOS token (bos_token in
	// tokenizer_config.json, else the post-processor's leading special
	// token) first; it is an error if the files name none.
	BOSOn
	// BOSOff never adds one.
	BOSOff
)

// ParseBOSMode reads "auto", "on" or "off".
func ParseBOSMode(s string) (BOSMode, error) {
	switch s {
	case "auto":
		return BOSAuto, nil
	case "on":
		return BOSOn, nil
	case "off":
		return BOSOff, nil
	}
	return 0, fmt.Errorf("tokenizer: BOS mode %q: want auto, on or off", s)
}

// String is the inverse of ParseBOSMode.
func (m BOSMode) String() string {
	switch m {
	case BOSAuto:
		return "auto"
	case BOSOn:
		return "on"
	case BOSOff:
		return "off"
	}
	return fmt.Sprintf("BOSMode(%d)", int(m))
}

// NewByteCodec returns the codec of the built-in model: the byte tokenizer,
// no beginning-of-sequence token.
func NewByteCodec() *Codec { return &Codec{Tokenizer: NewByte(), BOS: NoBOS} }

// EncodePrompt returns the model's input tokens for text: the BOS token if
// any, then the tokenizer's ids.
func (c *Codec) EncodePrompt(text string) ([]int, error) {
	ids, err := c.Tokenizer.Encode(text)
	if err != nil {
		return nil, err
	}
	if c.BOS == NoBOS {
		return ids, nil
	}
	return append([]int{c.BOS}, ids...), nil
}

// Decode returns the text of generated tokens.
func (c *Codec) Decode(ids []int) (string, error) { return c.Tokenizer.Decode(ids) }

// LoadCodec loads the tokenizer of a model directory ([LoadDir]) and its
// beginning-of-sequence rule (see [BOSMode]).
func LoadCodec(dir string, mode BOSMode) (*Codec, error) {
	tok, err := LoadDir(dir)
	if err != nil {
		return nil, err
	}
	c := &Codec{Tokenizer: tok, BOS: NoBOS}
	if mode == BOSOff {
		return c, nil
	}
	add, name, err := readTokenizerConfig(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil {
		return nil, err
	}
	template, err := readTemplateBOS(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	if name == "" {
		name = template
	}
	switch {
	case mode == BOSAuto && add != nil && !*add:
		return c, nil
	case mode == BOSAuto && add == nil && template == "":
		return c, nil
	case name == "":
		return nil, fmt.Errorf("tokenizer: %s names no beginning-of-sequence token (bos_token in tokenizer_config.json or a template post-processor in tokenizer.json)", dir)
	}
	id, ok := tokenID(tok, name)
	if !ok {
		return nil, fmt.Errorf("tokenizer: beginning-of-sequence token %q is not in the vocabulary", name)
	}
	c.BOS = id
	return c, nil
}

// tokenID returns the id of a token string.
func tokenID(t Tokenizer, token string) (int, bool) {
	if b, ok := t.(*BPE); ok {
		return b.TokenID(token)
	}
	return 0, false
}

// readTokenizerConfig returns add_bos_token (nil when absent) and bos_token
// ("" when absent) of tokenizer_config.json; a missing file has neither.
func readTokenizerConfig(path string) (add *bool, bos string, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("tokenizer: %w", err)
	}
	var doc struct {
		AddBOS *bool           `json:"add_bos_token"`
		BOS    json.RawMessage `json:"bos_token"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, "", fmt.Errorf("tokenizer: %s: %w", path, err)
	}
	if isNull(doc.BOS) {
		return doc.AddBOS, "", nil
	}
	// bos_token is a string or an added-token object with a content.
	if err := json.Unmarshal(doc.BOS, &bos); err != nil {
		var token struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(doc.BOS, &token); err != nil || token.Content == "" {
			return nil, "", fmt.Errorf("tokenizer: %s: bos_token is neither a string nor a token with a content", path)
		}
		bos = token.Content
	}
	return doc.AddBOS, bos, nil
}

// readTemplateBOS returns the special token a TemplateProcessing
// post-processor of tokenizer.json (alone or in a Sequence) puts before a
// single text, "" if there is none or no tokenizer.json. A template that
// adds tokens after the text is refused: Encode would not match the
// reference implementation.
func readTemplateBOS(path string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("tokenizer: %w", err)
	}
	type processor struct {
		Type       string            `json:"type"`
		Processors []json.RawMessage `json:"processors"`
		Single     []struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
			Sequence *json.RawMessage `json:"Sequence"`
		} `json:"single"`
	}
	var doc struct {
		PostProcessor json.RawMessage `json:"post_processor"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("tokenizer: %s: %w", path, err)
	}
	if isNull(doc.PostProcessor) {
		return "", nil
	}
	var top processor
	if err := json.Unmarshal(doc.PostProcessor, &top); err != nil {
		return "", fmt.Errorf("tokenizer: %s: post_processor: %w", path, err)
	}
	list := []processor{top}
	if top.Type == "Sequence" {
		list = list[:0]
		for _, raw := range top.Processors {
			var p processor
			if err := json.Unmarshal(raw, &p); err != nil {
				return "", fmt.Errorf("tokenizer: %s: post_processor: %w", path, err)
			}
			list = append(list, p)
		}
	}
	for _, p := range list {
		if p.Type != "TemplateProcessing" || len(p.Single) == 0 {
			continue
		}
		bos, seenText := "", false
		for i, item := range p.Single {
			switch {
			case item.Sequence != nil:
				seenText = true
			case item.SpecialToken != nil && i == 0:
				bos = item.SpecialToken.ID
			case item.SpecialToken != nil:
				return "", fmt.Errorf("tokenizer: %s: post_processor adds %q inside or after the text, which is not supported", path, item.SpecialToken.ID)
			}
		}
		if !seenText {
			return "", fmt.Errorf("tokenizer: %s: post_processor template without the text", path)
		}
		return bos, nil
	}
	return "", nil
}

// Digest is SHA-256 of the codec's canonical encoding, which holds
// everything Encode and Decode depend on, independently of how the files
// spell it (key order, JSON formatting, merges as strings or pairs):
//
//	"veriformer/tokenizer/v1", the BOS id (−1 for none), then
//	the byte tokenizer:  "byte"
//	a BPE tokenizer:     "bpe", the vocabulary size;
//	  the model vocabulary: count, then (id, token) by increasing id;
//	  the merges: count, then (left id, right id, merged id) by rank;
//	  the unknown token id (−1 for none), fuse_unk, byte_fallback,
//	  ignore_merges;
//	  the added tokens: count, then (id, content, lstrip, rstrip,
//	  normalized) by increasing id;
//	  the normalizers: count, then (prepend, old, new) each;
//	  the pre-tokenizer: kind, add_prefix_space, split pattern,
//	  replacement, prepend scheme, split;
//	  the decoders: count, then (kind, old, new, content, start, stop,
//	  replacement, prepend scheme) each.
//
// Integers are 8 bytes little-endian (booleans 0 or 1), strings are
// length-prefixed bytes. docs/statement.md repeats this.
func (c *Codec) Digest() [32]byte {
	var e canonical
	e.string("veriformer/tokenizer/v1")
	e.int(int64(c.BOS))
	c.Tokenizer.canonical(&e)
	return sha256.Sum256(e.buf.Bytes())
}

type canonical struct{ buf bytes.Buffer }

func (e *canonical) int(v int64) {
	e.buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
}

func (e *canonical) bool(b bool) {
	if b {
		e.int(1)
	} else {
		e.int(0)
	}
}

func (e *canonical) string(s string) {
	e.int(int64(len(s)))
	e.buf.WriteString(s)
}

func (t *BPE) canonical(e *canonical) {
	e.string("bpe")
	e.int(int64(t.vocabSize))
	ids := make([]int, 0, len(t.vocab))
	for _, id := range t.vocab {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	e.int(int64(len(ids)))
	for _, id := range ids {
		e.int(int64(id))
		e.string(t.tokens[id])
	}
	type rankedMerge struct{ left, right, rank, id int }
	merges := make([]rankedMerge, 0, len(t.merges))
	for pair, m := range t.merges {
		merges = append(merges, rankedMerge{pair[0], pair[1], m.rank, m.id})
	}
	sort.Slice(merges, func(i, j int) bool { return merges[i].rank < merges[j].rank })
	e.int(int64(len(merges)))
	for _, m := range merges {
		e.int(int64(m.left))
		e.int(int64(m.right))
		e.int(int64(m.id))
	}
	e.int(int64(t.unk))
	e.bool(t.fuseUnk)
	e.bool(t.byteFallback)
	e.bool(t.ignoreMerges)
	type added struct {
		addedToken
		normalized bool
	}
	var all []added
	for _, set := range []struct {
		s          *addedSet
		normalized bool
	}{{&t.rawAdded, false}, {&t.normalizedAdded, true}} {
		for _, list := range set.s.byFirst {
			for _, a := range list {
				all = append(all, added{a, set.normalized})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].id < all[j].id })
	e.int(int64(len(all)))
	for _, a := range all {
		e.int(int64(a.id))
		e.string(a.content)
		e.bool(a.lstrip)
		e.bool(a.rstrip)
		e.bool(a.normalized)
	}
	e.int(int64(len(t.normalizers)))
	for _, n := range t.normalizers {
		e.string(n.prepend)
		e.string(n.old)
		e.string(n.new)
	}
	p := &t.pre
	e.int(int64(p.kind))
	e.bool(p.addPrefixSpace)
	e.string(p.pattern)
	e.string(p.replacement)
	e.int(int64(p.prepend))
	e.bool(p.split)
	e.int(int64(len(t.decoders)))
	for _, d := range t.decoders {
		e.int(int64(d.kind))
		e.string(d.old)
		e.string(d.new)
		e.int(int64(d.content))
		e.int(int64(d.start))
		e.int(int64(d.stop))
		e.string(d.replacement)
		e.int(int64(d.prepend))
	}
}
