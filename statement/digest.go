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
	var buf [DigestInputSize]byte
	for i, v := range []*big.Int{modelID, inputDigest, outputDigest} {
		if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
			return nil, fmt.Errorf("statement: digest: value %d (%v) is not a 256-bit word", i, v)
		}
		v.FillBytes(buf[32*i : 32*(i+1)])
	}
	sum := sha256.Sum256(buf[:])
	sum[0] &= 0xff >> (256 - DigestBits)
	return new(big.Int).SetBytes(sum[:]), nil
}

// Digest returns the statement's digest ([Digest] of its three values).
func (s Statement) Digest() (*big.Int, error) {
	return Digest(s.ModelID, s.InputDigest, s.OutputDigest)
}
