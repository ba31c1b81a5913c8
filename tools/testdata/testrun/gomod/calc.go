// Package testrun is the Go fixture of the built-in test runner: one
// failing test (TestMul), the rest pass.
package testrun

// Mul returns a*b.
func Mul(a, b int) int { return a * b }
