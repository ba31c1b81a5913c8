// Package calc is the tiny module the go_test tool runs in toolexec tests.
package calc

// Double returns 2n.
func Double(n int) int { return 2 * n }
