package statement

import (
	"math/big"
	mbits "math/bits"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/math/bits"
)

// SHA-256 in field arithmetic alone: every bit a variable constrained to
// 0 or 1 (or a constant), XOR as a + b − 2ab, and each addition modulo
// 2³² one decomposition of the integer sum into bits, of which the low 32
// are kept. It needs neither lookups nor commitments, so it serves in
// any field of more than 64 bits, and constant inputs (the initial hash
// value, a fixed padding block) fold away at compile time.

// sha256IV is SHA-256's initial hash value.
var sha256IV = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// sha256K are SHA-256's round constants.
var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

// u32 is a 32-bit word in a circuit as its bits, least significant
// first: each a variable constrained to 0 or 1, a linear expression of
// such that takes only the values 0 and 1, or the constant 0 or 1.
type u32 [32]frontend.Variable

// constU32 returns the constant word x.
func constU32(x uint32) u32 {
	var w u32
	for i := range w {
		w[i] = (x >> i) & 1
	}
	return w
}

// term is a non-negative integer given as a field element v, at most
// max (so below 2⁶⁴, and the field's order).
type term struct {
	v   frontend.Variable
	max uint64
}

// constTerm returns the constant term x.
func constTerm(x uint32) term { return term{v: x, max: uint64(x)} }

// termOf returns the value of the word w, bounded by its constant bits.
func termOf(api frontend.API, w u32) term {
	parts := make([]frontend.Variable, 0, len(w))
	var bound uint64
	for i, b := range w {
		if c, ok := api.Compiler().ConstantValue(b); ok {
			if c.Sign() != 0 {
				bound |= 1 << i
				parts = append(parts, uint64(1)<<i)
			}
			continue
		}
		bound |= 1 << i
		parts = append(parts, api.Mul(b, uint64(1)<<i))
	}
	return term{v: sum(api, parts), max: bound}
}

// sum returns the sum of the values (0 for none).
func sum(api frontend.API, values []frontend.Variable) frontend.Variable {
	switch len(values) {
	case 0:
		return 0
	case 1:
		return values[0]
	}
	return api.Add(values[0], values[1], values[2:]...)
}

// add32 returns the sum of the terms modulo 2³². Cost: one constraint
// per bit of the sum's bound, plus one.
func add32(api frontend.API, terms ...term) u32 {
	w, _ := split32(api, terms...)
	return w
}

// split32 returns the sum of the terms modulo 2³², and the sum itself
// recomposed from its bits: the integer sum, below 2⁶⁴, decomposed into
// as many bits as its bound has, of which the low 32 are the word.
func split32(api frontend.API, terms ...term) (u32, frontend.Variable) {
	values := make([]frontend.Variable, len(terms))
	var bound uint64
	for i, t := range terms {
		values[i] = t.v
		if bound+t.max < bound {
			panic("statement: SHA-256 sum above 2^64")
		}
		bound += t.max
	}
	if bound == 0 {
		return constU32(0), 0
	}
	digits := bits.ToBinary(api, sum(api, values), bits.WithNbDigits(mbits.Len64(bound)))
	var w u32
	for i := range w {
		w[i] = 0
		if i < len(digits) {
			w[i] = digits[i]
		}
	}
	parts := make([]frontend.Variable, len(digits))
	for i, d := range digits {
		parts[i] = api.Mul(d, uint64(1)<<i)
	}
	return w, sum(api, parts)
}

// rotr is x rotated right by n.
func rotr(x u32, n int) u32 {
	var w u32
	for i := range w {
		w[i] = x[(i+n)%32]
	}
	return w
}

// shr is x shifted right by n.
func shr(x u32, n int) u32 {
	var w u32
	for i := range w {
		w[i] = 0
		if i+n < 32 {
			w[i] = x[i+n]
		}
	}
	return w
}

// xorBit is a ⊕ b = a + b − 2ab for bits a and b. Cost: one constraint
// unless a or b is a constant.
func xorBit(api frontend.API, a, b frontend.Variable) frontend.Variable {
	return api.Sub(api.Add(a, b), api.Mul(2, api.Mul(a, b)))
}

// xor3 is x ⊕ y ⊕ z. Cost: two constraints per bit of which none of
// the three is a constant.
func xor3(api frontend.API, x, y, z u32) u32 {
	var w u32
	for i := range w {
		w[i] = xorBit(api, xorBit(api, x[i], y[i]), z[i])
	}
	return w
}

// choose is SHA-256's Ch(e, f, g) = g + e(f − g), bitwise. Cost: one
// constraint per bit.
func choose(api frontend.API, e, f, g u32) u32 {
	var w u32
	for i := range w {
		w[i] = api.Add(g[i], api.Mul(e[i], api.Sub(f[i], g[i])))
	}
	return w
}

// majority is SHA-256's Maj(a, b, c) = ab + c(a ⊕ b), bitwise. Cost: two
// constraints per bit.
func majority(api frontend.API, a, b, c u32) u32 {
	var w u32
	for i := range w {
		ab := api.Mul(a[i], b[i])
		w[i] = api.Add(ab, api.Mul(c[i], api.Sub(api.Add(a[i], b[i]), api.Mul(2, ab))))
	}
	return w
}

func bigSigma0(api frontend.API, x u32) u32 {
	return xor3(api, rotr(x, 2), rotr(x, 13), rotr(x, 22))
}

func bigSigma1(api frontend.API, x u32) u32 {
	return xor3(api, rotr(x, 6), rotr(x, 11), rotr(x, 25))
}

func smallSigma0(api frontend.API, x u32) u32 {
	return xor3(api, rotr(x, 7), rotr(x, 18), shr(x, 3))
}

