package parallel

import (
	"sync/atomic"
	"testing"
)

// Execute covers [0, n) exactly once, in ranges no shorter than minChunk
// (but the last).
func TestExecute(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100, 1 << 14} {
		for _, minChunk := range []int{0, 1, 7, 1 << 12} {
			seen := make([]int32, n)
			var calls atomic.Int32
			Execute(n, minChunk, func(start, end int) {
				calls.Add(1)
				for i := start; i < end; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d minChunk=%d: index %d visited %d times", n, minChunk, i, c)
				}
			}
			if n == 0 && calls.Load() != 0 {
				t.Fatal("work called for an empty range")
			}
		}
	}
}
