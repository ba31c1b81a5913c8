package testrun

import "testing"

func TestMulSmall(t *testing.T) {
	if got := Mul(2, 3); got != 6 {
		t.Fatalf("Mul(2, 3) = %d, want 6", got)
	}
}

func TestMul(t *testing.T) {
	t.Log("checking 2*2")
	if got := Mul(2, 2); got != 5 {
		t.Errorf("Mul(2, 2) = %d, want 5", got)
	}
}

func TestTable(t *testing.T) {
	for _, c := range []struct{ a, b, want int }{{1, 1, 1}, {0, 9, 0}} {
		t.Run("case", func(t *testing.T) {
			if got := Mul(c.a, c.b); got != c.want {
				t.Errorf("got %d", got)
			}
		})
	}
}
