package reduce

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"time"
)

// Decode parses JSON into the generic form used by Apply: objects
// map[string]any, arrays []any, numbers json.Number (so int64 and uint32 values
// survive exactly), strings, bools, nil. Trailing data after the value is an
// error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("reduce: trailing data after JSON value")
	}
	return v, nil
}

type object = map[string]any

// obj returns v as an object, or nil when it is anything else.
func obj(v any) object {
	m, _ := v.(map[string]any)
	return m
}

// arr returns v as an array; ok is false when v is not one.
func arr(v any) ([]any, bool) {
	a, ok := v.([]any)
	return a, ok
}

// str returns m[k] when it is a string.
func str(m object, k string) (string, bool) {
	s, ok := m[k].(string)
	return s, ok
}

// val returns m[k] treating a null like an absent key, which is how the
// reference reducers' `action.x ?? fallback` reads optional fields.
func val(m object, k string) (any, bool) {
	v, ok := m[k]
	if !ok || v == nil {
		return nil, false
	}
	return v, true
}

// truthy mirrors a JavaScript `if (x)` on a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0 && !math.IsNaN(f)
	case float64:
		return x != 0 && !math.IsNaN(x)
	case int:
		return x != 0
	case int64:
		return x != 0
	default:
		return true
	}
}

// clone makes a shallow copy of m with room for extra keys.
func clone(m object) object {
	c := make(object, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	return c
}

// cloneArr makes a shallow copy of a with room for one more element.
func cloneArr(a []any) []any {
	c := make([]any, len(a), len(a)+1)
	copy(c, a)
	return c
}

// set writes v under k, or deletes k when v is nil (the reference's
// "undefined").
func set(m object, k string, v any) {
	if v == nil {
		delete(m, k)
		return
	}
	m[k] = v
}

// toUint32 reads a status bitset. JavaScript bit operators work on 32-bit
// integers, so any number is reduced modulo 2^32 like the reference does.
func toUint32(v any) uint32 {
	switch x := v.(type) {
	case json.Number:
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return uint32(u)
		}
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return uint32(i)
		}
		if f, err := x.Float64(); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return uint32(int64(math.Trunc(math.Mod(f, 1<<32))))
		}
	case float64:
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return uint32(int64(math.Trunc(math.Mod(x, 1<<32))))
		}
	case int:
		return uint32(x)
	case int64:
		return uint32(x)
	case uint32:
		return x
	case uint64:
		return uint32(x)
	}
	return 0
}

func numberU32(u uint32) json.Number {
	return json.Number(strconv.FormatUint(uint64(u), 10))
}

// clampNonNegative returns a duration clamped at zero, keeping the original
// spelling when it is already non-negative. A non-number yields nil (the
// reference produces NaN, which JSON encodes as null).
func clampNonNegative(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsNaN(f) {
			return nil
		}
		if f < 0 {
			return json.Number("0")
		}
		return x
	case float64:
		if math.IsNaN(x) {
			return nil
		}
		if x < 0 {
			return json.Number("0")
		}
		return x
	case int:
		if x < 0 {
			return json.Number("0")
		}
		return x
	case int64:
		if x < 0 {
			return json.Number("0")
		}
		return x
	}
	return nil
}

// isoNow formats the clock like JavaScript's Date.prototype.toISOString.
func isoNow(now Clock) string {
	var t time.Time
	if now != nil {
		t = now()
	} else {
		t = time.Now()
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
