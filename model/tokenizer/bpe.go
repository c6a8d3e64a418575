package tokenizer

import (
	"container/heap"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxID bounds token ids, far above any real vocabulary, so that VocabSize
// stays meaningful for hostile inputs.
const maxID = 1 << 24

// BPE is a byte-pair-encoding tokenizer with the Hugging Face pipeline:
// added tokens are split out of the text, the rest is normalized,
// pre-tokenized into words, and each word is encoded by merging symbol pairs
// in rank order. Decoding maps ids to token strings and runs the decoder
// chain. Build one with [LoadGPT2], [LoadTokenizerJSON] or [LoadDir]. A BPE
// is immutable once built and safe for concurrent use.
type BPE struct {
	vocab     map[string]int // token string → id, model vocabulary
	tokens    map[int]string // id → token string, including added tokens
	vocabSize int

	merges       map[[2]int]merge
	unk          int // −1 if the model has no unknown token
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool

	// rawAdded are matched in the raw text, normalizedAdded in each
	// normalized piece.
	rawAdded, normalizedAdded addedSet
	normalizers               []normalizer
	pre                       preTokenizer
	decoders                  []decoder
}

// merge is the result of merging one pair: its rank (lower merges first) and
// the id of the merged token.
type merge struct {
	rank, id int
}

// normalizer rewrites text before pre-tokenization: it either prepends
// prepend to non-empty text or, when prepend is empty, replaces old with new.
type normalizer struct {
	prepend  string
	old, new string
}

func (n normalizer) apply(s string) string {
	if n.prepend != "" {
		if s == "" {
			return s
		}
		return n.prepend + s
	}
	return strings.ReplaceAll(s, n.old, n.new)
}

// prependScheme says when a Metaspace pre-tokenizer prefixes a piece with
// its replacement character.
type prependScheme int

const (
	prependAlways prependScheme = iota
	prependFirst                // only the piece at the start of the text
	prependNever
)

// preTokenizer splits normalized text into words.
type preTokenizer struct {
	kind preTokenizerKind
	// ByteLevel: prefix a space, split with splitWords (nil for no split),
	// the splitter of the regular expression pattern ("" for none).
	addPrefixSpace bool
	splitWords     func(string) []string
	pattern        string
	// Metaspace.
	replacement string
	prepend     prependScheme
	split       bool
}

type preTokenizerKind int

const (
	preNone preTokenizerKind = iota
	preByteLevel
	preMetaspace
)

// words splits one normalized piece; atStart tells whether the piece begins
// the text.
func (p *preTokenizer) words(s string, atStart bool) []string {
	switch p.kind {
	case preByteLevel:
		if p.addPrefixSpace && !strings.HasPrefix(s, " ") {
			s = " " + s
		}
		pieces := []string{s}
		if p.splitWords != nil {
			pieces = p.splitWords(s)
		}
		for i, piece := range pieces {
			pieces[i] = byteLevelString(piece)
		}
		return pieces
	case preMetaspace:
		s = strings.ReplaceAll(s, " ", p.replacement)
		if !strings.HasPrefix(s, p.replacement) && (p.prepend == prependAlways || (p.prepend == prependFirst && atStart)) {
			s = p.replacement + s
		}
		if !p.split {
			return []string{s}
		}
		// Split before every replacement character, which so starts the
		// word after it.
		var pieces []string
		for {
			k := strings.Index(s[1:], p.replacement)
			if k < 0 {
				return append(pieces, s)
			}
			pieces = append(pieces, s[:k+1])
			s = s[k+1:]
		}
	}
	return []string{s}
}

// decoder is one step of the decoding chain, which maps the list of token
// strings to a new list.
type decoder struct {
	kind decoderKind
	// Replace: old → new. Strip: content, start, stop.
	old, new    string
	content     rune
	start, stop int
	// Metaspace.
	replacement string
	prepend     prependScheme
}

type decoderKind int

const (
	decodeByteLevel decoderKind = iota
	decodeByteFallback
	decodeFuse
	decodeReplace
	decodeStrip
	decodeMetaspace
)

func (d *decoder) apply(tokens []string) []string {
	switch d.kind {
	case decodeByteLevel:
		// A token all of whose characters are in the byte map becomes its
		// bytes; any other token (an added token such as "<|im start|>")
		// stays as it is.
		var b strings.Builder
		for _, t := range tokens {
			if raw, ok := byteLevelBytes(t); ok {
				b.Write(raw)
			} else {
				b.WriteString(t)
			}
		}
		return []string{b.String()}
	case decodeByteFallback:
		out := make([]string, len(tokens))
		for i, t := range tokens {
			if v, ok := parseByteToken(t); ok {
				out[i] = string([]byte{v})
			} else {
				out[i] = t
			}
		}
		return out
	case decodeFuse:
		return []string{strings.Join(tokens, "")}
	case decodeReplace:
		out := make([]string, len(tokens))
		for i, t := range tokens {
			out[i] = strings.ReplaceAll(t, d.old, d.new)
		}
		return out
	case decodeStrip:
		out := make([]string, len(tokens))
		for i, t := range tokens {
			for n := 0; n < d.start && strings.HasPrefix(t, string(d.content)); n++ {
				t = t[utf8.RuneLen(d.content):]
			}
			for n := 0; n < d.stop && strings.HasSuffix(t, string(d.content)); n++ {
				t = t[:len(t)-utf8.RuneLen(d.content)]
			}
			out[i] = t
		}
		return out
	case decodeMetaspace:
		out := make([]string, len(tokens))
		for i, t := range tokens {
			if i == 0 && d.prepend != prependNever {
				t = strings.ReplaceAll(t, d.replacement, "")
			} else {
				t = strings.ReplaceAll(t, d.replacement, " ")
			}
			out[i] = t
		}
		return out
	}
	return tokens
}

// byteToken is the name of the byte-fallback token for b, e.g. "<0x0A>".
func byteToken(b byte) string {
	return fmt.Sprintf("<0x%02X>", b)
}

// parseByteToken recognises a byte-fallback token name.
func parseByteToken(t string) (byte, bool) {
	if len(t) != 6 || t[:3] != "<0x" || t[5] != '>' {
		return 0, false
	}
	hi, ok1 := hexDigit(t[3])
	lo, ok2 := hexDigit(t[4])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// addedToken is a token matched verbatim in the text before the model runs.
type addedToken struct {
	content        string
	id             int
	lstrip, rstrip bool
}

// addedSet holds added tokens indexed by first byte, longest first.
type addedSet struct {
	byFirst [256][]addedToken
	count   int
}

func (a *addedSet) add(t addedToken) {
	a.count++
	list := append(a.byFirst[t.content[0]], t)
	// Keep longest first so the first prefix match is the longest.
	for i := len(list) - 1; i > 0 && len(list[i].content) > len(list[i-1].content); i-- {
		list[i], list[i-1] = list[i-1], list[i]
	}
	a.byFirst[t.content[0]] = list
}

// segment is a piece of text, or an added token when id ≥ 0. start is the
// piece's offset in the string it was split from.
type segment struct {
	text  string
	id    int
	start int
}

// split cuts s at the leftmost-longest occurrences of added tokens. A token
// with lstrip (rstrip) also takes the whitespace to its left (right).
func (a *addedSet) split(s string) []segment {
	if a.count == 0 {
		return []segment{{text: s, id: -1}}
	}
	var out []segment
	last := 0 // end of the previous match
	for i := 0; i < len(s); {
		var match *addedToken
		for k, t := range a.byFirst[s[i]] {
			if strings.HasPrefix(s[i:], t.content) {
				match = &a.byFirst[s[i]][k]
				break
			}
		}
		if match == nil {
			i++
			continue
		}
		begin, end := i, i+len(match.content)
		if match.lstrip {
			for begin > last {
				r, size := utf8.DecodeLastRuneInString(s[last:begin])
				if !unicode.IsSpace(r) {
					break
				}
				begin -= size
			}
		}
		if match.rstrip {
			for end < len(s) {
				r, size := utf8.DecodeRuneInString(s[end:])
				if !unicode.IsSpace(r) {
					break
				}
				end += size
			}
		}
		if begin > last {
			out = append(out, segment{text: s[last:begin], id: -1, start: last})
		}
		out = append(out, segment{text: s[begin:end], id: match.id, start: begin})
		last, i = end, end
	}
	if last < len(s) {
		out = append(out, segment{text: s[last:], id: -1, start: last})
	}
	return out
}

// TokenID returns the id of a token of the vocabulary or an added token,
// e.g. "<|endoftext|>" or "<s>".
func (t *BPE) TokenID(token string) (int, bool) {
	if id, ok := t.vocab[token]; ok {
		return id, true
	}
	if token == "" {
		return 0, false
	}
	for _, set := range []*addedSet{&t.rawAdded, &t.normalizedAdded} {
		for _, a := range set.byFirst[token[0]] {
			if a.content == token {
				return a.id, true
			}
		}
	}
	return 0, false
}

// Token returns the string of token id as the vocabulary spells it.
func (t *BPE) Token(id int) (string, bool) {
	s, ok := t.tokens[id]
	return s, ok
}

// VocabSize is one more than the largest id of the vocabulary and the added
// tokens.
func (t *BPE) VocabSize() int { return t.vocabSize }

// Encode runs the encoding pipeline on text.
func (t *BPE) Encode(text string) ([]int, error) {
	var ids []int
	for _, raw := range t.rawAdded.split(text) {
		if raw.id >= 0 {
			ids = append(ids, raw.id)
			continue
		}
		normalized := raw.text
		for _, n := range t.normalizers {
			normalized = n.apply(normalized)
		}
		for _, piece := range t.normalizedAdded.split(normalized) {
			if piece.id >= 0 {
				ids = append(ids, piece.id)
				continue
			}
			if piece.text == "" {
				continue
			}
			for _, word := range t.pre.words(piece.text, raw.start == 0 && piece.start == 0) {
				var err error
				if ids, err = t.encodeWord(ids, word); err != nil {
					return nil, err
				}
			}
		}
	}
	return ids, nil
}

// encodeWord appends the ids of one pre-tokenized word.
func (t *BPE) encodeWord(ids []int, word string) ([]int, error) {
	if word == "" {
		return ids, nil
	}
	if t.ignoreMerges {
		if id, ok := t.vocab[word]; ok {
			return append(ids, id), nil
		}
	}
	var symbols []int
	lastUnknown := false
	for i := 0; i < len(word); {
		_, size := decodeRune(word[i:])
		char := word[i : i+size]
		i += size
		if id, ok := t.vocab[char]; ok {
			symbols = append(symbols, id)
			lastUnknown = false
			continue
		}
		if t.byteFallback {
			if fallback, ok := t.byteIDs(char); ok {
				symbols = append(symbols, fallback...)
				lastUnknown = false
				continue
			}
		}
		if t.unk < 0 {
			return nil, fmt.Errorf("tokenizer: character %q is not in the vocabulary and there is no unknown token", char)
		}
		if !(t.fuseUnk && lastUnknown) {
			symbols = append(symbols, t.unk)
		}
		lastUnknown = true
	}
	return append(ids, t.mergeSymbols(symbols)...), nil
}

// byteIDs returns the byte-fallback tokens of every byte of char.
func (t *BPE) byteIDs(char string) ([]int, bool) {
	out := make([]int, len(char))
	for i := 0; i < len(char); i++ {
		id, ok := t.vocab[byteToken(char[i])]
		if !ok {
			return nil, false
		}
		out[i] = id
	}
	return out, true
}

// mergeSymbols applies merges to a word: repeatedly, the adjacent pair of
// lowest rank (the leftmost among equals) is replaced by its merged token,
// until no adjacent pair has a merge. A heap of candidate pairs keeps this
// O(n log n) in the word length n; an entry whose symbols have changed since
// it was pushed is skipped when popped.
func (t *BPE) mergeSymbols(ids []int) []int {
	if len(ids) < 2 || len(t.merges) == 0 {
		return ids
	}
	n := len(ids)
	prev := make([]int, n)
	next := make([]int, n)
	alive := make([]bool, n)
	for i := range ids {
		prev[i], next[i], alive[i] = i-1, i+1, true
	}
	next[n-1] = -1
	var q pairQueue
	push := func(left int) {
		right := next[left]
		if left < 0 || right < 0 {
			return
		}
		if m, ok := t.merges[[2]int{ids[left], ids[right]}]; ok {
			heap.Push(&q, pairEntry{rank: m.rank, pos: left, left: ids[left], right: ids[right], id: m.id})
		}
	}
	for i := 0; i < n-1; i++ {
		push(i)
	}
	for q.Len() > 0 {
		e := heap.Pop(&q).(pairEntry)
		right := next[e.pos]
		if !alive[e.pos] || right < 0 || ids[e.pos] != e.left || ids[right] != e.right {
			continue
		}
		ids[e.pos] = e.id
		alive[right] = false
		next[e.pos] = next[right]
		if next[right] >= 0 {
			prev[next[right]] = e.pos
		}
		if prev[e.pos] >= 0 {
			push(prev[e.pos])
		}
		push(e.pos)
	}
	out := ids[:0]
	for i := 0; i >= 0; i = next[i] {
		out = append(out, ids[i])
	}
	return out
}

// pairEntry is a candidate merge of the symbols at pos and its successor,
// valid while they still have ids left and right.
type pairEntry struct {
	rank, pos       int
	left, right, id int
}

type pairQueue []pairEntry

func (q pairQueue) Len() int { return len(q) }
func (q pairQueue) Less(i, j int) bool {
	if q[i].rank != q[j].rank {
		return q[i].rank < q[j].rank
	}
	return q[i].pos < q[j].pos
}
func (q pairQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pairQueue) Push(x any)   { *q = append(*q, x.(pairEntry)) }
func (q *pairQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Decode maps ids to their token strings and runs the decoder chain. Without
// a decoder the tokens are joined with spaces, as the reference library does.
func (t *BPE) Decode(ids []int) (string, error) {
	tokens := make([]string, len(ids))
	for i, id := range ids {
		s, ok := t.tokens[id]
		if !ok {
			return "", fmt.Errorf("tokenizer: unknown id %d at position %d", id, i)
		}
		tokens[i] = s
	}
	if len(t.decoders) == 0 {
		return strings.Join(tokens, " "), nil
	}
	for i := range t.decoders {
		tokens = t.decoders[i].apply(tokens)
	}
	return strings.Join(tokens, ""), nil
}

// errNoVocab is returned for an empty vocabulary.
var errNoVocab = errors.New("tokenizer: empty vocabulary")
