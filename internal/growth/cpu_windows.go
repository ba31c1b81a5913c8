//go:build windows

package growth

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time so far, user and kernel.
func cpuTime() time.Duration {
	var c, e, k, u syscall.Filetime
	if err := syscall.GetProcessTimes(syscall.CurrentProcess(), &c, &e, &k, &u); err != nil {
		return 0
	}
	return time.Duration(k.Nanoseconds() + u.Nanoseconds())
}
