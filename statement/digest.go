package statement

import (
	"crypto/sha256"
	"fmt"
	"math/big"
)

// DigestBits is the bit length of a statement digest: the low 253 bits
// of a SHA-256 digest, below r(BN254), the final proof's one public
// input.
const DigestBits = 253

// ListBits is the bit length of a list digest: the low 250 bits of a
// SHA-256 digest, below every scalar field a proof carries it in.
const ListBits = 250

// EmptyState is the state digest of a conversation before its first
// turn.
var EmptyState = big.NewInt(0)

// digestWords returns the low DigestBits bits of SHA-256 of the values
// as 32-byte big-endian words.
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

// List returns the list of the statement's one request.
func (s Statement) List() List {
	return List{ModelID: s.ModelID, Leaves: []Leaf{RequestLeaf(s.InputDigest, s.OutputDigest)}}
}

// Digest returns the statement digest of the list of the statement's one
// request ([List.Digest]).
func (s Statement) Digest() (*big.Int, error) {
	return s.List().Digest()
}
