package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestDefault checks the limit set without GOMEMLIMIT (a share of the
// machine's memory on Linux, none elsewhere) and that a limit given by
// GOMEMLIMIT is kept.
func TestDefault(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)

	t.Setenv("GOMEMLIMIT", "")
	debug.SetMemoryLimit(math.MaxInt64)
	got := Default()
	if runtime.GOOS == "linux" {
		total := Total()
		if total < 1<<26 {
			t.Fatalf("the machine's memory is %d bytes", total)
		}
		if want := int64(float64(total) * Share); got != want {
			t.Fatalf("limit %d, want %d (%.1f of %d)", got, want, Share, total)
		}
	} else if got != math.MaxInt64 {
		t.Fatalf("limit %d without the machine's memory", got)
	}

	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	if got := Default(); got != 1<<30 {
		t.Fatalf("limit %d, want GOMEMLIMIT's %d", got, 1<<30)
	}
}
