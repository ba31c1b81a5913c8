// Package calc is the example workspace's tiny module: the demo's
// test-runner tool runs its tests.
package calc

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Mul returns a × b.
func Mul(a, b int) int { return a * b }
