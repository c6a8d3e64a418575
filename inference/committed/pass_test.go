package committed

import (
	"bytes"
	"slices"
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
		proof, _, err := Prove(s, f.m, f.st, f.pass, f.tr, seg, WithPartVars(testPartVars))
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
		reported := map[int]SegmentResult{}
		calls := 0
		results, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, segs, jobs, func(k int, r SegmentResult) {
			calls++
			reported[k] = r
		}, WithPartVars(testPartVars))
		if err != nil {
			t.Fatalf("jobs %d: %v", jobs, err)
		}
		if calls != len(segs) || len(reported) != len(segs) {
			t.Fatalf("jobs %d: %d reports of %d segments for %d segments", jobs, calls, len(reported), len(segs))
		}
		for k, r := range results {
			if reported[k] != r {
				t.Fatalf("jobs %d, segment %v: the report is not the result", jobs, segs[k])
			}
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

// TestProveSegmentsErrors checks that a segment that cannot be laid out
// is refused before any is proven, that a segment whose proof fails is
// named and stops the segments not yet started, and that no segment or
// option error yields results.
func TestProveSegmentsErrors(t *testing.T) {
	f := newFixture(t, model.Default(), 4)
	s := testSRS(t, 1<<18)
	if _, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, nil, 2, nil); err == nil {
		t.Fatal("no segment accepted")
	}
	var reported []int
	report := func(k int, _ SegmentResult) { reported = append(reported, k) }
	bad := inference.Segment{From: 1, To: 5}
	results, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, []inference.Segment{{From: 0, To: 1}, bad}, 2, report)
	if err == nil || results != nil {
		t.Fatalf("a segment past the model's blocks: results %v, error %v", results, err)
	}
	if !strings.Contains(err.Error(), bad.String()) {
		t.Fatalf("the error does not name the segment %v: %v", bad, err)
	}
	if len(reported) != 0 {
		t.Fatalf("segments %v proven before a segment that cannot be laid out was refused", reported)
	}
	if _, err := ProveSegments(s, f.m, f.st, f.pass, f.tr, []inference.Segment{{From: 0, To: 1}}, 1, nil, WithPartVars(0)); err == nil {
		t.Fatal("parts of no variable accepted")
	}

	// A value outside its window in block 1's output: that segment's
	// proof fails; one job at a time, the segment after it is never
	// started.
	out := &f.tr.Layers[1].Output
	out.Data[0] = out.Min - 1
	failing := inference.Segment{From: 1, To: 2}
	segs := []inference.Segment{failing, {From: 0, To: 1}}
	results, err = ProveSegments(s, f.m, f.st, f.pass, f.tr, segs, 1, report)
	if err == nil || results != nil {
		t.Fatalf("a value outside its window: results %v, error %v", results, err)
	}
	if !strings.Contains(err.Error(), failing.String()) || !strings.Contains(err.Error(), "outside") {
		t.Fatalf("the error does not name the segment %v and the value: %v", failing, err)
	}
	if len(reported) != 0 {
		t.Fatalf("segments %v proven after a segment failed", reported)
	}
	// Both at once: the error names the failing segment whatever the
	// other one does, and the failing one is not reported.
	results, err = ProveSegments(s, f.m, f.st, f.pass, f.tr, segs, 2, report)
	if err == nil || results != nil || !strings.Contains(err.Error(), failing.String()) {
		t.Fatalf("two jobs, a value outside its window: results %v, error %v", results, err)
	}
	if slices.Contains(reported, 0) {
		t.Fatal("the segment that failed was reported as proven")
	}
}
