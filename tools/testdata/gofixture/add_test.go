package gofixture

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d, want 5", got)
	}
}

// TestBroken fails on purpose: the tool must report failure from the exit code.
func TestBroken(t *testing.T) {
	t.Log("about to fail")
	if got := Add(2, 2); got != 5 {
		t.Errorf("Add(2, 2) = %d, want 5 (deliberately wrong expectation)", got)
	}
}
