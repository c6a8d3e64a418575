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
package memlimit

import (
	"os"
	"runtime/debug"
)

// Share is the fraction of the machine's memory the default limit allows.
const Share = 0.85

// Default sets the runtime's soft memory limit to [Share] of the
// machine's memory, unless GOMEMLIMIT is set (the runtime has read it) or
// the machine's memory is unknown. It returns the limit in force
// (math.MaxInt64 when there is none).
func Default() int64 {
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := Total(); total > 0 {
			debug.SetMemoryLimit(int64(float64(total) * Share))
		}
	}
	return debug.SetMemoryLimit(-1)
}

// Total returns the machine's memory in bytes, 0 where it is not known
// (it is read on Linux only).
func Total() uint64 { return totalMemory() }
