package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// byteToRune is GPT-2's reversible map from bytes to printable characters:
// the printable bytes '!'…'~', '¡'…'¬' and '®'…'ÿ' stand for themselves, and
// the other 68 bytes (control characters, space, DEL, NBSP, soft hyphen), in
// increasing order, become U+0100, U+0101, ….
var byteToRune [256]rune

// runeToByte inverts byteToRune.
var runeToByte = make(map[rune]byte, 256)

func init() {
	next := rune(256)
	for b := 0; b < 256; b++ {
		if ('!' <= b && b <= '~') || (0xA1 <= b && b <= 0xAC) || (0xAE <= b && b <= 0xFF) {
			byteToRune[b] = rune(b)
		} else {
			byteToRune[b] = next
			next++
		}
		runeToByte[byteToRune[b]] = byte(b)
	}
}

// byteLevelString maps every byte of s to its character in byteToRune.
func byteLevelString(s string) string {
	out := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = byteToRune[s[i]]
	}
	return string(out)
}

// byteLevelBytes inverts byteLevelString; it reports false if s has a
// character outside the map.
func byteLevelBytes(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		b, ok := runeToByte[r]
		if !ok {
			return nil, false
		}
		out = append(out, b)
	}
	return out, true
}

// runeClass is the character class used by the GPT-2 pre-tokenization
// pattern.
type runeClass int

const (
	classOther runeClass = iota // [^\s\p{L}\p{N}]
	classLetter
	classNumber
	classSpace
)

func classify(r rune) runeClass {
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// decodeRune is utf8.DecodeRuneInString, except that it never reports a
// zero size for a non-empty string. An invalid byte comes back as
// utf8.RuneError of size 1, which classifies as classOther.
func decodeRune(s string) (rune, int) {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		size = 1
	}
	return r, size
}

// contractions are the suffixes the pattern matches after an apostrophe, in
// the pattern's order.
var contractions = []string{"s", "t", "re", "ve", "m", "ll", "d"}

// splitGPT2 splits s as GPT-2's pre-tokenization pattern does:
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// The alternatives are tried in order at each position and each run is
// greedy. The lookahead in \s+(?!\S) makes a whitespace run that is followed
// by a non-space character give up its last character, so that the next
// word keeps its leading space; a run of one such character matches \s+
// alone. The pieces concatenate to s.
func splitGPT2(s string) []string {
	var pieces []string
	i := 0
	for i < len(s) {
		r, _ := decodeRune(s[i:])
		if r == '\'' {
			if n := contractionLen(s[i+1:]); n > 0 {
				pieces = append(pieces, s[i:i+1+n])
				i += 1 + n
				continue
			}
		}
		start, class := i, classify(r)
		if r == ' ' && i+1 < len(s) {
			next, _ := decodeRune(s[i+1:])
			if c := classify(next); c != classSpace {
				class = c
				i++ // the optional leading space
			}
		}
		if class == classSpace {
			end, last := i, i
			for end < len(s) {
				r, size := decodeRune(s[end:])
				if classify(r) != classSpace {
					break
				}
				last = end
				end += size
			}
			if end < len(s) && last > i {
				end = last
			}
			pieces = append(pieces, s[i:end])
			i = end
			continue
		}
		// The character at i is of class, so the run is not empty.
		for i < len(s) {
			r, size := decodeRune(s[i:])
			if classify(r) != class {
				break
			}
			i += size
		}
		pieces = append(pieces, s[start:i])
	}
	return pieces
}

// contractionLen returns the length of the contraction suffix at the start
// of s, or 0.
func contractionLen(s string) int {
	for _, c := range contractions {
		if len(s) >= len(c) && s[:len(c)] == c {
			return len(c)
		}
	}
	return 0
}

// gpt2Pattern is the pre-tokenization pattern of GPT-2, split by
// [splitGPT2].
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// llama3Pattern is the pre-tokenization pattern of Llama 3, split by
// [splitLlama3] with up to 3 digits per number; qwen2Pattern is the same with
// single digits.
const (
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen2Pattern  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

func isNewline(r rune) bool { return r == '\r' || r == '\n' }

// splitLlama3 splits s as the Llama 3 pattern does, with numbers cut into
// runs of at most maxDigits:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Alternatives are tried in order at each position. A word takes one
// leading character that is neither a line break, a letter nor a digit (a
// space, a tab, a quote); \s*[\r\n]+ takes whitespace up to and including
// the last line break of the run; the last two alternatives behave as in
// [splitGPT2].
func splitLlama3(s string, maxDigits int) []string {
	var pieces []string
	i := 0
	for i < len(s) {
		r, size := decodeRune(s[i:])
		start := i
		if r == '\'' {
			if n := contractionLenFold(s[i+1:]); n > 0 {
				i += 1 + n
				pieces = append(pieces, s[start:i])
				continue
			}
		}
		class := classify(r)
		var next rune = -1
		if i+size < len(s) {
			next, _ = decodeRune(s[i+size:])
		}
		switch {
		case class == classLetter || (!isNewline(r) && class != classNumber && next >= 0 && classify(next) == classLetter):
			// [^\r\n\p{L}\p{N}]?\p{L}+
			if class != classLetter {
				i += size
			}
			i = skipClass(s, i, classLetter, -1)
		case class == classNumber:
			i = skipClass(s, i, classNumber, maxDigits)
		case class == classOther || (r == ' ' && next >= 0 && classify(next) == classOther):
			//  ?[^\s\p{L}\p{N}]+[\r\n]*
			if r == ' ' {
				i += size
			}
			i = skipClass(s, i, classOther, -1)
			for i < len(s) && isNewline(rune(s[i])) {
				i++
			}
		default:
			// Whitespace: \s*[\r\n]+, else \s+(?!\S), else \s+.
			end, last, lastNewline := i, i, -1
			for end < len(s) {
				r, size := decodeRune(s[end:])
				if classify(r) != classSpace {
					break
				}
				if isNewline(r) {
					lastNewline = end + size
				}
				last = end
				end += size
			}
			switch {
			case lastNewline >= 0:
				end = lastNewline
			case end < len(s) && last > i:
				end = last
			}
			i = end
		}
		pieces = append(pieces, s[start:i])
	}
	return pieces
}

// skipClass returns the end of the run of characters of class starting at
// i, stopping after limit characters if limit > 0.
func skipClass(s string, i int, class runeClass, limit int) int {
	for n := 0; i < len(s) && (limit < 0 || n < limit); n++ {
		r, size := decodeRune(s[i:])
		if classify(r) != class {
			break
		}
		i += size
	}
	return i
}

// contractionLenFold is contractionLen ignoring ASCII case.
func contractionLenFold(s string) int {
	for _, c := range contractions {
		if len(s) >= len(c) && strings.EqualFold(s[:len(c)], c) {
			return len(c)
		}
	}
	return 0
}
