// Package jsonnum turns JSON number literals into the Go numbers that
// github.com/google/jsonschema-go compares exactly. That library types a
// value by its reflect kind, so a json.Number (a string) cannot be handed to
// it, and a plain float64 loses what a schema asks: 1.00000000000000000001
// is not an integer, 1e-400 is not zero, 2^63 is not 2^63+1. ahpschema (the
// AHP frames of the test host) and tools (a tool call's input against its
// input schema) validate through it. Decimal is the exact value of a
// literal, which tools' interpreter of tools.schema.json compares bounds
// with, and which Value asks whether a literal is whole.
package jsonnum

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
)

// Copy returns v (a value decoded with UseNumber) with every json.Number
// replaced by Value's result; maps and slices are copied, so the caller's
// value keeps its literals (a tool's input is passed on as written).
func Copy(v any) any {
	switch x := v.(type) {
	case json.Number:
		return Value(string(x))
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = Copy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = Copy(e)
		}
		return a
	}
	return v
}

// maxFraction is the largest float64 with a fractional part (2^52 - 0.5).
const maxFraction = 1<<52 - 0.5

// Value converts a JSON number literal into a value whose JSON Schema type
// (integer or number), sign and order against every bound in the embedded
// schemas it is used with (integers of magnitude < 2^52) are those of the
// literal:
//
//   - an integer literal in int64 or uint64 range becomes that integer,
//     exactly (ids and sequence numbers up to 2^64-1);
//   - any other integer value (1.0, 1e2, 1e400) becomes the nearest float64,
//     clamped to ±MaxFloat64: integral, as the value is;
//   - a non-integer becomes its nearest float64, unless that float is
//     integral (1.00000000000000000001, 1e-400, 2^60+0.5), where it becomes
//     the neighbouring float on the literal's side, or ±(2^52-0.5) beyond
//     2^52: still a non-integer of the same sign.
//
// The library compares floats exactly (big.Rat), so these values decide
// type, minimum and enum as the literal would.
func Value(lit string) any {
	if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(lit, 10, 64); err == nil {
		return u
	}
	f, _ := strconv.ParseFloat(lit, 64) // a valid literal fails only with ErrRange (±Inf or ±0)
	neg := len(lit) > 0 && lit[0] == '-'
	if Integral(lit) {
		if math.IsInf(f, 0) {
			f = math.Copysign(math.MaxFloat64, f)
		}
		return f
	}
	if _, frac := math.Modf(f); frac != 0 && !math.IsNaN(frac) {
		return f
	}
	switch {
	case f == 0:
		return math.Copysign(math.SmallestNonzeroFloat64, sign(neg))
	case math.IsInf(f, 0) || math.Abs(f) >= 1<<52:
		return math.Copysign(maxFraction, sign(neg))
	}
	// 1 ≤ |f| < 2^52: the literal's exponent is bounded by its length here,
	// so the exact comparison costs no more than the literal is long.
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return f
	}
	if r.Cmp(new(big.Rat).SetFloat64(f)) > 0 {
		return math.Nextafter(f, math.Inf(1))
	}
	return math.Nextafter(f, math.Inf(-1))
}

func sign(neg bool) float64 {
	if neg {
		return -1
	}
	return 1
}

// Integral reports whether a JSON number literal denotes an integer,
// exactly, whatever its exponent (1e99999999999 costs nothing).
func Integral(lit string) bool {
	d, ok := ParseDecimal(lit)
	return ok && d.IsInteger()
}
