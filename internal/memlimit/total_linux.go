package memlimit

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// totalMemory returns the machine's memory in bytes (0 if unknown).
func totalMemory() uint64 {
	var info syscall.Sysinfo_t
	if err := syscall.Sysinfo(&info); err != nil {
		return 0
	}
	return uint64(info.Totalram) * uint64(info.Unit)
}

// peakRSS returns VmHWM of /proc/self/status in bytes (0 if unknown).
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "VmHWM:" {
			kib, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kib << 10
		}
	}
	return 0
}
