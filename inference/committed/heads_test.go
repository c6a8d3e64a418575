package committed

import (
	"errors"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/headshapes"
)

// TestPaddedHeads: a one-block Llama of each padded head layout
// (Qwen2.5's group of 7, Qwen2's 6, Phi-3's head dimension 96, a group
// of 3 with head dimension 10, every dimension padded at once) proven in
// one segment with its LM head, 3 + 3 tokens in a bucket of 8, verifies;
// a rotated query changed in a padding column is rejected. The segment
// circuits of these proofs are checked value by value in gadgets/committed
// (TestPaddedHeadsSegment, full tier).
func TestPaddedHeads(t *testing.T) {
	srs := testSRS(t, 1<<18)
	for _, s := range headshapes.All() {
		t.Run(s.Name, func(t *testing.T) {
			m, err := s.Model()
			if err != nil {
				t.Fatal(err)
			}
			req, tr, st := bucketRequest(t, m, 3, 3, 8)
			vk := testKey(t, srs, m)
			segs := []inference.Segment{{From: 0, To: 1}}
			proof, _, err := Prove(srs, m, st, req, tr, segs[0], WithPartVars(testPartVars))
			if err != nil {
				t.Fatal(err)
			}
			if err := VerifyPass(vk, m, st, req, segs, []*Proof{proof}); err != nil {
				t.Fatalf("honest proof: %v", err)
			}
			// A trace whose rotated queries are not zero in a padding
			// column: proven, rejected.
			col, err := headshapes.PaddingColumn(&m.Config)
			if err != nil {
				t.Fatal(err)
			}
			out := tr.Layers[0].RopeQ.Out.Data
			out[col]++
			defer func() { out[col]-- }()
			forged, _, err := Prove(srs, m, st, req, tr, segs[0], WithPartVars(testPartVars))
			if err != nil {
				t.Fatalf("a rotated query in padding column %d: the prover stopped: %v", col, err)
			}
			if err := VerifyPass(vk, m, st, req, segs, []*Proof{forged}); !errors.Is(err, ErrRejected) {
				t.Fatalf("a rotated query in padding column %d: %v", col, err)
			}
		})
	}
}
