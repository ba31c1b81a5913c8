//go:build perfgate_slowdown && unix

package main

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// The perf gate's own test (scripts/perf-gate.sh --calibrate) builds this
// file in to see which slowdown the gate catches: with
// AHPLS_PERF_SLOWDOWN=f the process burns CPU before it exits until it has
// used f times what its work took. Never in a release build.
func init() {
	f, err := strconv.ParseFloat(os.Getenv("AHPLS_PERF_SLOWDOWN"), 64)
	if err != nil || f <= 1 {
		return
	}
	atExit = func() {
		target := time.Duration(float64(cpuUsed()) * f)
		x := uint64(1)
		for cpuUsed() < target {
			for i := range 10000 {
				x = x*6364136223846793005 + uint64(i)
			}
		}
		sink = x
	}
}

var sink uint64

func cpuUsed() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
