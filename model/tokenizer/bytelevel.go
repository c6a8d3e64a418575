package tokenizer

import (
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
