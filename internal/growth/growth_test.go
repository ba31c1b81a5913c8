package growth

import (
	"os"
	"testing"
)

// spin does work proportional to k, out of the compiler's reach.
func spin(k int) {
	x := uint64(1)
	for i := range k * 2000 {
		x = x*6364136223846793005 + uint64(i)
	}
	sink = x
}

var sink uint64

// TestLinearPasses: a linear path passes.
func TestLinearPasses(t *testing.T) {
	if os.Getenv(Env) != "" {
		t.Skip("the variant is for the complexity tests")
	}
	Linear(t, 2000, func(_ testing.TB, n int) func() { return func() { spin(n) } })
}

// TestQuadraticFails: a quadratic path fails (run against a throwaway
// testing.T whose verdict is read back).
func TestQuadraticFails(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("complexity test: not under -race or -short")
	}
	if os.Getenv(Env) != "" {
		t.Skip("the variant is for the complexity tests")
	}
	var inner testing.T
	done := make(chan struct{})
	go func() {
		defer close(done)
		Linear(&inner, 100, func(_ testing.TB, n int) func() { return func() { spin(n * n / 10) } })
	}()
	<-done
	if !inner.Failed() {
		t.Fatal("a quadratic path passed")
	}
}
