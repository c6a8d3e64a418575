// Package memlimit gives the Go runtime a soft memory limit of a share of
// the machine's memory when the user has set none (GOMEMLIMIT).
//
// The provers hold tables of several gigabytes, and the garbage collector
// by default lets the heap grow to twice its live size before it
// collects: a live heap of two thirds of the machine's memory is then
// killed by the kernel, although it fits. With a soft limit the
// collector runs more often as the heap nears it, and the run completes:
// the committed proof of GPT-2 small's last segment at 64 rows is killed
// without a limit, and completes with one; the verification of a
// 2²³-point phase 1 of the ceremony fits only with one.
//
// Below the limit the collector still lets the heap grow to twice its
// live size, and every byte of that growth is fresh memory, which the
// kernel (and on a virtual machine, the host) must fault in and zero:
// the committed prover's tables are large and hold no pointers, so that
// a collection costs little and fresh memory much. [Default] also sets
// the collector's target to [GCPercent] unless GOGC is set. Measured on
// GPT-2 small's last segment at 64 rows (2 cores, 24 GB): 82.9 s and a
// peak RSS of 14.9 GB with a target of 25, 89.9 s and 19.4 GB with Go's
// default of 100; after the prover's memory was cut (a live heap of
// 8.8 GB at its peak), 78.1 s and 11.9 GB with 10, 81.8–94.0 s and
// 13.2–13.7 GB with 25. The whole pass at 16 rows peaks at 4.1 GB with
// 10, 4.6 GB with 25.
package memlimit

import (
	"os"
	"runtime/debug"
)

// Share is the fraction of the machine's memory the default limit allows.
const Share = 0.85

// GCPercent is the collector's target that [Default] sets: a collection
// when the heap has grown by a tenth of its live size.
const GCPercent = 10

// Default sets the runtime's soft memory limit to [Share] of the
// machine's memory, unless GOMEMLIMIT is set (the runtime has read it) or
// the machine's memory is unknown, and the collector's target to
// [GCPercent] unless GOGC is set. It returns the limit in force
// (math.MaxInt64 when there is none).
func Default() int64 {
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := Total(); total > 0 {
			debug.SetMemoryLimit(int64(float64(total) * Share))
		}
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	return debug.SetMemoryLimit(-1)
}

// Total returns the machine's memory in bytes, 0 where it is not known
// (it is read on Linux only).
func Total() uint64 { return totalMemory() }

// PeakRSS returns the process's peak resident set size in bytes (VmHWM,
// which writing 5 to /proc/self/clear_refs resets), 0 where it is not
// known (it is read on Linux only). Used by the benchmarks of packages
// inference/committed and cmd/ceremony, which report the peak memory of a
// proof or a setup.
func PeakRSS() uint64 { return peakRSS() }
