package ahpschema

// The validator (github.com/google/jsonschema-go) works on Go values through
// reflect, which shapes two decisions in this file.
//
// Schemas are decoded by encoding/json into generic maps (so the §8.3 patches
// edit plain JSON) and converted here into jsonschema.Schema. The library's
// own Schema.UnmarshalJSON takes ~90 ms per 400 kB file; the conversion is a
// fraction of that, and it refuses every keyword it does not map, so a
// keyword the library would keep in Extra and silently not check cannot slip
// in with a schema update.
//
// Instances are decoded with UseNumber and every json.Number is replaced by
// the Go number the library compares exactly (number below): the library
// types a json.Number by its reflect kind, string, so it cannot be passed on.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// decodeJSON decodes exactly one JSON value, numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the value")
	}
	return v, nil
}

// instance replaces, in place, every json.Number of a decoded value by number's
// result and returns the value.
func instance(v any) any {
	switch x := v.(type) {
	case json.Number:
		return number(string(x))
	case map[string]any:
		for k, e := range x {
			x[k] = instance(e)
		}
	case []any:
		for i, e := range x {
			x[i] = instance(e)
		}
	}
	return v
}

// maxFraction is the largest float64 with a fractional part (2^52 - 0.5).
const maxFraction = 1<<52 - 0.5

// number converts a JSON number literal into a value whose JSON Schema type
// (integer or number), sign and order against every bound in the embedded
// schemas (all integers of magnitude < 2^52, see TestSchemaNumbersAreSmall)
// are those of the literal:
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
func number(lit string) any {
	if i, err := strconv.ParseInt(lit, 10, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(lit, 10, 64); err == nil {
		return u
	}
	f, _ := strconv.ParseFloat(lit, 64) // a valid literal fails only with ErrRange (±Inf or ±0)
	neg := len(lit) > 0 && lit[0] == '-'
	if integral(lit) {
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

// integral reports whether a JSON number literal denotes an integer, exactly:
// its last non-zero digit lies before the decimal point once the exponent is
// applied. The exponent saturates, so 1e99999999999 costs nothing.
func integral(lit string) bool {
	s := lit
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	mant, exp := s, int64(0)
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			mant = s[:i]
			e := s[i+1:]
			neg := false
			if len(e) > 0 && (e[0] == '+' || e[0] == '-') {
				neg = e[0] == '-'
				e = e[1:]
			}
			for j := 0; j < len(e); j++ {
				if exp < 1<<40 {
					exp = exp*10 + int64(e[j]-'0')
				}
			}
			if neg {
				exp = -exp
			}
			break
		}
	}
	intPart, frac := mant, ""
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			intPart, frac = mant[:i], mant[i+1:]
			break
		}
	}
	digits := intPart + frac
	last := -1
	for i := len(digits) - 1; i >= 0; i-- {
		if digits[i] != '0' {
			last = i
			break
		}
	}
	if last < 0 {
		return true // zero
	}
	return int64(last) < int64(len(intPart))+exp
}

// toSchema converts a decoded schema (a JSON object or boolean) into a
// jsonschema.Schema. at is the JSON pointer of v, for errors.
func toSchema(v any, at string) (*jsonschema.Schema, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return &jsonschema.Schema{}, nil
		}
		// The library's own form of `false`, which it recognises for
		// additionalProperties' error message.
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, nil
	case map[string]any:
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %T", at, v)
	}
	m := v.(map[string]any)
	s := &jsonschema.Schema{}
	var err error
	str := func(k string) string {
		t, ok := m[k].(string)
		if !ok && err == nil {
			err = fmt.Errorf("%s/%s: not a string", at, k)
		}
		return t
	}
	sub := func(k string) *jsonschema.Schema {
		c, e := toSchema(m[k], at+"/"+k)
		if e != nil && err == nil {
			err = e
		}
		return c
	}
	list := func(k string) []*jsonschema.Schema {
		l, ok := m[k].([]any)
		if !ok {
			if err == nil {
				err = fmt.Errorf("%s/%s: not an array", at, k)
			}
			return nil
		}
		out := make([]*jsonschema.Schema, len(l))
		for i, e := range l {
			out[i], err = toSchema(e, fmt.Sprintf("%s/%s/%d", at, k, i))
			if err != nil {
				return nil
			}
		}
		return out
	}
	named := func(k string) map[string]*jsonschema.Schema {
		o, ok := m[k].(map[string]any)
		if !ok {
			if err == nil {
				err = fmt.Errorf("%s/%s: not an object", at, k)
			}
			return nil
		}
		out := make(map[string]*jsonschema.Schema, len(o))
		for n, e := range o {
			out[n], err = toSchema(e, at+"/"+k+"/"+n)
			if err != nil {
				return nil
			}
		}
		return out
	}
	bound := func(k string) *float64 {
		n, ok := m[k].(json.Number)
		if !ok {
			if err == nil {
				err = fmt.Errorf("%s/%s: not a number", at, k)
			}
			return nil
		}
		f, e := n.Float64()
		if e != nil && err == nil {
			err = fmt.Errorf("%s/%s: %w", at, k, e)
		}
		return &f
	}
	for k, e := range m {
		switch k {
		case "$schema":
			s.Schema = str(k)
		case "$id":
			s.ID = str(k)
		case "$ref":
			s.Ref = str(k)
		case "$comment":
			s.Comment = str(k)
		case "title":
			s.Title = str(k)
		case "description":
			s.Description = str(k)
		case "$defs":
			s.Defs = named(k)
		case "properties":
			s.Properties = named(k)
		case "type":
			switch t := e.(type) {
			case string:
				s.Type = t
			case []any:
				for _, n := range t {
					name, ok := n.(string)
					if !ok {
						return nil, fmt.Errorf("%s/type: not a list of strings", at)
					}
					s.Types = append(s.Types, name)
				}
			default:
				return nil, fmt.Errorf("%s/type: not a string or a list", at)
			}
		case "required":
			l, ok := e.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/required: not an array", at)
			}
			s.Required = make([]string, len(l))
			for i, n := range l {
				if s.Required[i], ok = n.(string); !ok {
					return nil, fmt.Errorf("%s/required: not a list of strings", at)
				}
			}
		case "enum":
			l, ok := e.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/enum: not an array", at)
			}
			s.Enum = make([]any, len(l))
			for i, c := range l {
				s.Enum[i] = instance(c)
			}
		case "const":
			c := instance(e)
			s.Const = &c
		case "oneOf":
			s.OneOf = list(k)
		case "anyOf":
			s.AnyOf = list(k)
		case "allOf":
			s.AllOf = list(k)
		case "not":
			s.Not = sub(k)
		case "if":
			s.If = sub(k)
		case "then":
			s.Then = sub(k)
		case "else":
			s.Else = sub(k)
		case "items":
			s.Items = sub(k)
		case "additionalProperties":
			s.AdditionalProperties = sub(k)
		case "minimum":
			s.Minimum = bound(k)
		case "maximum":
			s.Maximum = bound(k)
		default:
			return nil, fmt.Errorf("%s: keyword %q is not supported by ahpschema's conversion", at, k)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}
