//go:build !unix

package split

import "time"

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }
