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
// the Go number the library compares exactly (internal/jsonnum): the library
// types a json.Number by its reflect kind, string, so it cannot be passed on.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ahpls-dev/ahpls/internal/jsonnum"
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
				s.Enum[i] = jsonnum.Copy(c)
			}
		case "const":
			c := jsonnum.Copy(e)
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
