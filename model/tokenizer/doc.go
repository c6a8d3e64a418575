// Package tokenizer turns text into the token ids a language model consumes
// and back.
//
// # Tokenizers
//
// [NewByte] is the byte tokenizer of the built-in default model: token id =
// byte value, 256 tokens, and Decode(Encode(s)) = s for every string.
//
// [LoadGPT2] reads GPT-2's vocab.json and merges.txt, [LoadTokenizerJSON] a
// Hugging Face tokenizer.json whose model is BPE, and [LoadDir] picks
// whichever a model directory has (tokenizer.json first). They return a
// [*BPE], whose [BPE.TokenID] looks up special tokens such as
// "<|endoftext|>" or "<s>". Nothing is downloaded: the vocabulary comes from
// the bytes given.
//
// # Pipeline
//
// Encoding a text x runs, in order:
//
//  1. Added tokens. Every added token (added_tokens in tokenizer.json;
//     "<|endoftext|>" for vocab.json) is cut out of x at its leftmost-longest
//     occurrences and becomes its id. lstrip and rstrip make the match take
//     the whitespace to its left and right. Tokens marked normalized are
//     looked for after step 2, in the normalized text, the others before.
//  2. Normalizer, on each piece between added tokens: Prepend p (x ↦ p‖x
//     for x ≠ ε) and literal Replace, possibly in a Sequence.
//  3. Pre-tokenizer, splitting a piece into words:
//     - ByteLevel: optionally prefix a space, split with the GPT-2 pattern
//     below (or, for Llama 3, a Sequence of Split on the Llama 3 pattern
//     below and ByteLevel without its own split), then write each byte b
//     as the character β(b), where β is
//     GPT-2's bijection from bytes to printable characters (the printable
//     bytes '!'…'~', '¡'…'¬', '®'…'ÿ' stand for themselves; the other 68,
//     in increasing order, become U+0100, U+0101, …; so ' ' ↦ 'Ġ', '\n' ↦ 'Ċ').
//     - Metaspace: replace ' ' by '▁', prefix '▁' (always, or only on the
//     first piece of the text), and split before each '▁'.
//  4. Model, on each word w = c₁…c_m: each character cᵢ becomes its token;
//     one missing from the vocabulary becomes its UTF-8 bytes as tokens
//     "<0xHH>" (byte_fallback), else the unknown token (runs of it fused
//     with fuse_unk), else Encode fails. Then, while some adjacent pair
//     (a, b) has a merge, the pair of lowest rank — the leftmost among
//     equal ranks — is replaced by the token a‖b. The rank of a merge is its
//     line in merges.txt or its index in the merges list. A heap of
//     candidate pairs makes this O(m log m).
//
// Encode adds no beginning- or end-of-sequence token (the post-processor is
// not applied), nor truncation or padding. A [Codec] pairs a tokenizer with
// its model's beginning-of-sequence rule ([LoadCodec]: add_bos_token and
// bos_token of tokenizer_config.json, else a TemplateProcessing
// post-processor that starts with a special token, else none as for
// GPT-2) and has a digest of its normalised content ([Codec.Digest]),
// which the model id covers.
//
// Decoding maps ids to token strings and runs the decoder chain: ByteLevel
// (β⁻¹ on tokens made only of β's characters), ByteFallback ("<0xHH>" ↦ the
// byte), Fuse, literal Replace, Strip (up to n leading and m trailing copies
// of a character), Metaspace ('▁' ↦ ' ', dropped in the first token when a
// prefix was added), in a Sequence. Without a decoder the tokens are joined
// with spaces. The decoded bytes are returned as they are: a prefix of a
// token sequence may end inside a UTF-8 character, and invalid UTF-8 given
// to a byte-level tokenizer comes back unchanged.
//
// # GPT-2 pre-tokenization
//
// The pattern is
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// with alternatives tried in order and greedy runs. Go's regexp has no
// lookahead, so the split is written by hand: a whitespace run followed by a
// non-space character gives up its last character (which becomes the
// optional leading space of the next word, or a piece of its own), and a
// run of one such character is a piece by itself. \s is Unicode White_Space,
// \p{L} letters, \p{N} numbers; an invalid UTF-8 byte counts as neither.
//
// # Llama 3 pre-tokenization
//
// Llama 3 (and, with \p{N} for \p{N}{1,3}, Qwen 2) splits with
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// also written by hand: contractions in any case; a word takes one leading
// character that is not a line break, letter or digit (a space, a tab, an
// opening bracket); numbers are cut into runs of at most three digits;
// punctuation takes the line breaks after it; a whitespace run containing a
// line break ends at its last line break. Only these exact pattern strings
// are accepted in a Split; any other regular expression is an error.
//
// # Invertibility
//
// For byte-level tokenizers whose vocabulary holds all 256 characters of β,
// Decode(Encode(x)) = x for every string x, including invalid UTF-8. For
// sentencepiece-style tokenizers (Llama 2: Prepend '▁', Replace ' ' → '▁',
// byte fallback; decoder Replace '▁' → ' ', ByteFallback, Fuse, Strip) it
// holds for valid UTF-8 that contains neither '▁' nor the text of an added
// token: the decoder cannot tell an original '▁' from a space, and the
// prefix '▁' added after a special token decodes to a space, as in the
// reference implementation. The tests check both properties on random and
// fuzzed strings.
//
// # Not supported
//
// Models other than BPE, BPE dropout, subword prefixes and suffixes, regular
// expressions other than the GPT-2, Llama 3 and Qwen 2 patterns, Unicode
// normalization forms (so Qwen's NFC normalizer), and single_word added
// tokens. A character missing from the vocabulary, with neither byte
// fallback nor an unknown token, is an Encode error (the reference library
// drops it silently). Loading such a tokenizer.json fails
// with an error naming the part, rather than tokenizing differently.
package tokenizer
