package tools

import (
	"fmt"
	"github.com/ahpls-dev/ahpls/internal/jsonnum"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The validator understands only the keywords tools.schema.json uses; a
// schema with any other keyword does not compile, so TestConfigSchemaIsAValidJSONSchema
// fails as soon as the published schema grows one.
func TestConfigSchemaRefusesUnsupportedKeywords(t *testing.T) {
	cases := []struct{ name, schema, err string }{
		{"top level", `{"type":"object","maxProperties":3}`, `"maxProperties" is not supported`},
		{"in a property", `{"properties":{"a":{"type":"string","maxLength":3}}}`, `/properties/a: keyword "maxLength"`},
		{"in $defs", `{"$defs":{"x":{"anyOf":[true]}}}`, `/$defs/x: keyword "anyOf"`},
		{"in items", `{"items":{"enum":[1]}}`, `/items: keyword "enum"`},
		{"in prefixItems", `{"prefixItems":[{"format":"uri"}]}`, `/prefixItems/0: keyword "format"`},
		{"in additionalProperties", `{"additionalProperties":{"uniqueItems":true}}`, `keyword "uniqueItems"`},
		{"remote $ref", `{"$ref":"https://example.com/x.json"}`, "local reference"},
		{"dangling $ref", `{"$ref":"#/$defs/none"}`, "points at no subschema"},
		{"$ref cycle", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, "cycle"},
		{"unknown type", `{"type":"strin"}`, `unknown type "strin"`},
		{"bad pattern", `{"pattern":"("}`, "pattern"},
		{"negative minItems", `{"minItems":-1}`, "non-negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compileConfigSchema([]byte(c.schema))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.err)
		})
	}
	// A property may be called like a keyword.
	_, err := compileConfigSchema([]byte(`{"properties":{"maxLength":{"type":"integer"},"anyOf":true}}`))
	assert.NoError(t, err)
}

// Every problem of one object is reported, each at its own value.
func TestConfigSchemaReportsEveryProblem(t *testing.T) {
	text := config(`{"name":"9","title":1,"x":0,"y":0,"command":{"argv":[""],"timeoutSeconds":0,"maxOutputBytes":1.5,"env":{"A-":"","B":false}}}`)
	probs := ValidateConfig([]byte(text), ConfigOptions{Trusted: true})
	var got []string
	for _, p := range probs {
		got = append(got, p.Path+" "+text[p.Start:p.End])
	}
	assert.Equal(t, []string{
		`/tools/0/name "9"`,
		`/tools/0/title 1`,
		`/tools/0/x "x"`,
		`/tools/0/y "y"`,
		`/tools/0/command/argv/0 ""`,
		`/tools/0/command/timeoutSeconds 0`,
		`/tools/0/command/maxOutputBytes 1.5`,
		`/tools/0/command/env/A- "A-"`,
		`/tools/0/command/env/B false`,
	}, got)
}

// santhoshConfigSchema is the published schema compiled by a general
// validator, against which ours is checked (tests only: that library costs
// every process ~15 ms at start).
var santhoshConfigSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(ConfigSchema)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://ahpls.dev/schemas/tools.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("https://ahpls.dev/schemas/tools.schema.json")
})

// issueKeys names each problem by location and keyword. The general
// validator records a propertyNames problem at an unreliable location, so
// those are named by the property alone.
func issueKeys(issues []schemaIssue) []string {
	var out []string
	for _, is := range issues {
		switch is.keyword {
		case "propertyNames":
			out = append(out, "propertyNames "+is.members[0].key)
		case "additionalProperties":
			var names []string
			for _, m := range is.members {
				names = append(names, m.key)
			}
			sort.Strings(names)
			out = append(out, pointer(is.path)+" additionalProperties "+strings.Join(names, ","))
		case "required":
			names := slices.Clone(is.names)
			sort.Strings(names)
			out = append(out, pointer(is.path)+" required "+strings.Join(names, ","))
		default:
			out = append(out, pointer(is.path)+" "+is.keyword)
		}
	}
	sort.Strings(out)
	return out
}

