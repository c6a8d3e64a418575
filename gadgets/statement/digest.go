package statement

import (
	"fmt"

	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/std/hash/sha2"
	"github.com/consensys/gnark/std/math/bits"
	"github.com/consensys/gnark/std/math/uints"
)

// digestBits matches statement.DigestBits.
const digestBits = 253

// Digest returns the statement digest of (modelID, inputDigest,
// outputDigest), computed exactly as natively (statement.Digest): SHA-256
// of the three values as 32-byte big-endian words, its three most
// significant bits cleared. Each value is decomposed canonically (below
// the circuit's field order, which must have at most 256 bits), so the
// words hashed are those of the integers a contract receives. Cost: three
// canonical bit decompositions, 96 byte range checks and two SHA-256
// compressions (gnark's std/hash/sha2).
func Digest(api frontend.API, modelID, inputDigest, outputDigest frontend.Variable) (frontend.Variable, error) {
	return digestWords(api, modelID, inputDigest, outputDigest)
}

// TurnDigest returns the digest of a turn (modelID, stateIn, inputDigest,
// outputDigest, stateOut), computed exactly as natively
// (statement.Turn.Digest): SHA-256 of the five values as 32-byte
// big-endian words, decomposed canonically, its three most significant
// bits cleared. Cost: five decompositions, 160 byte range checks and
// three SHA-256 compressions.
func TurnDigest(api frontend.API, modelID, stateIn, inputDigest, outputDigest, stateOut frontend.Variable) (frontend.Variable, error) {
	return digestWords(api, modelID, stateIn, inputDigest, outputDigest, stateOut)
}

// digestWords is SHA-256 of the values as canonical 32-byte big-endian
// words, its three most significant bits cleared.
func digestWords(api frontend.API, values ...frontend.Variable) (frontend.Variable, error) {
	bytesAPI, err := newBytes(api)
	if err != nil {
		return nil, err
	}
	hasher, err := sha2.New(api)
	if err != nil {
		return nil, fmt.Errorf("statement: digest: %w", err)
	}
	for _, v := range values {
		hasher.Write(word(api, bytesAPI, v))
	}
	sum := hasher.Sum()
	if len(sum) != 32 {
		return nil, fmt.Errorf("statement: digest: SHA-256 gave %d bytes", len(sum))
	}
	// Big-endian integer of the sum, keeping its low digestBits bits.
	top := bits.ToBinary(api, bytesAPI.Value(sum[0]), bits.WithNbDigits(8))
	out := bits.FromBinary(api, top[:digestBits-248], bits.WithUnconstrainedInputs())
	for _, b := range sum[1:] {
		out = api.Add(api.Mul(out, 256), bytesAPI.Value(b))
	}
	return out, nil
}

// newBytes returns gnark's byte API for a field of at most 256 bits.
func newBytes(api frontend.API) (*uints.Bytes, error) {
	if fieldBits := api.Compiler().FieldBitLen(); fieldBits > 256 {
		return nil, fmt.Errorf("statement: digest over a %d-bit field, want at most 256", fieldBits)
	}
	bytesAPI, err := uints.NewBytes(api)
	if err != nil {
		return nil, fmt.Errorf("statement: digest: %w", err)
	}
	return bytesAPI, nil
}

// word returns v as the 32 bytes of its canonical big-endian encoding:
// a full-width decomposition, which gnark checks to be below the
// modulus, regrouped into range-checked bytes.
func word(api frontend.API, bytesAPI *uints.Bytes, v frontend.Variable) []uints.U8 {
	fieldBits := api.Compiler().FieldBitLen()
	b := bits.ToBinary(api, v)
	out := make([]uints.U8, 32)
	for i := range out {
		lo := 8 * (31 - i) // out[i] holds bits lo … lo+7
		if lo >= fieldBits {
			out[i] = uints.NewU8(0)
			continue
		}
		hi := min(lo+8, fieldBits)
		out[i] = bytesAPI.ValueOf(bits.FromBinary(api, b[lo:hi], bits.WithUnconstrainedInputs()))
	}
	return out
}
