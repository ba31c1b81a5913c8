//go:build !unix

package toolexec

import "time"

// cpuTime is not measured here (the batch benchmark reports 0).
func cpuTime() time.Duration { return 0 }
