// Package gofixture is the tiny module the go-test tool runs in tests.
package gofixture

// Add returns a+b.
func Add(a, b int) int { return a + b }
