package committed

import (
	"fmt"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/headshapes"
	"github.com/veriformer/veriformer/internal/tier"
)

// TestPaddedHeadsSegment: the one-block segment (with the LM head) of
// each padded head layout: every dimension padded at once, Qwen2.5's
// group of 7, Qwen2's 6, Phi-3's head dimension 96, a group of 3 with
// head dimension 10. The honest proof passes the native verifier and
// solves the compiled segment circuit; the first, middle and last values
// of the proof, each changed, are rejected by both (the circuit given the
// honest proof's scalars, as in TestSegment). The constraint counts are
// snapshotted. Full tier (about 20 s per layout); the default tier proves
// and verifies the same layouts natively (inference/committed,
// TestPaddedHeads), and the circuit is the same code for every layout.
func TestPaddedHeadsSegment(t *testing.T) {
	if !tier.Full {
		t.Skip("full tier: the default tier proves these layouts natively (inference/committed)")
	}
	var records [][]string
	for _, s := range headshapes.All() {
		t.Run(s.Name, func(t *testing.T) {
			r := sharedRunOf(t, s.Name, inference.Segment{From: 0, To: 1})
			ph, as, err := r.segmentCircuits(nil)
			if err != nil {
				t.Fatal(err)
			}
			cs := compileCircuit(t, ph)
			if err := solveCompiled(cs, as); err != nil {
				t.Fatalf("the honest proof: %v", err)
			}
			honest, _, err := r.shape.VerifyField(r.m, r.st, r.proof)
			if err != nil {
				t.Fatal(err)
			}
			tampers := proofTampers(r.proof)
			for _, i := range []int{0, len(tampers) / 2, len(tampers) - 1} {
				tp := tampers[i]
				undo := bump(tp.x)
				if r.verifyNative() == nil {
					t.Errorf("%s: accepted by the native verifier", tp.name)
				}
				// With the honest proof's scalars, as TestSegment: a
				// change the field part lets through changes the
				// scalars, which the aggregator's pairing rejects.
				_, as, err := r.segmentCircuits(honest)
				if err != nil {
					t.Fatal(err)
				}
				if solveCompiled(cs, as) == nil {
					t.Errorf("%s: accepted by the circuit", tp.name)
				}
				undo()
			}
			t.Logf("%d R1CS", cs.GetNbConstraints())
			records = append(records, []string{"segment", s.Name + "/segment0-1/rows=8", fmt.Sprint(cs.GetNbConstraints())})
		})
	}
	if len(records) == len(headshapes.All()) {
		checkConstraints(t, "padded_heads", records)
	}
}
