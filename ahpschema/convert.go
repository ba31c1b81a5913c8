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
		c := &conv{m: x, at: at}
		s := &jsonschema.Schema{}
		for k, e := range x {
			if err := c.keyword(s, k, e); err != nil {
				return nil, err
			}
			if c.err != nil {
				return nil, c.err
			}
		}
		return s, nil
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %T", at, v)
	}
}

// conv converts the keywords of one schema object m found at at; err is
// the first problem its readers met.
type conv struct {
	m   map[string]any
	at  string
	err error
}

// keyword sets keyword k (value e) on s.
func (c *conv) keyword(s *jsonschema.Schema, k string, e any) error {
	at := c.at
	switch k {
	case "$schema":
		s.Schema = c.str(k)
	case "$id":
		s.ID = c.str(k)
	case "$ref":
		s.Ref = c.str(k)
	case "$comment":
		s.Comment = c.str(k)
	case "title":
		s.Title = c.str(k)
	case "description":
		s.Description = c.str(k)
	case "$defs":
		s.Defs = c.named(k)
	case "properties":
		s.Properties = c.named(k)
	case "type":
		switch t := e.(type) {
		case string:
			s.Type = t
		case []any:
			for _, n := range t {
				name, ok := n.(string)
				if !ok {
					return fmt.Errorf("%s/type: not a list of strings", at)
				}
				s.Types = append(s.Types, name)
			}
		default:
			return fmt.Errorf("%s/type: not a string or a list", at)
		}
	case "required":
		l, ok := e.([]any)
		if !ok {
			return fmt.Errorf("%s/required: not an array", at)
		}
		s.Required = make([]string, len(l))
		for i, n := range l {
			if s.Required[i], ok = n.(string); !ok {
				return fmt.Errorf("%s/required: not a list of strings", at)
			}
		}
	case "enum":
		l, ok := e.([]any)
		if !ok {
			return fmt.Errorf("%s/enum: not an array", at)
		}
		s.Enum = make([]any, len(l))
		for i, c := range l {
			s.Enum[i] = jsonnum.Copy(c)
		}
	case "const":
		c := jsonnum.Copy(e)
		s.Const = &c
	case "oneOf":
		s.OneOf = c.list(k)
	case "anyOf":
		s.AnyOf = c.list(k)
	case "allOf":
		s.AllOf = c.list(k)
	case "not":
		s.Not = c.sub(k)
	case "if":
		s.If = c.sub(k)
	case "then":
		s.Then = c.sub(k)
	case "else":
		s.Else = c.sub(k)
	case "items":
		s.Items = c.sub(k)
	case "additionalProperties":
		s.AdditionalProperties = c.sub(k)
	case "minimum":
		s.Minimum = c.bound(k)
	case "maximum":
		s.Maximum = c.bound(k)
	default:
		return fmt.Errorf("%s: keyword %q is not supported by ahpschema's conversion", at, k)
	}
	return nil
}

func (c *conv) str(k string) string {
	t, ok := c.m[k].(string)
	if !ok && c.err == nil {
		c.err = fmt.Errorf("%s/%s: not a string", c.at, k)
	}
	return t
}

func (c *conv) sub(k string) *jsonschema.Schema {
	s, e := toSchema(c.m[k], c.at+"/"+k)
	if e != nil && c.err == nil {
		c.err = e
	}
	return s
}

func (c *conv) list(k string) []*jsonschema.Schema {
	l, ok := c.m[k].([]any)
	if !ok {
		if c.err == nil {
			c.err = fmt.Errorf("%s/%s: not an array", c.at, k)
		}
		return nil
	}
	out := make([]*jsonschema.Schema, len(l))
	for i, e := range l {
		var err error
		out[i], err = toSchema(e, fmt.Sprintf("%s/%s/%d", c.at, k, i))
		if err != nil {
			c.err = err
			return nil
		}
	}
	return out
}

func (c *conv) named(k string) map[string]*jsonschema.Schema {
	o, ok := c.m[k].(map[string]any)
	if !ok {
		if c.err == nil {
			c.err = fmt.Errorf("%s/%s: not an object", c.at, k)
		}
		return nil
	}
	out := make(map[string]*jsonschema.Schema, len(o))
	for n, e := range o {
		var err error
		out[n], err = toSchema(e, c.at+"/"+k+"/"+n)
		if err != nil {
			c.err = err
			return nil
		}
	}
	return out
}

func (c *conv) bound(k string) *float64 {
	n, ok := c.m[k].(json.Number)
	if !ok {
		if c.err == nil {
			c.err = fmt.Errorf("%s/%s: not a number", c.at, k)
		}
		return nil
	}
	f, e := n.Float64()
	if e != nil && c.err == nil {
		c.err = fmt.Errorf("%s/%s: %w", c.at, k, e)
	}
	return &f
}
