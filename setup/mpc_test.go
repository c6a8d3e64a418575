package setup

import (
	"bytes"
	"io"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
)

// ceremonyRun holds the serialized objects of one MPC run.
type ceremonyRun struct {
	n       uint64
	phase1  [][]byte // contributions, in order
	commons []byte
	phase2  [][]byte
}

// runCeremony runs the documented MPC flow for ccs with two participants per
// phase, up to the phase-2 contributions.
func runCeremony(t *testing.T, curve ecc.ID, ccs constraint.ConstraintSystem) *ceremonyRun {
	t.Helper()
	run := &ceremonyRun{n: DomainSize(ccs)}
	var prev bytes.Buffer
	if err := Phase1Init(curve, run.n, &prev); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var next bytes.Buffer
		if err := Phase1Contribute(curve, run.n, bytes.NewReader(prev.Bytes()), &next, []byte("a contributor's own entropy")); err != nil {
			t.Fatal(err)
		}
		run.phase1 = append(run.phase1, bytes.Clone(next.Bytes()))
		prev = next
	}
	var commons bytes.Buffer
	if err := Phase1Seal(curve, run.n, []byte("beacon 1"), readers(run.phase1), &commons); err != nil {
		t.Fatal(err)
	}
	run.commons = commons.Bytes()

	prev.Reset()
	if err := Phase2Init(ccs, bytes.NewReader(run.commons), &prev); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var next bytes.Buffer
		if err := Phase2Contribute(ShapeOf(ccs), bytes.NewReader(prev.Bytes()), &next, nil); err != nil {
			t.Fatal(err)
		}
		run.phase2 = append(run.phase2, bytes.Clone(next.Bytes()))
		prev = next
	}
	return run
}

func readers(bs [][]byte) []io.Reader {
	out := make([]io.Reader, len(bs))
	for i := range bs {
		out[i] = bytes.NewReader(bs[i])
	}
	return out
}

func TestMPC(t *testing.T) {
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BW6_761} {
		t.Run(curve.String(), func(t *testing.T) {
			ccs := compileCubic(t, curve)
			run := runCeremony(t, curve, ccs)
			pk, vk, err := Phase2Seal(ccs, bytes.NewReader(run.commons), []byte("beacon 2"), readers(run.phase2))
			if err != nil {
				t.Fatal(err)
			}
			proveCubic(t, curve, ccs, pk, vk)

			// Sealed keys go into the cache, where LoadOrSetup finds them.
			dir := t.TempDir()
			if _, err := Store(ccs, dir, pk, vk, Manifest{Kind: Ceremony, Ceremony: &Transcript{}}); err != nil {
				t.Fatal(err)
			}
			cached, err := LoadOrSetup(ccs, dir, WithKind(Ceremony))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(vkBytes(t, vk), vkBytes(t, cached.VK)) {
				t.Fatal("LoadOrSetup did not return the ceremony's keys")
			}

			// A contribution left out breaks the chain of phase 1.
			var sink bytes.Buffer
			if err := Phase1Seal(curve, run.n, []byte("beacon 1"), readers(run.phase1[1:]), &sink); err == nil {
				t.Error("phase 1 sealed without its first contribution")
			}
			// Contributions out of order break phase 2.
			if _, _, err := Phase2Seal(ccs, bytes.NewReader(run.commons), []byte("beacon 2"), readers([][]byte{run.phase2[1], run.phase2[0]})); err == nil {
				t.Error("phase 2 sealed with contributions out of order")
			}
			// A changed byte in a contribution is caught.
			tampered := bytes.Clone(run.phase2[1])
			tampered[len(tampered)/2] ^= 1
			if _, _, err := Phase2Seal(ccs, bytes.NewReader(run.commons), []byte("beacon 2"), readers([][]byte{run.phase2[0], tampered})); err == nil {
				t.Error("phase 2 sealed with a tampered contribution")
			}
		})
	}
}

func TestMPCErrors(t *testing.T) {
	var sink bytes.Buffer
	if err := Phase1Init(ecc.BN254, 3, &sink); err == nil {
		t.Error("domain size 3 accepted")
	}
	if err := Phase1Init(ecc.BLS12_381, 4, &sink); err == nil {
		t.Error("BLS12-381 accepted")
	}
	if err := Phase1Seal(ecc.BN254, 4, nil, nil, &sink); err == nil {
		t.Error("phase 1 sealed without contributions")
	}
	// Commons too small for the circuit.
	ccs := compileCubic(t, ecc.BN254)
	var p1, c1, commons bytes.Buffer
	if err := Phase1Init(ecc.BN254, 1, &sink); err == nil {
		t.Error("domain size 1 accepted")
	}
	if err := Phase1Init(ecc.BN254, 2, &p1); err != nil {
		t.Fatal(err)
	}
	if err := Phase1Contribute(ecc.BN254, 4, bytes.NewReader(p1.Bytes()), &c1, nil); err == nil {
		t.Error("contribution to a phase 1 of another domain size")
	}
	if err := Phase1Contribute(ecc.BN254, 2, &p1, &c1, nil); err != nil {
		t.Fatal(err)
	}
	if err := Phase1Seal(ecc.BN254, 2, []byte("b"), []io.Reader{&c1}, &commons); err != nil {
		t.Fatal(err)
	}
	if err := Phase2Init(ccs, &commons, &sink); err == nil {
		t.Error("phase 2 initialised from commons of another domain size")
	}
}

// FuzzPhase1Contribute feeds arbitrary bytes to the phase-1 decoder: it
// must fail cleanly, never panic nor allocate by a hostile count.
func FuzzPhase1Contribute(f *testing.F) {
	var p bytes.Buffer
	if err := Phase1Init(ecc.BN254, 2, &p); err != nil {
		f.Fatal(err)
	}
	f.Add(p.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		_ = Phase1Contribute(ecc.BN254, 2, bytes.NewReader(data), &out, nil)
	})
}

// FuzzPhase2Contribute does the same for the phase-2 decoder.
func FuzzPhase2Contribute(f *testing.F) {
	ccs := compileCubic(f, ecc.BN254)
	n := DomainSize(ccs)
	var p1, c1, commons, p2 bytes.Buffer
	if err := Phase1Init(ecc.BN254, n, &p1); err != nil {
		f.Fatal(err)
	}
	if err := Phase1Contribute(ecc.BN254, n, &p1, &c1, nil); err != nil {
		f.Fatal(err)
	}
	if err := Phase1Seal(ecc.BN254, n, []byte("b"), []io.Reader{&c1}, &commons); err != nil {
		f.Fatal(err)
	}
	if err := Phase2Init(ccs, &commons, &p2); err != nil {
		f.Fatal(err)
	}
	f.Add(p2.Bytes())
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		_ = Phase2Contribute(ShapeOf(ccs), bytes.NewReader(data), &out, nil)
	})
}
