package statement

import (
	"fmt"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/math/bits"
	"github.com/consensys/gnark/std/math/uints"
	"github.com/consensys/gnark/std/permutation/sha2"

	native "github.com/veriformer/veriformer/statement"
)

// listBits matches statement.ListBits.
const listBits = 250

// sha256IV is SHA-256's initial hash value.
var sha256IV = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

// BatchDigest returns the digest of a batch of inferences of the model
// modelID (statement.Batch.Digest): the first count of the buffers'
// inferences, inputs[i] and outputs[i] the digests of the i-th, count a
// circuit variable in [1, len(inputs)]. A circuit sized for m inferences
// thus serves every batch of up to m. Cost: [ListDigest], two more
// canonical decompositions and two SHA-256 compressions.
func BatchDigest(api frontend.API, modelID, count frontend.Variable, inputs, outputs []frontend.Variable) (frontend.Variable, error) {
	list, err := ListDigest(api, count, inputs, outputs)
	if err != nil {
		return nil, err
	}
	return BatchDigestOfList(api, modelID, list)
}

// BatchDigestOfList returns the batch digest of the model modelID and
// the list digest list (the second step of statement.Batch.Digest):
// SHA-256 of the two values as canonical 32-byte big-endian words, its
// three most significant bits cleared. Cost: two canonical
// decompositions, 64 byte range checks and two SHA-256 compressions.
func BatchDigestOfList(api frontend.API, modelID, list frontend.Variable) (frontend.Variable, error) {
	return digestWords(api, modelID, list)
}

// ListDigest returns the list digest of the first count inferences of the
// buffers (statement.Batch.ListDigest): SHA-256 of count ‖ in₁ ‖ out₁ ‖ …
// ‖ in_count ‖ out_count as 32-byte big-endian words, its low 250 bits.
// It asserts 1 ≤ count ≤ m = len(inputs) = len(outputs).
//
// The message is 32 + 64·count bytes, so its padding (0x80, 23 zero
// bytes and its length in bits, 256 + 512·count, on 8 bytes) fills the
// second half of block count exactly: block 0 is count ‖ in₁, block i is
// out_i ‖ in_{i+1} for 0 < i < count and block count is out_count ‖
// padding. The gadget compresses m + 1 blocks whose second half is
// in_{i+1} for i < count and the padding from there on, and keeps the
// chaining value after block count, selected by the indicators
// [count = i]. Cost: 2m + 1 canonical decompositions, m + 1 SHA-256
// compressions, 32 byte selections per block and 8 products per block.
func ListDigest(api frontend.API, count frontend.Variable, inputs, outputs []frontend.Variable) (frontend.Variable, error) {
	m := len(inputs)
	if m != len(outputs) {
		return nil, fmt.Errorf("statement: list digest of %d inputs and %d outputs", m, len(outputs))
	}
	if m < 1 || m > native.MaxBatch {
		return nil, fmt.Errorf("statement: list digest of %d inferences, want 1 to %d", m, native.MaxBatch)
	}
	bytesAPI, err := newBytes(api)
	if err != nil {
		return nil, err
	}
	uapi, err := uints.New[uints.U32](api)
	if err != nil {
		return nil, fmt.Errorf("statement: list digest: %w", err)
	}
	// is[i] = [count = i]; exactly one of is[1 … m] is 1 when 1 ≤ count
	// ≤ m, which the sum of the indicators asserts.
	is := make([]frontend.Variable, m+1)
	sum := frontend.Variable(0)
	for i := 1; i <= m; i++ {
		is[i] = api.IsZero(api.Sub(count, i))
		sum = api.Add(sum, is[i])
	}
	api.AssertIsEqual(sum, 1)

	// The padding: 0x80, 23 zero bytes, the message's bit length.
	pad := make([]uints.U8, 32)
	pad[0] = uints.NewU8(0x80)
	for i := 1; i < 24; i++ {
		pad[i] = uints.NewU8(0)
	}
	length := bits.ToBinary(api, api.Add(256, api.Mul(512, count)), bits.WithNbDigits(64))
	for i := range 8 {
		lo := 8 * (7 - i)
		pad[24+i] = bytesAPI.ValueOf(bits.FromBinary(api, length[lo:lo+8], bits.WithUnconstrainedInputs()))
	}

	var state [8]uints.U32
	for k, v := range sha256IV {
		state[k] = uints.NewU32(v)
	}
	var chosen [8]frontend.Variable
	for k := range chosen {
		chosen[k] = 0
	}
	// live = [i < count] = 1 − Σ_{j ≤ i} [count = j].
	live := frontend.Variable(1)
	var block [64]uints.U8
	for i := 0; i <= m; i++ {
		if i == 0 {
			copy(block[:32], word(api, bytesAPI, count))
		} else {
			copy(block[:32], word(api, bytesAPI, outputs[i-1]))
			live = api.Sub(live, is[i])
		}
		if i < m {
			in := word(api, bytesAPI, inputs[i])
			for j := range 32 {
				block[32+j] = bytesAPI.Select(live, in[j], pad[j])
			}
		} else {
			copy(block[32:], pad)
		}
		state = sha2.Permute(uapi, state, block)
		if i > 0 {
			for k := range chosen {
				chosen[k] = api.Add(chosen[k], api.Mul(is[i], uapi.ToValue(state[k])))
			}
		}
	}
	// The chaining value's words are big-endian: word 0 holds the top
	// 32 bits, of which the digest keeps the low listBits − 224.
	top := bits.ToBinary(api, chosen[0], bits.WithNbDigits(32))
	out := bits.FromBinary(api, top[:listBits-224], bits.WithUnconstrainedInputs())
	// Each chosen word is one chaining value's word (the indicators sum
	// to one), so below 2³².
	for _, w := range chosen[1:] {
		out = api.Add(api.Mul(out, 1<<32), w)
	}
	return out, nil
}
