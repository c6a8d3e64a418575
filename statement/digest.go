package statement

import (
	"crypto/sha256"
	"fmt"
	"math/big"
)

// DigestBits is the size of a statement digest: SHA-256 truncated to its
// low 253 bits, so that it is below the BN254 scalar field order (254
// bits), the field of the final proofs whose public input it is.
const DigestBits = 253

// DigestInputSize is the number of bytes hashed into a statement digest:
// the three values as 32-byte big-endian words.
const DigestInputSize = 96

// Digest is the single public input of a final (BN254) proof: SHA-256 of
// the 96 bytes modelId ‖ inputDigest ‖ outputDigest, each a 32-byte
// big-endian word, read as a big-endian integer and reduced modulo 2²⁵³
// (its three most significant bits cleared). It is Solidity's
// uint256(sha256(abi.encode(modelId, inputDigest, outputDigest))) &
// (2**253 - 1). Every value must lie in [0, 2²⁵⁶); the circuits and the
// contracts further require them below the BN254 scalar field order.
func Digest(modelID, inputDigest, outputDigest *big.Int) (*big.Int, error) {
	return digestWords(modelID, inputDigest, outputDigest)
}

// digestWords is SHA-256 of the values as 32-byte big-endian words, its
// three most significant bits cleared.
func digestWords(values ...*big.Int) (*big.Int, error) {
	buf := make([]byte, 32*len(values))
	for i, v := range values {
		if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
			return nil, fmt.Errorf("statement: digest: value %d (%v) is not a 256-bit word", i, v)
		}
		v.FillBytes(buf[32*i : 32*(i+1)])
	}
	sum := sha256.Sum256(buf)
	sum[0] &= 0xff >> (256 - DigestBits)
	return new(big.Int).SetBytes(sum[:]), nil
}

// Digest returns the statement's digest ([Digest] of its three values).
func (s Statement) Digest() (*big.Int, error) {
	return Digest(s.ModelID, s.InputDigest, s.OutputDigest)
}

// TurnDigestInputSize is the number of bytes hashed into a turn's digest:
// its five values as 32-byte big-endian words.
const TurnDigestInputSize = 160

// EmptyState is the state in of a conversation's first turn: no row
// cached.
var EmptyState = big.NewInt(0)

// Turn is what a proof of one turn of a conversation proves: this model
// (by id), holding the conversation whose state is StateIn, on this input
// (the turn's prompt tokens), produced this output and left the state
// StateOut. A state is a digest of the committed key/value cache and its
// row count; the first turn's StateIn is [EmptyState]. Each value is below
// 2²⁵³, as in [Statement].
type Turn struct {
	ModelID      *big.Int
	StateIn      *big.Int
	InputDigest  *big.Int
	OutputDigest *big.Int
	StateOut     *big.Int
}

// String prints the turn as five hexadecimal values.
func (t Turn) String() string {
	return fmt.Sprintf("model %#064x state in %#064x input %#064x output %#064x state out %#064x", t.ModelID, t.StateIn, t.InputDigest, t.OutputDigest, t.StateOut)
}

// Digest is the single public input of a turn's final proof: SHA-256 of
// the 160 bytes modelId ‖ stateIn ‖ inputDigest ‖ outputDigest ‖ stateOut,
// each a 32-byte big-endian word, its three most significant bits
// cleared: Solidity's uint256(sha256(abi.encode(modelId, stateIn,
// inputDigest, outputDigest, stateOut))) & (2**253 - 1). A turn digest
// hashes five words and a statement digest three, so neither is the
// other's.
func (t Turn) Digest() (*big.Int, error) {
	return digestWords(t.ModelID, t.StateIn, t.InputDigest, t.OutputDigest, t.StateOut)
}
