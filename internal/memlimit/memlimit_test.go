package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestDefault checks the limit set without GOMEMLIMIT (a share of the
// machine's memory on Linux, none elsewhere) and that a limit given by
// GOMEMLIMIT is kept; and the collector's target, set without GOGC and
// kept with it.
func TestDefault(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)

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

	for _, c := range []struct {
		env       string
		set, want int
	}{{"", 100, GCPercent}, {"150", 150, 150}} {
		t.Setenv("GOGC", c.env)
		debug.SetGCPercent(c.set)
		Default()
		if got := debug.SetGCPercent(c.set); got != c.want {
			t.Errorf("GOGC=%q: the collector's target is %d, want %d", c.env, got, c.want)
		}
	}
}

// TestPeakRSS checks that the peak resident set size is read on Linux
// and covers memory the process has touched.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		if PeakRSS() != 0 {
			t.Fatal("a peak RSS off Linux")
		}
		return
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	if got := PeakRSS(); got < uint64(len(buf)) {
		t.Fatalf("peak RSS %d bytes after touching %d", got, len(buf))
	}
	runtime.KeepAlive(buf)
}
