// Package growth is for complexity tests: it runs a path at a size n and
// at 4n and fails the test when the path's cost grows more than linearly
// (the shapes of #42: many findings on one line, many entries in one
// file, deep nesting). Tests only.
//
// Cost is the CPU time of the whole process (user and system, every
// thread, the garbage collector included), not wall time, so other work
// on a shared machine slows a run without charging it. Each size is
// measured as the minimum over several runs after a warm-up, the fixed
// cost (the path at size 1) is subtracted, and a ratio above Limit is
// measured again before it fails: noise has to strike every attempt in
// the same direction to fake a failure, while a quadratic step
// (4n costs 16× n) fails every attempt.
package growth

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Limit is the largest (cost(4n) - cost(1)) / (cost(n) - cost(1)) a
// linear path may show: 4 when linear, 16 when quadratic. 6.5 leaves
// linear paths 60% for noise and catches a quadratic step that is a
// fifth of the cost at n.
const Limit = 6.5

// Env, set to "quadratic", turns every complexity test into its
// deliberately quadratic variant (see Linear); the test must then fail.
const Env = "AHPLS_GROWTH_INJECT"

const (
	repeats  = 5
	attempts = 3
)

// Build prepares the input of size n (outside the measurement) and
// returns the run to measure; run must do the whole path each time.
type Build func(tb testing.TB, n int) (run func())

// Linear fails t when the cost of build's run grows more than linearly
// from n to 4n. Pick n so that the run at n costs at least some tens of
// milliseconds of CPU: the fixed cost is subtracted, but the clock's
// resolution is not.
//
// With Env=quadratic each run is followed by size/n extra runs of the
// same path at the same size: cost size²/n, what re-walking the whole
// input once per chunk of it would cost. It must fail: that is the
// test's evidence that it can see a quadratic step in this path.
func Linear(t *testing.T, n int, build Build) {
	t.Helper()
	if testing.Short() {
		t.Skip("complexity test: not in -short")
	}
	if raceEnabled {
		t.Skip("complexity test: not under -race (.ci/run runs them without it, beside the perf gate)")
	}
	inject := os.Getenv(Env) == "quadratic"
	tries := attempts
	if inject {
		tries = 1 // a quadratic path fails every attempt; one shows it
	}
	var last string
	for attempt := 1; attempt <= tries; attempt++ {
		c1 := measure(t, build, 1, n, inject)
		cn := measure(t, build, n, n, inject)
		c4 := measure(t, build, 4*n, n, inject)
		ratio := float64(c4-c1) / float64(max(cn-c1, time.Microsecond))
		last = fmt.Sprintf("n=%d: cost(1)=%v cost(n)=%v cost(4n)=%v ratio=%.2f (limit %.1f, linear 4, quadratic 16)%s",
			n, c1, cn, c4, ratio, Limit, injected(inject))
		t.Log(last)
		if ratio <= Limit {
			return
		}
	}
	t.Errorf("cost grows more than linearly (%d attempts): %s", tries, last)
}

func injected(inject bool) string {
	if inject {
		return " [quadratic variant]"
	}
	return ""
}

// measure is the least CPU time of repeats runs at size (after one
// warm-up run).
func measure(t *testing.T, build Build, size, n int, inject bool) time.Duration {
	run := build(t, size)
	extra := 0
	if inject {
		extra = size / n
	}
	once := func() {
		run()
		for range extra {
			run()
		}
	}
	once()
	best := time.Duration(1<<63 - 1)
	for range repeats {
		// Each run starts from a collected heap and runs with the
		// collector off, so its cost is the path's own work (allocation
		// included) and not when the collector happens to run: with it
		// on, an earlier run's garbage was charged to whichever run met
		// it (TestGrowthYAMLNesting read 5.5-10 on a linear path), and
		// after a forced collection a small run met no cycle while a
		// large one met several (TestGrowthAgentTree read 6.7-8.2 in CI).
		runtime.GC()
		gc := debug.SetGCPercent(-1)
		before := cpuTime()
		once()
		best = min(best, cpuTime()-before)
		debug.SetGCPercent(gc)
	}
	return best
}
