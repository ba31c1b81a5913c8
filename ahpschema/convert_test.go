package ahpschema

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SessionStatus is patched to {"type":"integer","minimum":0}: whether a
// literal is an integer and not negative is decided on its exact value.
func TestNumbersValidateExactly(t *testing.T) {
	cases := []struct {
		status string
		ok     bool
	}{
		{"0", true}, {"65", true}, {"18446744073709551615", true}, {"18446744073709551616", true},
		{"1.0", true}, {"1e400", true}, {"-0", true}, {"-0.0", true},
		{"-1", false}, {"-1e400", false}, {"1.5", false}, {"1.00000000000000000001", false},
		{"1e-400", false}, {"-1e-400", false}, {"9007199254740993.5", false}, {"\"1\"", false},
	}
	for _, c := range cases {
		t.Run(c.status, func(t *testing.T) {
			b := []byte(`{"resource":"r","provider":"p","title":"t","status":` + c.status + `,"createdAt":"x","modifiedAt":"y"}`)
			err := Validate("state", "SessionSummary", b)
			if c.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, "status")
			}
		})
	}
}

// number's substitutions keep a value's order against every bound of the
// schemas only while those bounds are integers of magnitude < 2^52.
func TestSchemaNumbersAreSmall(t *testing.T) {
	small := func(v any) bool {
		switch n := v.(type) {
		case int64:
			return n > -(1<<52) && n < 1<<52
		case float64:
			_, frac := math.Modf(n)
			return frac == 0 && math.Abs(n) < 1<<52
		case uint64:
			return n < 1<<52
		}
		return true // not a number
	}
	seen := 0
	for _, name := range Files {
		f, ok := file(name)
		require.True(t, ok)
		require.NoError(t, f.parseErr)
		walkSchemas(f.doc, func(s *jsonschema.Schema) {
			for _, b := range []*float64{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf} {
				if b != nil {
					seen++
					assert.True(t, small(*b), "%s: bound %v", name, *b)
				}
			}
			for _, e := range s.Enum {
				assert.True(t, small(e), "%s: enum value %v", name, e)
			}
			if s.Const != nil {
				assert.True(t, small(*s.Const), "%s: const %v", name, *s.Const)
			}
		})
	}
	assert.Positive(t, seen, "patch 2's minimum is a bound")
}

func walkSchemas(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, c := range l {
			walkSchemas(c, f)
		}
	}
	for _, m := range []map[string]*jsonschema.Schema{s.Defs, s.Properties} {
		for _, c := range m {
			walkSchemas(c, f)
		}
	}
	for _, c := range []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else, s.Items, s.AdditionalProperties} {
		walkSchemas(c, f)
	}
}

// A keyword the conversion does not map would be checked by nobody: it is
// refused, so a schema update that brings one fails loudly.
func TestConversionRefusesUnknownKeywords(t *testing.T) {
	for _, raw := range []string{
		`{"type":"string","pattern":"^a"}`,
		`{"properties":{"a":{"minLength":1}}}`,
		`{"oneOf":[{"format":"uri"}]}`,
		`{"type":7}`,
		`{"required":"a"}`,
		`{"minimum":"0"}`,
		`[]`,
	} {
		v, err := decodeJSON([]byte(raw))
		require.NoError(t, err)
		_, err = toSchema(v, "test")
		assert.Error(t, err, raw)
	}
	v, err := decodeJSON([]byte(`{"type":["string","null"],"enum":["a",null,1],"const":false,"additionalProperties":false,"items":true,"minimum":0}`))
	require.NoError(t, err)
	s, err := toSchema(v, "test")
	require.NoError(t, err)
	assert.Equal(t, []string{"string", "null"}, s.Types)
	assert.Equal(t, []any{"a", nil, int64(1)}, s.Enum)
	assert.Equal(t, &jsonschema.Schema{Not: &jsonschema.Schema{}}, s.AdditionalProperties)
}

// Every file converts and resolves; a $ref out of the five files is refused.
func TestEmbeddedFilesResolve(t *testing.T) {
	for _, name := range Files {
		f, ok := file(name)
		require.True(t, ok)
		require.NoError(t, f.parseErr, name)
		_, err := f.resolve()
		assert.NoError(t, err, name)
	}
	for _, ref := range []string{"https://example.com/x.schema.json", "file:///etc/passwd", idPrefix + "nosuch.schema.json", idPrefix + "commands.schema.json/../x"} {
		root := &jsonschema.Schema{Ref: ref + "#/$defs/X"}
		_, err := root.Resolve(&jsonschema.ResolveOptions{BaseURI: "ahpschema:test", Loader: loadEmbedded})
		assert.ErrorContains(t, err, "not one of the embedded schema files", ref)
	}
}

