package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

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
