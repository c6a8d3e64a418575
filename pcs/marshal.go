package pcs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bls12-377/fr"

	"github.com/veriformer/veriformer/sumcheck"
)

// Encoding (all integers big-endian):
//
//	Proof:      n (4 bytes) · Folds (n−1 points) · Quotient (1 point) · Evaluations (3n scalars, row by row)
//	GroupProof: rounds (4 bytes) · values per round (4 bytes) · the round values · Proof
//
// A point is gnark-crypto's 48-byte compressed G1 encoding, a scalar the
// 32-byte canonical encoding of an Fr element. Decoding refuses
// non-canonical encodings and points outside G1, so a decoded proof
// re-encodes to the same bytes.

const (
	pointSize  = bls12377.SizeOfG1AffineCompressed
	scalarSize = fr.Bytes
	// maxRoundValues bounds the values per sum-check round a decoder
	// accepts (the grouping sum-check sends 2).
	maxRoundValues = 8
)

var errShort = errors.New("pcs: decode: input too short")

// MarshalBinary encodes the proof.
func (p *Proof) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	p.encode(&buf)
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes a proof encoded by [Proof.MarshalBinary]; the
// whole input must be consumed.
func (p *Proof) UnmarshalBinary(data []byte) error {
	rest, err := p.decode(data)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("pcs: decode: %d trailing bytes", len(rest))
	}
	return nil
}

// MarshalBinary encodes the proof.
func (p *GroupProof) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	width := 0
	if len(p.SumCheck.Rounds) > 0 {
		width = len(p.SumCheck.Rounds[0])
	}
	for i, r := range p.SumCheck.Rounds {
		if len(r) != width {
			return nil, fmt.Errorf("pcs: encode: round %d has %d values, round 0 has %d", i, len(r), width)
		}
	}
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p.SumCheck.Rounds))))
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(width)))
	for _, r := range p.SumCheck.Rounds {
		for i := range r {
			b := r[i].Bytes()
			buf.Write(b[:])
		}
	}
	p.Opening.encode(&buf)
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes a proof encoded by [GroupProof.MarshalBinary];
// the whole input must be consumed.
func (p *GroupProof) UnmarshalBinary(data []byte) error {
	if len(data) < 8 {
		return errShort
	}
	rounds := binary.BigEndian.Uint32(data)
	width := binary.BigEndian.Uint32(data[4:])
	data = data[8:]
	if rounds > MaxNbVars || width > maxRoundValues {
		return fmt.Errorf("pcs: decode: %d rounds of %d values, at most %d of %d", rounds, width, MaxNbVars, maxRoundValues)
	}
	if uint64(rounds)*uint64(width)*scalarSize > uint64(len(data)) {
		return errShort
	}
	sc := sumcheck.Proof[fr.Element]{Rounds: make([][]fr.Element, rounds)}
	for i := range sc.Rounds {
		sc.Rounds[i] = make([]fr.Element, width)
		for k := range sc.Rounds[i] {
			var err error
			if data, err = decodeScalar(&sc.Rounds[i][k], data); err != nil {
				return fmt.Errorf("pcs: decode: round %d value %d: %w", i, k, err)
			}
		}
	}
	var opening Proof
	rest, err := opening.decode(data)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("pcs: decode: %d trailing bytes", len(rest))
	}
	p.SumCheck, p.Opening = sc, opening
	return nil
}

func (p *Proof) encode(buf *bytes.Buffer) {
	buf.Write(binary.BigEndian.AppendUint32(nil, uint32(len(p.Evaluations))))
	for i := range p.Folds {
		b := p.Folds[i].Bytes()
		buf.Write(b[:])
	}
	b := p.Quotient.Bytes()
	buf.Write(b[:])
	for i := range p.Evaluations {
		for j := range p.Evaluations[i] {
			b := p.Evaluations[i][j].Bytes()
			buf.Write(b[:])
		}
	}
}

// decode reads a proof from the front of data and returns the rest. The
// length n is bounded by MaxNbVars and by the bytes left (each unit of n
// takes at least one point and three scalars) before anything is allocated.
func (p *Proof) decode(data []byte) ([]byte, error) {
	if len(data) < 4 {
		return nil, errShort
	}
	n := binary.BigEndian.Uint32(data)
	data = data[4:]
	if n < 1 || n > MaxNbVars {
		return nil, fmt.Errorf("pcs: decode: %d variables, want 1 to %d", n, MaxNbVars)
	}
	if need := uint64(n-1+1)*pointSize + uint64(3*n)*scalarSize; need > uint64(len(data)) {
		return nil, errShort
	}
	var err error
	folds := make([]bls12377.G1Affine, n-1)
	for i := range folds {
		if data, err = decodePoint(&folds[i], data); err != nil {
			return nil, fmt.Errorf("pcs: decode: fold %d: %w", i+1, err)
		}
	}
	var quotient bls12377.G1Affine
	if data, err = decodePoint(&quotient, data); err != nil {
		return nil, fmt.Errorf("pcs: decode: quotient: %w", err)
	}
	evaluations := make([][3]fr.Element, n)
	for i := range evaluations {
		for j := range evaluations[i] {
			if data, err = decodeScalar(&evaluations[i][j], data); err != nil {
				return nil, fmt.Errorf("pcs: decode: evaluation %d.%d: %w", i, j, err)
			}
		}
	}
	p.Folds, p.Quotient, p.Evaluations = folds, quotient, evaluations
	return data, nil
}

// decodePoint reads one compressed G1 point, checked to be in G1 and
// canonically encoded.
func decodePoint(p *bls12377.G1Affine, data []byte) ([]byte, error) {
	if len(data) < pointSize {
		return nil, errShort
	}
	if data[0]&(0b100<<5) == 0 {
		return nil, errors.New("point is not compressed")
	}
	if _, err := p.SetBytes(data[:pointSize]); err != nil {
		return nil, err
	}
	if b := p.Bytes(); !bytes.Equal(b[:], data[:pointSize]) {
		return nil, errors.New("non-canonical point encoding")
	}
	return data[pointSize:], nil
}

// decodeScalar reads one canonical Fr element.
func decodeScalar(x *fr.Element, data []byte) ([]byte, error) {
	if len(data) < scalarSize {
		return nil, errShort
	}
	if err := x.SetBytesCanonical(data[:scalarSize]); err != nil {
		return nil, err
	}
	return data[scalarSize:], nil
}