func santhoshKeys(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(ve *jsonschema.ValidationError)
	walk = func(ve *jsonschema.ValidationError) {
		switch k := ve.ErrorKind.(type) {
		case *kind.PropertyNames:
			out = append(out, "propertyNames "+k.Property)
			return
		case *kind.AdditionalProperties:
			names := slices.Clone(k.Properties)
			sort.Strings(names)
			out = append(out, pointer(ve.InstanceLocation)+" additionalProperties "+strings.Join(names, ","))
			return
		case *kind.Required:
			names := slices.Clone(k.Missing)
			sort.Strings(names)
			out = append(out, pointer(ve.InstanceLocation)+" required "+strings.Join(names, ","))
			return
		}
		if len(ve.Causes) == 0 {
			kw := ve.ErrorKind.KeywordPath()
			out = append(out, pointer(ve.InstanceLocation)+" "+kw[len(kw)-1])
			return
		}
		for _, c := range ve.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

// checkAgreement compares both validators on one text: valid or not, and
// the same problems at the same places.
func checkAgreement(t testing.TB, data []byte) {
	root, p := parseSpans(data)
	if p != nil {
		return
	}
	mine, err := configSchema()
	require.NoError(t, err)
	ref, err := santhoshConfigSchema()
	require.NoError(t, err)
	got := issueKeys(mine.validate(root))
	verr := ref.Validate(root.value())
	if verr == nil {
		if len(got) > 0 {
			t.Fatalf("ours reports %q, the general validator accepts %s", got, data)
		}
		return
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		t.Fatalf("general validator: %v", verr)
	}
	want := santhoshKeys(ve)
	if !slices.Equal(got, want) {
		t.Fatalf("ours %q, general validator %q, for %s", got, want, data)
	}
}

func agreementCorpus(t testing.TB) [][]byte {
	files, err := filepath.Glob("testdata/config/*.json")
	require.NoError(t, err)
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		out = append(out, data)
	}
	for _, s := range []string{
		`{}`, `[]`, `1`, `null`, `"x"`,
		`{"version":1.0,"runTests":false,"$schema":"x"}`,
		`{"version":"1","runTests":0,"$schema":1,"tools":{}}`,
		`{"tools":[1,null,[],{}]}`,
		`{"tools":[{"name":"a","command":{"argv":[]}}]}`,
		`{"tools":[{"name":"a","command":{"argv":[[],[1],"",["x",2]],"cwd":1,"env":{"":"","_":"x","9":"y"},"inheritEnv":["A","1",2],"timeoutSeconds":3600.5,"maxOutputBytes":16777217,"allowLeadingDash":"no"}}]}`,
		`{"tools":[{"name":"a","command":{"argv":["x"],"timeoutSeconds":1e-9,"maxOutputBytes":1024.0}}]}`,
		`{"tools":[{"name":"a","command":{"argv":["x"],"timeoutSeconds":"1","maxOutputBytes":1e3}}]}`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object","x":1},"annotations":{"title":1,"readOnlyHint":"t","z":1},"command":{"argv":["x"]}}]}`,
		`{"tools":[{"name":"a","inputSchema":{},"command":{"argv":["x"]}}]}`,
		`{"tools":[{"name":"a","inputSchema":[],"command":5}]}`,
		`{"tools":[{"name":"` + strings.Repeat("a", 58) + `","command":{"argv":["x"]}},{"name":"` + strings.Repeat("a", 59) + `","command":{"argv":["x"]}}]}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

func TestConfigAgreesWithSchema(t *testing.T) {
	for i, data := range agreementCorpus(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkAgreement(t, data) })
	}
}

// hugeExponent reports a number whose exponent would make the general
// validator build an enormous rational (seconds per number): such inputs
// are left to FuzzParseConfig.
func hugeExponent(n *jnode) bool {
	if n.kind == '0' {
		d, _ := jsonnum.ParseDecimal(string(n.raw))
		return d.Exp() > 1000 || d.Exp() < -1000
	}
	for _, k := range n.kids {
		if hugeExponent(k) {
			return true
		}
	}
	return false
}

func FuzzConfigAgreesWithSchema(f *testing.F) {
	for _, data := range agreementCorpus(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if root, p := parseSpans(data); p != nil || hugeExponent(root) {
			return
		}
		checkAgreement(t, data)
	})
}
