//go:build race

package growth

// raceEnabled: the race detector's bookkeeping changes what a path costs;
// the complexity tests run without it (in the perf gate step of .ci/run).
const raceEnabled = true