func TestDecodeRejectsTrailingData(t *testing.T) {
	for _, raw := range []string{`{} {}`, `1 2`, `{"a":1}x`, ``, `{"a":`} {
		_, err := decode([]byte(raw))
		assert.ErrorContains(t, err, "invalid JSON", raw)
	}
	v, err := decode([]byte(` {"a":[1,2.5,{"b":18446744073709551615}]} `))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": []any{int64(1), 2.5, map[string]any{"b": uint64(math.MaxUint64)}}}, v)
}

// Nothing is read, converted or resolved at package init: a process that
// links ahpschema but never validates (ahpls outside `demo`) pays nothing.
// The check runs in a fresh process, before any other test has validated.
func TestNothingLoadedAtInit(t *testing.T) {
	if os.Getenv("AHPSCHEMA_INIT_PROBE") == "1" {
		for i := range files {
			if files[i].doc != nil || files[i].resolved != nil || files[i].defs != nil {
				t.Fatalf("%s loaded before first use", Files[i])
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNothingLoadedAtInit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AHPSCHEMA_INIT_PROBE=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "PASS")
}

// santhosh-tekuri/jsonschema compiles its meta-schemas in its package init
// (~15 ms CPU, 1.7 MB on every ahpls start, #30): ahpschema must not bring it
// into a binary. (Its tests may still use it; go list -deps without -test
// lists what the package itself links.)
func TestDoesNotLinkSanthoshJSONSchema(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list dependencies with")
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	assert.Contains(t, deps, "github.com/google/jsonschema-go/jsonschema")
	for _, d := range deps {
		assert.NotContains(t, d, "santhosh-tekuri", "ahpschema links %s", d)
	}
}

func TestErrorTextIsCompact(t *testing.T) {
	err := Validate("commands", "ActionEnvelope", []byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"session/titleChanged","title":7}}`))
	require.Error(t, err)
	assert.Equal(t, `ahpschema: commands#ActionEnvelope: ActionEnvelope/properties/action > StateAction > SessionTitleChangedAction/properties/title: type: 7 has type "integer", want "string"`, err.Error())
	var se *Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "commands#ActionEnvelope", se.Def)

	err = Validate("commands", "ActionEnvelope", []byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"root/frobnicated"}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ActionEnvelope/properties/action > StateAction/properties/type: ")
	assert.Contains(t, err.Error(), "enum: root/frobnicated does not equal any of: [")
	assert.LessOrEqual(t, len(err.Error()), maxDetail+200, "detail is capped")
}

// The union ChatToolCallConfirmedAction says why neither branch matched.
func TestUnionErrorNamesBranches(t *testing.T) {
	err := Validate("commands", "StateAction", []byte(`{"type":"chat/toolCallConfirmed","turnId":"t","toolCallId":"c","approved":"yes","confirmed":"user-action"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not ChatToolCallApprovedAction: ChatToolCallApprovedAction/properties/approved: const: yes does not equal true")
	assert.Contains(t, err.Error(), "not ChatToolCallDeniedAction: ")
}

// Validation is read-only on the shared schemas: many goroutines validate at
// once, the first of them loading the files (run with -race).
func TestConcurrentValidation(t *testing.T) {
	files = [len(files)]schemaFile{} // first use again (no other test runs meanwhile)
	frames := []string{
		`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/a","clientSeq":1,"action":{"type":"chat/toolCallConfirmed","turnId":"t","toolCallId":"c","approved":true,"confirmed":"user-action"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"channel":"ahp-root://"}}`,
	}
	done := make(chan error)
	for i := range 8 {
		go func() {
			var err error
			for range 20 {
				if err = ValidateMessage([]byte(frames[i%2]), ClientToHost); err != nil {
					break
				}
				if err = Validate("actions", "ActionEnvelope", []byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"root/agentsChanged","agents":[]}}`)); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range 8 {
		assert.NoError(t, <-done)
	}
}

func TestPlaceOnly(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"properties/title":                 "properties/title",
		"else/then/else/properties/type":   "properties/type",
		"allOf/1/properties/a/oneOf/0":     "properties/a",
		"properties/if/properties/else/if": "properties/if/properties/else",
		"items/anyOf/3/properties/then":    "items/properties/then",
	} {
		assert.Equal(t, want, placeOnly(in), in)
	}
}
