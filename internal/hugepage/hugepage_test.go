package hugepage

import (
	"bufio"
	"os"
	"runtime"
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
// advice, that a large table's touched pages are huge ones.
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
	kb := anonHugeKB(t, uintptr(unsafe.Pointer(&s[len(s)/2])))
	runtime.KeepAlive(s)
	if kb == 0 {
		t.Fatalf("a %d MiB table touched in full holds no huge page (mode %q)", size>>20, strings.TrimSpace(string(mode)))
	}
	t.Logf("%d kB of the mapping in huge pages", kb)
}

// anonHugeKB returns AnonHugePages of the mapping of /proc/self/smaps that
// holds addr.
func anonHugeKB(t *testing.T, addr uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
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
				continue
			}
		}
		if inside && fields[0] == "AnonHugePages:" && len(fields) >= 2 {
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatalf("smaps: %v", err)
			}
			return kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping of /proc/self/smaps holds %#x", addr)
	return 0
}
