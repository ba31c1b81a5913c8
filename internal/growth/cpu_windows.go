//go:build windows

package growth

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time so far, user and kernel.
func cpuTime() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var c, e, k, u syscall.Filetime
	if err := syscall.GetProcessTimes(h, &c, &e, &k, &u); err != nil {
		return 0
	}
	return interval(k) + interval(u)
}

// interval reads a FILETIME that holds a duration (100-ns ticks), not a
// date: Filetime.Nanoseconds would subtract the 1601 epoch from it.
func interval(f syscall.Filetime) time.Duration {
	return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
}
