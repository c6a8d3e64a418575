package statement

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	native "github.com/veriformer/veriformer/statement"
)

// listBits matches statement.ListBits.
const listBits = 250

// ListDigest returns the list digest of the first count requests of the
// buffers (statement.List.ListDigest of the request leaves (inputs[i],
// outputs[i]) for i < count), count a circuit variable: SHA-256 of the
// words inputs[0] + 2²⁵⁴, outputs[0], …, inputs[count−1] + 2²⁵⁴,
// outputs[count−1] as 32-byte big-endian words, its low 250 bits. It
// asserts 1 ≤ count ≤ m = len(inputs) = len(outputs) and every value of
// the buffers, beyond count too, below 2²⁵⁴ (by its decomposition,
// canonical in a field of at most 254 bits). The field must have more
// than 250 bits. A circuit sized for m requests thus serves every list
// of up to m requests.
//
// Each request's words fill one 64-byte block exactly, so the message
// of count requests is count blocks, and its padding a block of its own:
// 0x80, zero bytes and the bit length 512·count on the last 8 bytes. The
// gadget compresses the m blocks of the buffers, keeps the chaining
// value after block count, selected by the indicators [count = i], and
// compresses the padding block of that count from it, whose message
// schedule is a linear combination of the indicators. It uses field
// arithmetic alone, neither lookups nor commitments. Cost: about 26 400
// constraints per request slot for its block and 510 for its two
// decompositions (more when canonical), a few for its indicator, 8
// products per slot, 264 constraints to decompose the chosen chaining
// value and about 19 200 for the padding block.
func ListDigest(api frontend.API, count frontend.Variable, inputs, outputs []frontend.Variable) (frontend.Variable, error) {
	m := len(inputs)
	if m != len(outputs) {
		return nil, fmt.Errorf("statement: list digest of %d inputs and %d outputs", m, len(outputs))
	}
	if m < 1 || m > native.MaxLeaves {
		return nil, fmt.Errorf("statement: list digest of %d requests, want 1 to %d", m, native.MaxLeaves)
	}
	if fieldBits := api.Compiler().FieldBitLen(); fieldBits <= listBits {
		return nil, fmt.Errorf("statement: list digest over a %d-bit field, want more than %d bits", fieldBits, listBits)
	}
	// is[i] = [count = i]; exactly one of is[1 … m] is 1 when 1 ≤ count
	// ≤ m, which the sum of the indicators asserts.
	is := make([]frontend.Variable, m+1)
	total := make([]frontend.Variable, 0, m)
	for i := 1; i <= m; i++ {
		is[i] = api.IsZero(api.Sub(count, i))
		total = append(total, is[i])
	}
	api.AssertIsEqual(sum(api, total), 1)

	h := ivU32()
	var chosen [8][]frontend.Variable
	for i := range m {
		words, err := leafWords(api, Leaf{Kind: native.KindRequest, Input: inputs[i], Output: outputs[i]})
		if err != nil {
			return nil, err
		}
		var block [16]u32
		copy(block[:], words)
		h = compress(api, h, schedule(api, block))
		for k := range chosen {
			chosen[k] = append(chosen[k], api.Mul(is[i+1], termOf(api, h[k]).v))
		}
	}
	// The indicators sum to one, so each chosen word is one chaining
	// value's word, below 2³².
	var last [8]u32
	for k := range last {
		last[k] = add32(api, term{v: sum(api, chosen[k]), max: 1<<32 - 1})
	}
	// The padding block's schedule for each count, selected.
	schedules := make([][64]uint32, m+1)
	for c := 1; c <= m; c++ {
		var block [16]uint32
		block[0] = 0x80000000
		length := uint64(512 * c)
		block[14], block[15] = uint32(length>>32), uint32(length)
		schedules[c] = nativeSchedule(block)
	}
	var pad [64]term
	for t := range pad {
		same := true
		var parts []frontend.Variable
		var bound uint64
		for c := 1; c <= m; c++ {
			x := schedules[c][t]
			same = same && x == schedules[1][t]
			bound = max(bound, uint64(x))
			if x != 0 {
				parts = append(parts, api.Mul(is[c], x))
			}
		}
		if same {
			pad[t] = constTerm(schedules[1][t])
		} else {
			pad[t] = term{v: sum(api, parts), max: bound}
		}
	}
	return digestValue(api, compress(api, last, pad), listBits), nil
}
