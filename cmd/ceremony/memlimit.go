package main

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// setMemoryLimit gives the Go runtime a soft memory limit of 85% of the
// machine's memory unless GOMEMLIMIT sets one. Ceremony objects of the
// wrapper's size are gigabytes each; with the default collector pacing
// the heap may grow to twice what is live before a collection, and the
// verification of a 2^23-point phase 1 would not fit a machine that
// holds its live data. Near the limit the collector runs more often
// instead.
func setMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if total := physicalMemory(); total > 0 {
		debug.SetMemoryLimit(total / 100 * 85)
	}
}

// physicalMemory reads MemTotal from /proc/meminfo (Linux), in bytes; 0
// when it cannot.
func physicalMemory() int64 { return procBytes("/proc/meminfo", "MemTotal:") }

// procBytes reads the line "key value kB" of a /proc file (Linux), in
// bytes; 0 when it cannot.
func procBytes(path, key string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == key {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
