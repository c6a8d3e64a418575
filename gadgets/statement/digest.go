package statement

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	native "github.com/veriformer/veriformer/statement"
)

// digestBits matches statement.DigestBits.
const digestBits = 253

// Digest returns the statement digest of one request, that of the list
// of the one request (inputDigest, outputDigest) of the model modelID
// (statement.Statement.Digest): DigestOfList(modelID, ListDigestOf(the
// request's leaf)). The field must have more than 253 bits. Cost:
// ListDigestOf of one request and DigestOfList.
func Digest(api frontend.API, modelID, inputDigest, outputDigest frontend.Variable) (frontend.Variable, error) {
	list, err := ListDigestOf(api, []Leaf{{Kind: native.KindRequest, Input: inputDigest, Output: outputDigest}})
	if err != nil {
		return nil, err
	}
	return DigestOfList(api, modelID, list)
}

// DigestOfList returns the statement digest of the model modelID and the
// list digest list (statement.DigestOfList, the second step of
// statement.List.Digest): SHA-256 of the two values as 32-byte
// big-endian words, its low 253 bits. Each value is asserted below 2²⁵⁶
// by its decomposition, canonical (below the field's order) in a field
// of at most 256 bits, so the words hashed are those of the integers a
// contract receives. The field must have more than 253 bits. It uses
// field arithmetic alone, neither lookups nor commitments. Cost: two
// decompositions of 257 constraints (more for the canonical comparison),
// about 26 400 constraints for the message block and about 19 200 for
// the padding block, whose message is constant.
func DigestOfList(api frontend.API, modelID, list frontend.Variable) (frontend.Variable, error) {
	if fieldBits := api.Compiler().FieldBitLen(); fieldBits <= digestBits {
		return nil, fmt.Errorf("statement: statement digest over a %d-bit field, want more than %d bits", fieldBits, digestBits)
	}
	id, l := wordOf(api, modelID, 256), wordOf(api, list, 256)
	return digestValue(api, sha256Words(api, append(id[:], l[:]...)), digestBits), nil
}
