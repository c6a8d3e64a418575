// Package hugepage allocates the prover's large tables so that the kernel
// may back them with transparent huge pages.
//
// The committed prover touches gigabytes of fresh memory per segment
// (lookup cubes, eq tables, the first fold of every sum-check, the
// opening's combinations). On virtual machines whose memory is backed
// lazily by the host, each first touch of a 4 KiB page is a fault of
// about 12 µs — measured: writing 2 GiB of fresh memory takes 6.3 s there,
// against 0.12 s for the same writes to resident memory — so that a
// GPT-2-small block segment spends several seconds faulting. Where the
// kernel's transparent huge pages are in "madvise" mode (as on the
// machines measured here, and the default of several distributions),
// Go's heap gets none: the runtime does not advise it. [Make]
// allocates with make and advises the allocation's whole 2 MiB pages
// (madvise MADV_HUGEPAGE on Linux), so that its first touch faults once
// per 2 MiB: the same 2 GiB then take 2.5–3.9 s.
//
// The advice changes no value: the slice is an ordinary Go slice, zeroed
// and collected as any other. It covers only the 2 MiB-aligned pages
// inside the allocation (the runtime's own memory around it is left as
// it is), it applies only from [Threshold] bytes on, and a kernel that
// refuses it (no transparent huge pages, another system) leaves the
// allocation as make returned it.
package hugepage

import "unsafe"

// Threshold is the smallest allocation, in bytes, that is advised: below
// two huge pages the aligned part is too small to matter.
const Threshold = 4 << 20

// Make returns make([]T, n), its 2 MiB-aligned pages advised for huge
// pages when it spans at least Threshold bytes. It is meant for the
// prover's tables of field elements, integers and curve points.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); n > 0 && size >= Threshold {
		advise(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}