func smallSigma1(api frontend.API, x u32) u32 {
	return xor3(api, rotr(x, 17), rotr(x, 19), shr(x, 10))
}

// schedule returns SHA-256's message schedule of a block of sixteen
// big-endian words. Cost: 48 expansions of 150 constraints (σ₀ 61, σ₁
// 54, the sum 35), 7 200 in all, fewer with constant words, none for a
// constant block.
func schedule(api frontend.API, block [16]u32) [64]term {
	var words [64]u32
	var out [64]term
	for t := range words {
		if t < 16 {
			words[t] = block[t]
		} else {
			words[t] = add32(api, termOf(api, smallSigma1(api, words[t-2])), termOf(api, words[t-7]),
				termOf(api, smallSigma0(api, words[t-15])), termOf(api, words[t-16]))
		}
		out[t] = termOf(api, words[t])
	}
	return out
}

// compress returns SHA-256's compression of the chaining value h with
// the message schedule w. Cost per round: Σ₀ and Σ₁ 64 constraints each,
// Ch 32, Maj 64 and the two sums 36 each (296); then 34 per word of the
// feed-forward: 19 216 constraints with variable inputs throughout,
// fewer when some are constants. With the schedule of a variable block,
// a compression costs 26 416.
func compress(api frontend.API, h [8]u32, w [64]term) [8]u32 {
	a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	for t := range 64 {
		t1 := []term{termOf(api, hh), termOf(api, bigSigma1(api, e)), termOf(api, choose(api, e, f, g)), constTerm(sha256K[t]), w[t]}
		maj := termOf(api, majority(api, a, b, c))
		s0 := termOf(api, bigSigma0(api, a))
		// e = d + T₁ and a = T₁ + T₂, T₁ taken back from the sum d + T₁
		// as its bits less d, a shorter linear expression than its parts.
		dt := termOf(api, d)
		var full frontend.Variable
		hh, g, f = g, f, e
		e, full = split32(api, append(t1, dt)...)
		t1Sum := term{v: api.Sub(full, dt.v), max: sumMax(t1)}
		d, c, b = c, b, a
		a = add32(api, t1Sum, s0, maj)
	}
	var out [8]u32
	for k, x := range [8]u32{a, b, c, d, e, f, g, hh} {
		out[k] = add32(api, termOf(api, h[k]), termOf(api, x))
	}
	return out
}

// sumMax is the bound of the sum of the terms.
func sumMax(terms []term) uint64 {
	var bound uint64
	for _, t := range terms {
		bound += t.max
	}
	return bound
}

// hashBlocks returns SHA-256's chaining value after the blocks from h.
func hashBlocks(api frontend.API, h [8]u32, msg []u32) [8]u32 {
	for i := 0; i < len(msg); i += 16 {
		var block [16]u32
		copy(block[:], msg[i:i+16])
		h = compress(api, h, schedule(api, block))
	}
	return h
}

// ivU32 is the initial hash value as constant words.
func ivU32() [8]u32 {
	var h [8]u32
	for k, x := range sha256IV {
		h[k] = constU32(x)
	}
	return h
}

// sha256Words returns SHA-256 of the message of big-endian words msg
// (4·len(msg) bytes): the message, its padding as constant words, then
// the compressions from the initial hash value.
func sha256Words(api frontend.API, msg []u32) [8]u32 {
	n := len(msg)
	padded := append([]u32(nil), msg...)
	padded = append(padded, constU32(0x80000000))
	for len(padded)%16 != 14 {
		padded = append(padded, constU32(0))
	}
	length := uint64(32 * n)
	padded = append(padded, constU32(uint32(length>>32)), constU32(uint32(length)))
	return hashBlocks(api, ivU32(), padded)
}

// digestValue returns the low nbits bits (224 < nbits ≤ 256) of the
// digest h read as a big-endian integer: a linear combination of its
// bits.
func digestValue(api frontend.API, h [8]u32, nbits int) frontend.Variable {
	var parts []frontend.Variable
	for j := range nbits {
		k, i := 7-j/32, j%32
		parts = append(parts, api.Mul(h[k][i], new(big.Int).Lsh(big.NewInt(1), uint(j))))
	}
	return sum(api, parts)
}

// wordOf returns the value v as the eight big-endian 32-bit words of a
// 256-bit word, asserting v < 2^nbits (nbits ≤ 256): a decomposition
// into nbits bits, canonical (checked below the field's order) when
// nbits is at least the field's bit length, and unique otherwise as
// 2^nbits is then below the order. Cost: nbits + 1 constraints, and the
// comparison with the order when canonical.
func wordOf(api frontend.API, v frontend.Variable, nbits int) [8]u32 {
	b := bits.ToBinary(api, v, bits.WithNbDigits(nbits))
	var out [8]u32
	for k := range out {
		for i := range 32 {
			out[k][i] = 0
			if j := 32*(7-k) + i; j < len(b) {
				out[k][i] = b[j]
			}
		}
	}
	return out
}

// nativeSchedule is SHA-256's message schedule of a block, natively.
func nativeSchedule(block [16]uint32) [64]uint32 {
	var w [64]uint32
	copy(w[:], block[:])
	for t := 16; t < 64; t++ {
		s0 := mbits.RotateLeft32(w[t-15], -7) ^ mbits.RotateLeft32(w[t-15], -18) ^ (w[t-15] >> 3)
		s1 := mbits.RotateLeft32(w[t-2], -17) ^ mbits.RotateLeft32(w[t-2], -19) ^ (w[t-2] >> 10)
		w[t] = s1 + w[t-7] + s0 + w[t-16]
	}
	return w
}
