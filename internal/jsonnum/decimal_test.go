package jsonnum

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecimal(t *testing.T) {
	cases := []struct {
		a, b string
		cmp  int
	}{
		{"0", "-0", 0},
		{"0.0", "0e10", 0},
		{"1", "1.0", 0},
		{"1024", "1.024e3", 0},
		{"10", "1024", -1},
		{"-1", "0", -1},
		{"-2", "-1", -1},
		{"3600.0000000000000001", "3600", 1},
		{"3599.9999999999999999", "3600", -1},
		{"1e999999999999999999999", "16777216", 1},
		{"-1e999999999999999999999", "0", -1},
		{"1e-999999999999999999999", "0", 1},
		{"0.5", "0.05", 1},
		{"12", "123e-1", -1},
	}
	for _, c := range cases {
		a, ok1 := ParseDecimal(c.a)
		b, ok2 := ParseDecimal(c.b)
		require.True(t, ok1 && ok2, "%s %s", c.a, c.b)
		assert.Equal(t, c.cmp, a.Cmp(b), "%s vs %s", c.a, c.b)
		assert.Equal(t, -c.cmp, b.Cmp(a), "%s vs %s", c.b, c.a)
	}
	for s, want := range map[string]bool{"1": true, "1.0": true, "1e3": true, "1.5e1": true, "1e400": true, "0.5": false, "1e-1": false, "-0.0": true, "150e-2": false} {
		d, ok := ParseDecimal(s)
		require.True(t, ok, s)
		assert.Equal(t, want, d.IsInteger(), s)
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "1e+", "0x1", "1 "} {
		_, ok := ParseDecimal(bad)
		assert.False(t, ok, bad)
	}
}
