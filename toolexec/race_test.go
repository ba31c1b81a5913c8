//go:build race

package toolexec

// raceEnabled: the race detector makes the 1,000-call test an order of
// magnitude slower; it runs without it.
const raceEnabled = true
