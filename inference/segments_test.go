package inference

import (
	"slices"
	"testing"
)

// TestSegments: the cut of a pass into segments of a size, the last
// shorter, and the refusal of empty cuts.
func TestSegments(t *testing.T) {
	segs, err := Segments(5, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Segment{{From: 0, To: 2}, {From: 2, To: 4}, {From: 4, To: 5}}; !slices.Equal(segs, want) {
		t.Fatalf("segments %v, want %v", segs, want)
	}
	if !segs[2].HasHead(5) || segs[1].HasHead(5) || segs[0].Chunk() {
		t.Fatalf("head and chunks of %v", segs)
	}
	for _, c := range [][2]int{{0, 1}, {3, 0}, {-1, 2}} {
		if _, err := Segments(c[0], c[1]); err == nil {
			t.Errorf("Segments(%d, %d) accepted", c[0], c[1])
		}
	}
	chunked, err := ChunkedSegments(2, 1, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{{From: 0, To: 1}, {From: 1, To: 2, NoHead: true}, {From: 2, To: 2, VocabFrom: 0, VocabTo: 2}, {From: 2, To: 2, VocabFrom: 2, VocabTo: 4}, {From: 2, To: 2, VocabFrom: 4, VocabTo: 5}}
	if !slices.Equal(chunked, want) {
		t.Fatalf("chunked %v, want %v", chunked, want)
	}
	if chunked[1].HasHead(2) || !chunked[3].HasHead(2) || !chunked[3].Chunk() {
		t.Fatalf("head and chunks of %v", chunked)
	}
}
