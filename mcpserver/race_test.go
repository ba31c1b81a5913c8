//go:build race

package mcpserver

// raceEnabled: the race detector keeps shadow memory for what a test
// touches, so resident-size targets are measured without it (.ci/run runs
// them in its perf-gate step).
const raceEnabled = true
