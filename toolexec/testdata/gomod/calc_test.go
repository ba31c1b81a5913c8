package calc

import "testing"

func TestDouble(t *testing.T) {
	for _, n := range []int{0, 1, 21} {
		if got := Double(n); got != 2*n {
			t.Fatalf("Double(%d) = %d", n, got)
		}
		t.Logf("Double(%d) ok", n)
	}
}
