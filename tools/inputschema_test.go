package tools

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A $ref outside the schema is refused, by the library when it has no
// Loader and by compileInput, and nothing is fetched or read: the server
// counts requests and the file is a valid schema that would resolve.
func TestInputSchemaNeverLoads(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"type":"string"}`))
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "s.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"type":"string"}`), 0o644))
	fileURL := "file://" + filepath.ToSlash(file)
	if !strings.HasPrefix(filepath.ToSlash(file), "/") {
		fileURL = "file:///" + filepath.ToSlash(file)
	}

	schemas := map[string]string{
		"http":                   `{"type":"object","properties":{"a":{"$ref":"` + srv.URL + `/s.json"}}}`,
		"http fragment":          `{"$ref":"` + srv.URL + `/s.json#/$defs/x"}`,
		"file":                   `{"type":"object","properties":{"a":{"$ref":"` + fileURL + `"}}}`,
		"relative":               `{"$ref":"other.json"}`,
		"relative to remote $id": `{"$id":"` + srv.URL + `/base.json","properties":{"a":{"$ref":"s.json"}}}`,
	}
	for name, s := range schemas {
		t.Run(name, func(t *testing.T) {
			_, err := compileInput([]byte(s))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "must point inside the input schema")

			// The library on its own, with no Loader at all.
			var sch jsonschema.Schema
			require.NoError(t, json.Unmarshal([]byte(s), &sch))
			_, err = sch.Resolve(nil)
			assert.Error(t, err, "Resolve(nil)")
			_, err = sch.Resolve(&jsonschema.ResolveOptions{BaseURI: inputSchemaURL})
			assert.Error(t, err, "Resolve without Loader")
		})
	}
	assert.Zero(t, hits.Load(), "nothing may be fetched")
}

func TestInputSchemaLocalRefs(t *testing.T) {
	cases := []struct {
		name, schema string
	}{
		{"$defs", `{"$defs":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/$defs/s"}}}`},
		{"absolute $id", `{"$id":"https://example.com/t.json","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"https://example.com/t.json#/$defs/s"}}}`},
		{"relative $id", `{"$id":"tool.json","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"tool.json#/$defs/s"}}}`},
		{"anchor", `{"$defs":{"s":{"$anchor":"str","type":"string"}},"properties":{"a":{"$ref":"#str"}}}`},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs, err := compileInput([]byte(c.schema))
			require.NoError(t, err)
			assert.NoError(t, validateWith(rs, map[string]any{"a": "x"}))
			assert.Error(t, validateWith(rs, map[string]any{"a": json.Number("1")}))
		})
	}
}

// Without the check, these schemas would make validation recurse until the
// Go runtime kills the process (the library has no cycle detection).
func TestInputSchemaCyclesRefused(t *testing.T) {
	cases := map[string]string{
		"self":             `{"$ref":"#"}`,
		"pair":             `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"object","$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		"through allOf":    `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		"through not":      `{"not":{"anyOf":[{"$ref":"#"}]}}`,
		"anchor":           `{"$defs":{"a":{"$anchor":"A","oneOf":[{"$ref":"#A"}]}}}`,
		"if then else":     `{"if":true,"then":{"$ref":"#"}}`,
		"dependentSchemas": `{"dependentSchemas":{"x":{"$ref":"#"}}}`,
		"$id":              `{"$id":"https://example.com/r.json","allOf":[{"$ref":"https://example.com/r.json"}]}`,
		"dynamicRef":       `{"$dynamicAnchor":"n","anyOf":[{"$dynamicRef":"#n"}]}`,
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := compileInput([]byte(s))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cycle")
		})
	}
}

// Recursion through a property or an item is bounded by the input's depth.
func TestInputSchemaRecursionThroughValues(t *testing.T) {
	rs, err := compileInput([]byte(`{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#"}}}}`))
	require.NoError(t, err)
	in, err := ParseInput([]byte(`{"name":"a","kids":[{"name":"b","kids":[{"name":"c"}]}]}`))
	require.NoError(t, err)
	assert.NoError(t, validateWith(rs, in))
	in, err = ParseInput([]byte(`{"name":"a","kids":[{"name":"b","kids":[{"name":3}]}]}`))
	require.NoError(t, err)
	assert.Error(t, validateWith(rs, in))
}

