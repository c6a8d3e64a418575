package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	cmpcbls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377/mpcsetup"
	"github.com/consensys/gnark-crypto/ecc/bn254"
	cmpcbn254 "github.com/consensys/gnark-crypto/ecc/bn254/mpcsetup"
	bw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761"
	cmpcbw6761 "github.com/consensys/gnark-crypto/ecc/bw6-761/mpcsetup"
	mpcbls12377 "github.com/consensys/gnark/backend/groth16/bls12-377/mpcsetup"
	mpcbn254 "github.com/consensys/gnark/backend/groth16/bn254/mpcsetup"
	mpcbw6761 "github.com/consensys/gnark/backend/groth16/bw6-761/mpcsetup"
	"github.com/consensys/gnark/constraint"

	"github.com/veriformer/veriformer/internal/memlimit"
	"github.com/veriformer/veriformer/setup"
)

var benchCircuit = flag.String("ceremony.circuit", "aggregator", "circuit of BenchmarkPhase2Contribute: direct, segment, aggregator or wrapper")

// phase2Sizes are the lengths of a circuit's phase-2 object as gnark's
// Phase2.Initialize makes them: Z (domain − 1 points), PKK (the private
// wires neither committed nor commitments) and one σ-basis per commitment.
type phase2Sizes struct {
	z, pkk int
	ckk    []int
}

func sizesOf(ccs constraint.ConstraintSystem) phase2Sizes {
	internal, secret, _ := ccs.GetNbVariables()
	commitments := ccs.GetCommitments().(constraint.Groth16Commitments)
	s := phase2Sizes{z: int(setup.DomainSize(ccs)) - 1}
	committed := 0
	for _, c := range commitments {
		s.ckk = append(s.ckk, len(c.PrivateCommitted))
		committed += len(c.PrivateCommitted)
	}
	s.pkk = internal + secret - committed - len(commitments)
	return s
}

func (s phase2Sizes) points() int {
	n := s.z + s.pkk
	for _, k := range s.ckk {
		n += k
	}
	return n
}

// syntheticPhase2 writes a phase-2 object of the sizes of ccs whose points
// are the generators — what phase2 new would write, without evaluating the
// circuit's polynomials at τ (which costs far more than a contribution
// and is done once). A contribution's work, one scalar multiplication per
// point, its proofs, reading and writing, is the same on it.
func syntheticPhase2(ccs constraint.ConstraintSystem, w io.Writer) error {
	s := sizesOf(ccs)
	switch setup.ShapeOf(ccs).Curve {
	case ecc.BN254:
		_, _, g1, g2 := bn254.Generators()
		var p mpcbn254.Phase2
		p.Parameters.G1.Delta, p.Parameters.G2.Delta = g1, g2
		p.Parameters.G1.Z = repeat(s.z, g1)
		p.Parameters.G1.PKK = repeat(s.pkk, g1)
		for _, k := range s.ckk {
			p.Parameters.G1.SigmaCKK = append(p.Parameters.G1.SigmaCKK, repeat(k, g1))
			p.Parameters.G2.Sigma = append(p.Parameters.G2.Sigma, g2)
		}
		p.Sigmas = make([]cmpcbn254.UpdateProof, len(s.ckk))
		_, err := p.WriteTo(w)
		return err
	case ecc.BLS12_377:
		_, _, g1, g2 := bls12377.Generators()
		var p mpcbls12377.Phase2
		p.Parameters.G1.Delta, p.Parameters.G2.Delta = g1, g2
		p.Parameters.G1.Z = repeat(s.z, g1)
		p.Parameters.G1.PKK = repeat(s.pkk, g1)
		for _, k := range s.ckk {
			p.Parameters.G1.SigmaCKK = append(p.Parameters.G1.SigmaCKK, repeat(k, g1))
			p.Parameters.G2.Sigma = append(p.Parameters.G2.Sigma, g2)
		}
		p.Sigmas = make([]cmpcbls12377.UpdateProof, len(s.ckk))
		_, err := p.WriteTo(w)
		return err
	case ecc.BW6_761:
		_, _, g1, g2 := bw6761.Generators()
		var p mpcbw6761.Phase2
		p.Parameters.G1.Delta, p.Parameters.G2.Delta = g1, g2
		p.Parameters.G1.Z = repeat(s.z, g1)
		p.Parameters.G1.PKK = repeat(s.pkk, g1)
		for _, k := range s.ckk {
			p.Parameters.G1.SigmaCKK = append(p.Parameters.G1.SigmaCKK, repeat(k, g1))
			p.Parameters.G2.Sigma = append(p.Parameters.G2.Sigma, g2)
		}
		p.Sigmas = make([]cmpcbw6761.UpdateProof, len(s.ckk))
		_, err := p.WriteTo(w)
		return err
	}
	return fmt.Errorf("curve %s", setup.ShapeOf(ccs).Curve)
}

// repeat returns n copies of g.
func repeat[T any](n int, g T) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = g
	}
	return out
}

// BenchmarkPhase2Contribute measures one phase-2 contribution to the
// circuit -ceremony.circuit (default the aggregator; the wrapper's
// compilation alone takes minutes and gigabytes) on an object of its
// exact sizes, and reports the points, the processor time per point and
// the peak resident memory of the contribution alone (the peak is reset
// after the circuit is compiled and the object built: Linux only).
//
//	go test ./cmd/ceremony -run '^$' -bench Phase2Contribute -benchtime 1x -ceremony.circuit wrapper -timeout 60m
func BenchmarkPhase2Contribute(b *testing.B) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	f := addCircuitFlags(fs)
	if err := fs.Parse([]string{"--circuit", *benchCircuit}); err != nil {
		b.Fatal(err)
	}
	ccs, name, err := f.compileTarget(io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	var obj bytes.Buffer
	if err := syntheticPhase2(ccs, &obj); err != nil {
		b.Fatal(err)
	}
	shape, sizes := setup.ShapeOf(ccs), sizesOf(ccs)
	b.Logf("%s: %d R1CS, phase-2 object of %d points (Z %d, PKK %d, σ-bases %v), %d bytes", name, ccs.GetNbConstraints(), sizes.points(), sizes.z, sizes.pkk, sizes.ckk, obj.Len())
	ccs = nil
	runtime.GC()
	debug.FreeOSMemory()
	resetPeak := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	cpu := processorTime()
	for b.Loop() {
		if err := setup.Phase2Contribute(shape, bytes.NewReader(obj.Bytes()), io.Discard, nil); err != nil {
			b.Fatal(err)
		}
	}
	cpu = processorTime() - cpu
	b.ReportMetric(float64(sizes.points()), "points")
	b.ReportMetric(cpu/float64(b.N)/float64(sizes.points())*1e6, "cpu-µs/point")
	if peak := memlimit.PeakRSS(); resetPeak && peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	}
}

// processorTime is the process's user and system time, in seconds.
func processorTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
