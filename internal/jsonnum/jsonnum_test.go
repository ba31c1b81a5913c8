package jsonnum

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNumberConversion(t *testing.T) {
	cases := []struct {
		lit  string
		want any
	}{
		{"0", int64(0)},
		{"-0", int64(0)},
		{"-1", int64(-1)},
		{"9223372036854775807", int64(math.MaxInt64)},
		{"-9223372036854775808", int64(math.MinInt64)},
		{"9223372036854775808", uint64(1 << 63)},
		{"18446744073709551615", uint64(math.MaxUint64)},
		{"18446744073709551616", float64(1 << 64)},
		{"1.0", 1.0},
		{"1e2", 100.0},
		{"100.00e-2", 1.0},
		{"1.5", 1.5},
		{"-2.5E-1", -0.25},
		{"1e400", math.MaxFloat64},
		{"-1e400", -math.MaxFloat64},
		{"1e99999999999999999999", math.MaxFloat64},
		// Non-integers whose nearest float64 is an integer.
		{"1.00000000000000000001", math.Nextafter(1, 2)},
		{"0.99999999999999999999", math.Nextafter(1, 0)},
		{"-1.00000000000000000001", math.Nextafter(-1, -2)},
		{"1e-400", math.SmallestNonzeroFloat64},
		{"-1e-400", -math.SmallestNonzeroFloat64},
		{"1e-99999999999999999999", math.SmallestNonzeroFloat64},
		{"9007199254740993.5", maxFraction},
		{"-9007199254740993.5", -maxFraction},
		{"1" + strings.Repeat("0", 400) + ".5", maxFraction},
	}
	for _, c := range cases {
		t.Run(c.lit, func(t *testing.T) {
			assert.Equal(t, c.want, Value(c.lit))
		})
	}
}

func TestIntegral(t *testing.T) {
	for lit, want := range map[string]bool{
		"0": true, "0.0": true, "0e-7": true, "10": true, "1.0": true, "1.5e1": true, "15e-1": false,
		"1.05e1": false, "120e-1": true, "123e-2": false, "-4.000": true, "0.1": false, "1e-1": false,
		"1E+3": true, "2.5": false, "1e99999999999999": true, "1.1e-99999999999999": false,
	} {
		assert.Equal(t, want, Integral(lit), lit)
	}
}

// TestCopyLeavesTheOriginal: a tool's input keeps its literals for the
// command line while the validator gets numbers.
func TestCopyLeavesTheOriginal(t *testing.T) {
	in := map[string]any{"n": json.Number("10"), "l": []any{json.Number("1.5"), "x"}, "s": "7"}
	got := Copy(in)
	assert.Equal(t, map[string]any{"n": int64(10), "l": []any{1.5, "x"}, "s": "7"}, got)
	assert.Equal(t, json.Number("10"), in["n"])
	assert.Equal(t, json.Number("1.5"), in["l"].([]any)[0])
}