// What a meta-schema would catch and the library does not.
func TestInputSchemaChecks(t *testing.T) {
	cases := map[string]string{
		`{"type":"strin"}`:                           `unknown type "strin"`,
		`{"properties":{"a":{"type":["string",1]}}}`: "unknown type 1",
		`{"type":5}`:                                 "type must be a string or an array",
		`{"$schema":"http://json-schema.org/draft-04/schema#"}`: "not supported",
		`{"$schema":1}`:                        "$schema must be a string",
		`{"properties":{"a":{"pattern":"("}}}`: "pattern",
		`{"properties":5}`:                     "inputSchema",
		`[]`:                                   "must be a JSON object",
		`{`:                                    "not valid JSON",
	}
	for s, want := range cases {
		t.Run(s, func(t *testing.T) {
			_, err := compileInput([]byte(s))
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
	for _, ok := range []string{`{}`, `true`, `{"type":["string","null"]}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`} {
		_, err := compileInput([]byte(ok))
		assert.NoError(t, err, ok)
	}
}

// Numbers reach the library as numbers (a json.Number is a string to it),
// exactly where they fit, and saturated where they do not.
func TestInputNumbers(t *testing.T) {
	rs, err := compileInput([]byte(`{"type":"object","properties":{"i":{"type":"integer","maximum":9007199254740992},"n":{"type":"number","exclusiveMinimum":0}}}`))
	require.NoError(t, err)
	cases := []struct {
		input string
		ok    bool
		msg   string
	}{
		{`{"i":1}`, true, ""},
		{`{"i":1.0}`, true, ""},
		{`{"i":1e2}`, true, ""},
		{`{"i":1.5}`, false, `has type "number", want "integer"`},
		{`{"i":"1"}`, false, `want "integer"`},
		{`{"i":9007199254740992}`, true, ""},
		{`{"i":9007199254740993}`, false, "maximum: 9007199254740993 is greater than 9007199254740992 (schema /properties/i)"},
		{`{"i":1e400}`, false, "maximum"},
		{`{"n":1e-400}`, true, ""},
		{`{"n":0}`, false, "exclusiveMinimum: 0 is less than or equal to 0 (schema /properties/n)"},
		{`{"n":-1e-400}`, false, "exclusiveMinimum"},
		// Not integers, though their nearest float64 is one (internal/jsonnum).
		{`{"i":1.00000000000000000001}`, false, `want "integer"`},
		{`{"i":9007199254740993.5}`, false, `want "integer"`},
		{`{"i":18446744073709551615}`, false, "maximum"},
	}
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			in, err := ParseInput([]byte(c.input))
			require.NoError(t, err)
			err = validateWith(rs, in)
			if c.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

func TestInputErrorIsClear(t *testing.T) {
	d := &Definition{Name: "t", InputSchema: json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1}}}`)}
	require.NoError(t, d.compileInputSchema())
	_, err := d.ValidateInput([]byte(`{"n":0}`))
	require.Error(t, err)
	assert.Equal(t, "tool input does not match the input schema: minimum: 0 is less than 1 (schema /properties/n)", err.Error())
	_, err = d.ValidateInput([]byte(`{}`))
	require.Error(t, err)
	assert.Equal(t, `tool input does not match the input schema: required: missing properties: ["n"]`, err.Error())
}

// FuzzInputSchema: whatever a workspace puts in inputSchema and whatever
// input a model sends, compiling and validating return (a reference cycle
// the check missed would instead overflow the stack and kill the process).
func FuzzInputSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`), []byte(`{"n":0}`))
	f.Add([]byte(`{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"},{"type":"string"}]},"b":{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}}}},"$ref":"#/$defs/a"}`), []byte(`{"x":{"x":"s"}}`))
	f.Add([]byte(`{"$id":"https://e.x/r.json","$defs":{"s":{"$anchor":"s","type":"string"}},"properties":{"a":{"$ref":"r.json#s"}}}`), []byte(`{"a":1}`))
	f.Add([]byte(`{"$dynamicAnchor":"n","properties":{"k":{"$dynamicRef":"#n"}}}`), []byte(`{"k":{"k":{}}}`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`), []byte(`{}`))
	f.Add([]byte(`{"if":{"required":["a"]},"then":{"not":{"required":["b"]}},"dependentSchemas":{"c":{"minProperties":2}}}`), []byte(`{"a":1,"b":2,"c":3}`))
	f.Fuzz(func(t *testing.T, schema, input []byte) {
		rs, err := compileInput(schema)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		in, err := ParseInput(input)
		if err != nil {
			return
		}
		_ = validateWith(rs, in)
	})
}
