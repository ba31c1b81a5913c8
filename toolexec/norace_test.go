//go:build !race

package toolexec

const raceEnabled = false
