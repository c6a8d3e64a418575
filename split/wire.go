package split

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tuneinsight/lattigo/v5/core/rlwe"
	"github.com/tuneinsight/lattigo/v5/ring"
	"github.com/tuneinsight/lattigo/v5/schemes/ckks"
)

// Wire format (see doc.go, "Wire format"). Every message is a fixed
// header followed by polynomials whose number and sizes the header and the
// layout determine, so a decoder knows the exact length before it reads a
// coefficient. A polynomial limb is N little-endian uint64 coefficients,
// each below its modulus. No third-party decoder ever sees untrusted bytes.

// Protocol version carried by every binary message.
const wireVersion = 1

// Message magics.
var (
	magicKeys     = [4]byte{'V', 'F', 'S', 'K'}
	magicRequest  = [4]byte{'V', 'F', 'S', 'Q'}
	magicResponse = [4]byte{'V', 'F', 'S', 'R'}
)

// ErrMalformed marks a message that does not decode.
var ErrMalformed = errors.New("split: malformed message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// limbBytes is the size of one limb.
func (l *Layout) limbBytes() int { return l.Params.N() * 8 }

// ciphertextBytes is the size of a degree-1 ciphertext at level.
func (l *Layout) ciphertextBytes(level int) int { return 2 * (level + 1) * l.limbBytes() }

// appendLimbs appends the limbs of p.
func appendLimbs(b []byte, p ring.Poly) []byte {
	for _, limb := range p.Coeffs {
		for _, c := range limb {
			b = binary.LittleEndian.AppendUint64(b, c)
		}
	}
	return b
}

// readLimbs fills p from b, checking every coefficient against its
// modulus, and returns the rest of b.
func readLimbs(b []byte, p ring.Poly, moduli []uint64) ([]byte, error) {
	for i, limb := range p.Coeffs {
		q := moduli[i]
		if len(b) < 8*len(limb) {
			return nil, malformed("truncated polynomial")
		}
		for j := range limb {
			c := binary.LittleEndian.Uint64(b[8*j:])
			if c >= q {
				return nil, malformed("coefficient %d of limb %d is not below its modulus", j, i)
			}
			limb[j] = c
		}
		b = b[8*len(limb):]
	}
	return b, nil
}

// appendCiphertext appends the two polynomials of ct.
func appendCiphertext(b []byte, ct *rlwe.Ciphertext) []byte {
	for _, p := range ct.Value {
		b = appendLimbs(b, p)
	}
	return b
}

// readCiphertext decodes a degree-1 ciphertext at level with scale and
// returns the rest of b.
func (l *Layout) readCiphertext(b []byte, level int, scale rlwe.Scale) (*rlwe.Ciphertext, []byte, error) {
	ct := l.newCiphertext(level, scale)
	q := l.Params.Q()[:level+1]
	var err error
	for _, p := range ct.Value {
		if b, err = readLimbs(b, p, q); err != nil {
			return nil, nil, err
		}
	}
	return ct, b, nil
}

// header is the common prefix of binary messages: magic, version.
func appendHeader(b []byte, magic [4]byte) []byte {
	b = append(b, magic[:]...)
	return append(b, wireVersion)
}

func readHeader(b []byte, magic [4]byte) ([]byte, error) {
	if len(b) < 5 || [4]byte(b[:4]) != magic {
		return nil, malformed("bad magic")
	}
	if b[4] != wireVersion {
		return nil, malformed("version %d, want %d", b[4], wireVersion)
	}
	return b[5:], nil
}

// galoisKeyBytes is the size of one Galois key.
func (l *Layout) galoisKeyBytes() int {
	gk := rlwe.NewGaloisKey(l.Params)
	n := 0
	for _, row := range gk.Value {
		for _, v := range row {
			for _, p := range v {
				n += (p.Q.Level() + 1 + p.P.Level() + 1) * l.limbBytes()
			}
		}
	}
	return n
}

// keysBytes is the size of a keys message.
func (l *Layout) keysBytes() int {
	return 5 + 2 + len(l.Rotations())*l.galoisKeyBytes()
}

// EncodeKeys returns the keys message: the Galois keys of
// [Layout.GaloisElements], in that order. It holds no secret.
func (l *Layout) EncodeKeys(keys []*rlwe.GaloisKey) ([]byte, error) {
	want := l.GaloisElements()
	if len(keys) != len(want) {
		return nil, fmt.Errorf("split: %d Galois keys, want %d", len(keys), len(want))
	}
	b := make([]byte, 0, l.keysBytes())
	b = appendHeader(b, magicKeys)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(keys)))
	for i, gk := range keys {
		if gk.GaloisElement != want[i] {
			return nil, fmt.Errorf("split: key %d is for Galois element %d, want %d", i, gk.GaloisElement, want[i])
		}
		for _, row := range gk.Value {
			for _, v := range row {
				for _, p := range v {
					b = appendLimbs(b, p.Q)
					b = appendLimbs(b, p.P)
				}
			}
		}
	}
	return b, nil
}

