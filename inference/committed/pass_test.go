package committed

import (
	"bytes"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
)

// TestProveSegments checks that segments proven at once are the proofs
// Prove makes one by one, in the order of the segments, and that they
// verify as a pass.
func TestProveSegments(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	var want [][]byte
	for _, seg := range segs {
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg)
		if err != nil {
			t.Fatalf("segment %v: %v", seg, err)
		}
		data, err := proof.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, data)
	}
	// 0 counts as 1 (one segment at a time); 3 as 2, the segments' count
	// (both at once).
	for _, jobs := range []int{0, 3} {
		results, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, segs, jobs)
		if err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
		if len(results) != len(segs) {
			t.Fatalf("jobs %d: %d results for %d segments", jobs, len(results), len(segs))
		}
		proofs := make([]*Proof, len(results))
		for k, r := range results {
			if r.Timings == nil || r.Wall <= 0 {
				t.Fatalf("jobs %d, segment %v: no timings", jobs, segs[k])
			}
			data, err := r.Proof.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, want[k]) {
				t.Fatalf("jobs %d, segment %v: not the proof Prove makes", jobs, segs[k])
			}
			proofs[k] = r.Proof
		}
		if err := VerifyPass(testKey(t, s, f.m), f.m, f.st, f.pass, segs, proofs); err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
	}
}

// TestProveSegmentsErrors checks that a segment that cannot be proven is
// named, and that no segment or option error yields results.
func TestProveSegmentsErrors(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	if _, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, nil, 2); err == nil {
		t.Fatal("no segment accepted")
	}
	bad := inference.Segment{From: 1, To: 5}
	results, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, []inference.Segment{{From: 0, To: 1}, bad}, 2)
	if err == nil || results != nil {
		t.Fatalf("a segment past the model's blocks: results %v, error %v", results, err)
	}
	if !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("the error does not name the segment %v: %v", bad, err)
	}
	if _, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, []inference.Segment{{From: 0, To: 1}}, 1, WithPartVars(0)); err == nil {
		t.Fatal("parts of no variable accepted")
	}
}
