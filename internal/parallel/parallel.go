// Package parallel splits index ranges across goroutines.
package parallel

import (
	"runtime"
	"sync"
)

// Execute calls work on disjoint sub-ranges [start, end) covering [0, n),
// on up to GOMAXPROCS goroutines. Ranges shorter than minChunk are not split
// further, so small inputs run inline on the calling goroutine.
func Execute(n, minChunk int, work func(start, end int)) {
	if minChunk < 1 {
		minChunk = 1
	}
	workers := runtime.GOMAXPROCS(0)
	if w := n / minChunk; w < workers {
		workers = w
	}
	if workers <= 1 {
		if n > 0 {
			work(0, n)
		}
		return
	}
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for start := 0; start < n; start += chunk {
		end := min(start+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(start, end)
		}()
	}
	wg.Wait()
}
