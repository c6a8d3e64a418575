//go:build !linux

package memlimit

// totalMemory returns 0: the machine's memory is only read on Linux.
func totalMemory() uint64 { return 0 }

// peakRSS returns 0: the peak resident set size is only read on Linux.
func peakRSS() uint64 { return 0 }
