package hugepage

import (
	"syscall"
	"unsafe"
)

// hugePageSize is the size of a transparent huge page on the platforms Go
// runs Linux on with 4 KiB base pages.
const hugePageSize = 2 << 20

// advise asks the kernel to back the whole huge pages of [p, p+n) with
// transparent huge pages. The error is dropped: the advice is a hint,
// refused by kernels built without transparent huge pages.
func advise(p unsafe.Pointer, n uintptr) {
	start := (uintptr(p) + hugePageSize - 1) &^ (hugePageSize - 1)
	end := (uintptr(p) + n) &^ (hugePageSize - 1)
	if start >= end {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
