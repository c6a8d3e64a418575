//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where transparent huge pages are not a Linux
// madvise advice.
func advise(unsafe.Pointer, uintptr) {}