// DecodeKeys decodes a keys message into an evaluation key set.
func (l *Layout) DecodeKeys(b []byte) (*rlwe.MemEvaluationKeySet, error) {
	if len(b) != l.keysBytes() {
		return nil, malformed("keys message of %d bytes, want %d", len(b), l.keysBytes())
	}
	b, err := readHeader(b, magicKeys)
	if err != nil {
		return nil, err
	}
	els := l.GaloisElements()
	if n := int(binary.LittleEndian.Uint16(b)); n != len(els) {
		return nil, malformed("%d keys, want %d", n, len(els))
	}
	b = b[2:]
	q, p := l.Params.Q(), l.Params.P()
	keys := make([]*rlwe.GaloisKey, len(els))
	for i, el := range els {
		gk := rlwe.NewGaloisKey(l.Params)
		gk.GaloisElement = el
		for _, row := range gk.Value {
			for _, v := range row {
				for _, poly := range v {
					if b, err = readLimbs(b, poly.Q, q); err != nil {
						return nil, err
					}
					if b, err = readLimbs(b, poly.P, p); err != nil {
						return nil, err
					}
				}
			}
		}
		keys[i] = gk
	}
	return rlwe.NewMemEvaluationKeySet(nil, keys...), nil
}

// Request is one round of one layer for all rows of a pass: Cts holds,
// group after group of RowsPerCiphertext rows, the ciphertexts of the
// group's input pieces.
type Request struct {
	Layer int
	Round Round
	Rows  int
	Cts   []*rlwe.Ciphertext
}

// requestHeaderBytes: header, round, layer, rows.
const requestHeaderBytes = 5 + 1 + 2 + 2

// EncodeRequest serializes r.
func (l *Layout) EncodeRequest(r *Request) []byte {
	b := make([]byte, 0, requestHeaderBytes+len(r.Cts)*l.ciphertextBytes(inLevel))
	b = appendHeader(b, magicRequest)
	b = append(b, byte(r.Round))
	b = binary.LittleEndian.AppendUint16(b, uint16(r.Layer))
	b = binary.LittleEndian.AppendUint16(b, uint16(r.Rows))
	for _, ct := range r.Cts {
		b = appendCiphertext(b, ct)
	}
	return b
}

// requestPrefix decodes the fixed part of a request.
func requestPrefix(b []byte) (layer int, round Round, rows int, rest []byte, err error) {
	if len(b) < requestHeaderBytes {
		return 0, 0, 0, nil, malformed("request shorter than its header")
	}
	if b, err = readHeader(b, magicRequest); err != nil {
		return 0, 0, 0, nil, err
	}
	round = Round(b[0])
	layer = int(binary.LittleEndian.Uint16(b[1:]))
	rows = int(binary.LittleEndian.Uint16(b[3:]))
	return layer, round, rows, b[5:], nil
}

// DecodeRequest decodes a request for a model whose layer l has
// inputCts(round) input ciphertexts per row, given by inCts (0 for an
// unknown layer or round); rows must lie in [1, maxRows].
func (l *Layout) DecodeRequest(b []byte, inCts func(layer int, r Round) int, maxRows int) (*Request, error) {
	layer, round, rows, rest, err := requestPrefix(b)
	if err != nil {
		return nil, err
	}
	k := inCts(layer, round)
	if k == 0 {
		return nil, malformed("no round %s in layer %d", round, layer)
	}
	if rows < 1 || rows > maxRows {
		return nil, malformed("%d rows outside [1, %d]", rows, maxRows)
	}
	n := l.groups(rows) * k
	if len(rest) != n*l.ciphertextBytes(inLevel) {
		return nil, malformed("request body of %d bytes, want %d ciphertexts of %d", len(rest), n, l.ciphertextBytes(inLevel))
	}
	r := &Request{Layer: layer, Round: round, Rows: rows, Cts: make([]*rlwe.Ciphertext, n)}
	for i := range r.Cts {
		if r.Cts[i], rest, err = l.readCiphertext(rest, inLevel, nominalScale(l.Params)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// nominalScale is the scale the server attaches to input ciphertexts; the
// client never reads it back (it knows its own scales).
func nominalScale(p ckks.Parameters) rlwe.Scale { return p.DefaultScale() }

// EncodeResponse serializes the server's result ciphertexts.
func (l *Layout) EncodeResponse(cts []*rlwe.Ciphertext) []byte {
	b := make([]byte, 0, 5+4+len(cts)*l.ciphertextBytes(outLevel))
	b = appendHeader(b, magicResponse)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(cts)))
	for _, ct := range cts {
		b = appendCiphertext(b, ct)
	}
	return b
}

// DecodeResponse decodes exactly want result ciphertexts.
func (l *Layout) DecodeResponse(b []byte, want int) ([]*rlwe.Ciphertext, error) {
	b, err := readHeader(b, magicResponse)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 || int(binary.LittleEndian.Uint32(b)) != want {
		return nil, malformed("response does not hold %d ciphertexts", want)
	}
	b = b[4:]
	if len(b) != want*l.ciphertextBytes(outLevel) {
		return nil, malformed("response body of %d bytes, want %d", len(b), want*l.ciphertextBytes(outLevel))
	}
	cts := make([]*rlwe.Ciphertext, want)
	for i := range cts {
		if cts[i], b, err = l.readCiphertext(b, outLevel, nominalScale(l.Params)); err != nil {
			return nil, err
		}
	}
	return cts, nil
}
