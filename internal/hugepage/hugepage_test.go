package hugepage

import (
	"bufio"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestMakeIsMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, Threshold / 32, Threshold/32 + 1, 3 << 20} {
		s := Make[[4]uint64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Make(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != [4]uint64{} {
				t.Fatalf("Make(%d): entry %d is not zero", n, i)
			}
			s[i][0] = uint64(i)
		}
		for i := range s {
			if s[i][0] != uint64(i) {
				t.Fatalf("Make(%d): entry %d lost its value", n, i)
			}
		}
	}
}

// TestMakeAdvises checks, where the kernel gives transparent huge pages on
// advice, that a large table's mapping carries the advice (the "hg" flag
// of /proc/self/smaps). Whether the kernel then backs it with huge pages
// depends on the free memory it finds in 2 MiB blocks at that moment, so
// the count of huge pages is logged, not required.
func TestMakeAdvises(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("transparent huge pages are a Linux advice")
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		t.Skipf("no transparent huge pages: %v", err)
	}
	if strings.Contains(string(mode), "[never]") {
		t.Skip("transparent huge pages are off on this machine")
	}
	const size = 64 << 20
	s := Make[[4]uint64](size / 32)
	for i := 0; i < len(s); i += 128 { // one write per 4 KiB page
		s[i][0] = 1
	}
	// The middle of the table: its first and last partial huge pages are
	// left unadvised, in mappings of their own.
	kb, flags := mappingOf(t, uintptr(unsafe.Pointer(&s[len(s)/2])))
	runtime.KeepAlive(s)
	if !slices.Contains(flags, "hg") {
		t.Fatalf("a %d MiB table's mapping is not advised for huge pages (flags %v, mode %q)", size>>20, flags, strings.TrimSpace(string(mode)))
	}
	t.Logf("%d kB of the mapping in huge pages", kb)
}

// mappingOf returns AnonHugePages and the VmFlags of the mapping of
// /proc/self/smaps that holds addr.
func mappingOf(t *testing.T, addr uintptr) (int, []string) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside, found := false, false
	kb := 0
	var flags []string
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				inside = uint64(addr) >= a && uint64(addr) < b
				found = found || inside
				continue
			}
		}
		if !inside {
			continue
		}
		switch fields[0] {
		case "AnonHugePages:":
			if len(fields) >= 2 {
				if kb, err = strconv.Atoi(fields[1]); err != nil {
					t.Fatalf("smaps: %v", err)
				}
			}
		case "VmFlags:":
			flags = fields[1:]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("no mapping of /proc/self/smaps holds %#x", addr)
	}
	return kb, flags
}
