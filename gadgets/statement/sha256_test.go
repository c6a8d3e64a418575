package statement

import (
	"crypto/sha256"
	"encoding/binary"
	mbits "math/bits"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"
)

// nativeSHA256 is SHA-256 of a message of whole 64-byte blocks already
// padded, from the constants and nativeSchedule of the gadget.
func nativeSHA256(padded []byte) [32]byte {
	h := sha256IV
	for len(padded) > 0 {
		var block [16]uint32
		for i := range block {
			block[i] = binary.BigEndian.Uint32(padded[4*i:])
		}
		w := nativeSchedule(block)
		a, b, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
		for t := range 64 {
			s1 := mbits.RotateLeft32(e, -6) ^ mbits.RotateLeft32(e, -11) ^ mbits.RotateLeft32(e, -25)
			t1 := hh + s1 + (e&f ^ ^e&g) + sha256K[t] + w[t]
			s0 := mbits.RotateLeft32(a, -2) ^ mbits.RotateLeft32(a, -13) ^ mbits.RotateLeft32(a, -22)
			t2 := s0 + (a&b ^ a&c ^ b&c)
			hh, g, f, e, d, c, b, a = g, f, e, d+t1, c, b, a, t1+t2
		}
		for k, x := range [8]uint32{a, b, c, d, e, f, g, hh} {
			h[k] += x
		}
		padded = padded[64:]
	}
	var out [32]byte
	for k, x := range h {
		binary.BigEndian.PutUint32(out[4*k:], x)
	}
	return out
}

// pad is SHA-256's padding of msg.
func pad(msg []byte) []byte {
	out := append(append([]byte(nil), msg...), 0x80)
	for len(out)%64 != 56 {
		out = append(out, 0)
	}
	return binary.BigEndian.AppendUint64(out, uint64(8*len(msg)))
}

// TestNativeSHA256 checks the round constants, the initial value and
// nativeSchedule against crypto/sha256.
func TestNativeSHA256(t *testing.T) {
	for _, n := range []int{0, 3, 55, 56, 64, 119, 200} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(7*i + n)
		}
		if nativeSHA256(pad(msg)) != sha256.Sum256(msg) {
			t.Fatalf("%d bytes: digests differ", n)
		}
	}
}

// sha256Circuit states SHA-256 of a message of 32-bit words, as the
// digest's eight words.
type sha256Circuit struct {
	Words  []frontend.Variable
	Digest [8]frontend.Variable `gnark:",public"`
}

func (c *sha256Circuit) Define(api frontend.API) error {
	msg := make([]u32, len(c.Words))
	for i, w := range c.Words {
		copy(msg[i][:], api.ToBinary(w, 32))
	}
	h := sha256Words(api, msg)
	for k := range h {
		api.AssertIsEqual(termOf(api, h[k]).v, c.Digest[k])
	}
	return nil
}

// TestSHA256Words checks sha256Words against crypto/sha256 on BN254 with
// the test engine for messages of 0 to 17 words, across the padding's
// cases (one or two padding blocks, a block of padding alone), and that
// a changed word of the digest is rejected.
func TestSHA256Words(t *testing.T) {
	r := ecc.BN254.ScalarField()
	for _, n := range []int{0, 1, 13, 14, 16, 17} {
		c := &sha256Circuit{Words: make([]frontend.Variable, n)}
		msg := make([]byte, 4*n)
		for i := range n {
			x := uint32(0x9e3779b9 * uint32(i+1))
			binary.BigEndian.PutUint32(msg[4*i:], x)
			c.Words[i] = x
		}
		sum := sha256.Sum256(msg)
		for k := range c.Digest {
			c.Digest[k] = binary.BigEndian.Uint32(sum[4*k:])
		}
		if err := test.IsSolved(&sha256Circuit{Words: make([]frontend.Variable, n)}, c, r); err != nil {
			t.Fatalf("%d words: %v", n, err)
		}
		c.Digest[3] = c.Digest[3].(uint32) ^ 1
		if test.IsSolved(&sha256Circuit{Words: make([]frontend.Variable, n)}, c, r) == nil {
			t.Fatalf("%d words: a changed digest accepted", n)
		}
	}
}
