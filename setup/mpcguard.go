package setup

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	bw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761"
)

// gnark's ceremony decoders size their buffers from counts read off the
// stream (the domain size of phase 1 and of the SRS commons, the slice
// lengths of phase 2) before any point is read, so a few hostile bytes can
// ask for terabytes. The guards below read those counts first — walking the
// points before them one at a time — and compare them with what the circuit
// or the domain size allows; the decoder then reads the replayed prefix and
// the rest of the stream.

// pointSkipper reads single curve points (compressed or not) off a stream.
type pointSkipper struct {
	g1, g2 func(io.Reader) error
}

func skipperOf(curve ecc.ID) (pointSkipper, error) {
	switch curve {
	case ecc.BN254:
		return pointSkipper{
			g1: func(r io.Reader) error {
				var p bn254.G1Affine
				return bn254.NewDecoder(r, bn254.NoSubgroupChecks()).Decode(&p)
			},
			g2: func(r io.Reader) error {
				var p bn254.G2Affine
				return bn254.NewDecoder(r, bn254.NoSubgroupChecks()).Decode(&p)
			},
		}, nil
	case ecc.BLS12_377:
		return pointSkipper{
			g1: func(r io.Reader) error {
				var p bls12377.G1Affine
				return bls12377.NewDecoder(r, bls12377.NoSubgroupChecks()).Decode(&p)
			},
			g2: func(r io.Reader) error {
				var p bls12377.G2Affine
				return bls12377.NewDecoder(r, bls12377.NoSubgroupChecks()).Decode(&p)
			},
		}, nil
	case ecc.BW6_761:
		return pointSkipper{
			g1: func(r io.Reader) error {
				var p bw6761.G1Affine
				return bw6761.NewDecoder(r, bw6761.NoSubgroupChecks()).Decode(&p)
			},
			g2: func(r io.Reader) error {
				var p bw6761.G2Affine
				return bw6761.NewDecoder(r, bw6761.NoSubgroupChecks()).Decode(&p)
			},
		}, nil
	default:
		return pointSkipper{}, errMPCCurve
	}
}

// prefixReader records what it reads so the prefix can be replayed.
type prefixReader struct {
	r   io.Reader
	buf bytes.Buffer
}

func (p *prefixReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.buf.Write(b[:n])
	return n, err
}

// replay returns a reader of the recorded prefix followed by the rest.
func (p *prefixReader) replay() io.Reader {
	return io.MultiReader(bytes.NewReader(p.buf.Bytes()), p.r)
}

func readUint(r io.Reader, v any) error {
	return binary.Read(r, binary.BigEndian, v)
}

// guardPhase1 checks that a phase-1 object (three update proofs, each a G1
// and a G2 point, then the domain size) has domain size n.
func guardPhase1(curve ecc.ID, n uint64, r io.Reader) (io.Reader, error) {
	skip, err := skipperOf(curve)
	if err != nil {
		return nil, err
	}
	p := &prefixReader{r: r}
	for i := range 3 {
		if err := skip.g1(p); err != nil {
			return nil, fmt.Errorf("setup: mpc: phase 1 update proof %d: %w", i, err)
		}
		if err := skip.g2(p); err != nil {
			return nil, fmt.Errorf("setup: mpc: phase 1 update proof %d: %w", i, err)
		}
	}
	var got uint64
	if err := readUint(p, &got); err != nil {
		return nil, fmt.Errorf("setup: mpc: phase 1 domain size: %w", err)
	}
	if got != n {
		return nil, fmt.Errorf("setup: mpc: phase 1 object of domain size %d, want %d", got, n)
	}
	return p.replay(), nil
}

// guardCommons checks that SRS commons (the domain size first) have domain
// size n.
func guardCommons(n uint64, r io.Reader) (io.Reader, error) {
	p := &prefixReader{r: r}
	var got uint64
	if err := readUint(p, &got); err != nil {
		return nil, fmt.Errorf("setup: mpc: commons domain size: %w", err)
	}
	if got != n {
		return nil, fmt.Errorf("setup: mpc: commons of domain size %d, the circuit needs %d", got, n)
	}
	return p.replay(), nil
}

// guardPhase2 checks the counts of a phase-2 object of a circuit of the
// given shape: the number of commitments, then (after δ in G1) the lengths
// of the slices PKK and Z, (after δ in G2) one slice per commitment. No
// honest slice is longer than the circuit's wires plus its domain size.
func guardPhase2(shape Phase2Shape, r io.Reader) (io.Reader, error) {
	skip, err := skipperOf(shape.Curve)
	if err != nil {
		return nil, err
	}
	nbCommitments := shape.Commitments
	bound := shape.MaxPoints
	p := &prefixReader{r: r}
	var count uint16
	if err := readUint(p, &count); err != nil {
		return nil, fmt.Errorf("setup: mpc: phase 2 commitments: %w", err)
	}
	if int(count) != nbCommitments {
		return nil, fmt.Errorf("setup: mpc: phase 2 object with %d commitments, the circuit has %d", count, nbCommitments)
	}
	slice := func(name string) error {
		var length uint32
		if err := readUint(p, &length); err != nil {
			return fmt.Errorf("setup: mpc: phase 2 %s length: %w", name, err)
		}
		if uint64(length) > bound {
			return fmt.Errorf("setup: mpc: phase 2 %s of %d points, at most %d for this circuit", name, length, bound)
		}
		for i := range length {
			if err := skip.g1(p); err != nil {
				return fmt.Errorf("setup: mpc: phase 2 %s point %d: %w", name, i, err)
			}
		}
		return nil
	}
	if err := skip.g1(p); err != nil {
		return nil, fmt.Errorf("setup: mpc: phase 2 δ: %w", err)
	}
	if err := slice("PKK"); err != nil {
		return nil, err
	}
	if err := slice("Z"); err != nil {
		return nil, err
	}
	if err := skip.g2(p); err != nil {
		return nil, fmt.Errorf("setup: mpc: phase 2 δ: %w", err)
	}
	for i := range nbCommitments {
		if err := slice(fmt.Sprintf("commitment key %d", i)); err != nil {
			return nil, err
		}
	}
	return p.replay(), nil
}
