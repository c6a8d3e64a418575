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

// ListBits is the size of a batch's list digest ([Batch.ListDigest]):
// SHA-256 truncated to its low 250 bits, the same integer in the scalar
// fields of BN254, BLS12-377 and BW6-761, so that any circuit of the
// chain may compute it.
const ListBits = 250

// MaxBatch bounds the number of inferences of one batch; the registry
// refuses larger ones.
const MaxBatch = 1 << 12

// Batch is what one proof of many inferences of one model proves: the
// model ModelID, on the input whose digest is Inputs[i], produced the
// output whose digest is Outputs[i], for each i. Each value is below
// 2²⁵³, as in [Statement]; the order is the batch's.
type Batch struct {
	ModelID *big.Int
	Inputs  []*big.Int
	Outputs []*big.Int
}

// Len is the number of inferences in the batch.
func (b Batch) Len() int { return len(b.Inputs) }

// Statement returns the batch's i-th inference as a statement.
func (b Batch) Statement(i int) Statement {
	return Statement{ModelID: b.ModelID, InputDigest: b.Inputs[i], OutputDigest: b.Outputs[i]}
}

// Check checks that the batch has between 1 and [MaxBatch] inferences,
// as many inputs as outputs, and every value set, non-negative and of
// at most 256 bits.
func (b Batch) Check() error {
	if len(b.Inputs) != len(b.Outputs) {
		return fmt.Errorf("statement: a batch of %d inputs and %d outputs", len(b.Inputs), len(b.Outputs))
	}
	if n := len(b.Inputs); n == 0 || n > MaxBatch {
		return fmt.Errorf("statement: a batch of %d inferences, want 1 to %d", n, MaxBatch)
	}
	if !isWord(b.ModelID) {
		return fmt.Errorf("statement: batch: model id %v is not a 256-bit word", b.ModelID)
	}
	for i := range b.Inputs {
		if !isWord(b.Inputs[i]) || !isWord(b.Outputs[i]) {
			return fmt.Errorf("statement: batch: inference %d (%v, %v) is not two 256-bit words", i, b.Inputs[i], b.Outputs[i])
		}
	}
	return nil
}

// isWord reports whether v is set and in [0, 2²⁵⁶).
func isWord(v *big.Int) bool { return v != nil && v.Sign() >= 0 && v.BitLen() <= 256 }

// ListDigest is the digest of the batch's inferences: SHA-256 of n ‖ in₁ ‖
// out₁ ‖ … ‖ inₙ ‖ outₙ, each a 32-byte big-endian word (n the count),
// its low [ListBits] bits. In Solidity: uint256(sha256(abi.encodePacked(n,
// pairs))) & (2**250 - 1) for pairs a uint256[2][] in memory. The pairs
// are interleaved so that a batch of fewer inferences is a prefix: a
// circuit sized for m inferences hashes the first 32 + 64n bytes of its
// buffer.
func (b Batch) ListDigest() (*big.Int, error) {
	if err := b.Check(); err != nil {
		return nil, err
	}
	n := b.Len()
	buf := make([]byte, 32+64*n)
	new(big.Int).SetInt64(int64(n)).FillBytes(buf[:32])
	for i := range n {
		b.Inputs[i].FillBytes(buf[32+64*i : 64+64*i])
		b.Outputs[i].FillBytes(buf[64+64*i : 96+64*i])
	}
	sum := sha256.Sum256(buf)
	sum[0] &= 0xff >> (256 - ListBits)
	return new(big.Int).SetBytes(sum[:]), nil
}

// Digest is the single public input of a batch's final proof: SHA-256 of
// the 64 bytes modelId ‖ listDigest ([Batch.ListDigest]), its three most
// significant bits cleared: Solidity's uint256(sha256(abi.encode(modelId,
// listDigest))) & (2**253 - 1). A batch digest hashes two words, a
// statement digest three and a turn digest five, so none is another's.
func (b Batch) Digest() (*big.Int, error) {
	list, err := b.ListDigest()
	if err != nil {
		return nil, err
	}
	return BatchDigestOfList(b.ModelID, list)
}

// BatchDigestOfList is the second step of [Batch.Digest]: SHA-256 of
// modelId ‖ list, its three most significant bits cleared, for the list
// digest list of a batch of the model.
func BatchDigestOfList(modelID, list *big.Int) (*big.Int, error) {
	return digestWords(modelID, list)
}
