package ahpschema

// ahpschema validated with github.com/santhosh-tekuri/jsonschema until #30.
// These tests hold the port to its decisions: the same patched schemas are
// compiled by both libraries and every value must be accepted or rejected by
// both. santhosh-tekuri/jsonschema is a test-only dependency here
// (TestDoesNotLinkSanthoshJSONSchema); delete this file with it.

import (
	"bytes"
	"encoding/json"
	"sort"
	"sync"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	oldOnce     sync.Once
	oldCompiler *santhosh.Compiler
	oldErr      error
	oldMu       sync.Mutex
	oldCompiled = map[string]*santhosh.Schema{}
)

// oldSchema compiles file#def with the previous library, from the same
// patched documents the new one converts.
func oldSchema(t testing.TB, file, def string) *santhosh.Schema {
	t.Helper()
	oldOnce.Do(func() {
		c := santhosh.NewCompiler()
		c.DefaultDraft(santhosh.Draft2020)
		for _, f := range Files {
			raw, err := schemaFS.ReadFile("schema/" + f + ".schema.json")
			if err != nil {
				oldErr = err
				return
			}
			doc, err := decodeJSON(raw)
			if err != nil {
				oldErr = err
				return
			}
			defs, err := patch(f, doc)
			if err != nil {
				oldErr = err
				return
			}
			if f == "commands" {
				actionDefs := map[string]string{}
				indexActions(defs, actionDefs)
				discriminate(defs, actionDefs)
			}
			if oldErr = c.AddResource(fileID(f), doc); oldErr != nil {
				return
			}
		}
		oldCompiler = c
	})
	require.NoError(t, oldErr)
	oldMu.Lock()
	defer oldMu.Unlock()
	key := file + "#" + def
	if s, ok := oldCompiled[key]; ok {
		return s
	}
	s, err := oldCompiler.Compile(fileID(file) + "#/$defs/" + escapePointer(def))
	require.NoError(t, err)
	oldCompiled[key] = s
	return s
}

// agree validates payload against file#def with both libraries and fails
// the test when they decide differently. It reports whether the value is
// valid.
func agree(t testing.TB, file, def string, payload []byte) bool {
	t.Helper()
	oldV, err := santhosh.UnmarshalJSON(bytes.NewReader(payload))
	if err != nil {
		_, nerr := decode(payload)
		if nerr == nil {
			t.Fatalf("only the old decoder refuses %q: %v", payload, err)
		}
		return false
	}
	newV, err := decode(payload)
	require.NoError(t, err, "only the new decoder refuses %q", payload)
	oldErr := oldSchema(t, file, def).Validate(oldV)
	f, err := definition(file, def)
	require.NoError(t, err)
	newErr := f.validate(def, newV)
	if (oldErr == nil) != (newErr == nil) {
		t.Fatalf("%s#%s disagrees on %s\nold: %v\nnew: %v", file, def, payload, oldErr, newErr)
	}
	return newErr == nil
}

// examplePayloads returns the params and results of docs/ahp.md's examples
// and its bare actions.
func examplePayloads(t *testing.T) [][]byte {
	var out [][]byte
	for _, e := range specExamples(t) {
		if e.info == "json StateAction" {
			out = append(out, []byte(e.line))
			continue
		}
		f, err := ParseFrame([]byte(e.line))
		require.NoError(t, err)
		for _, p := range [][]byte{f.Params, f.Result} {
			if len(p) > 0 {
				out = append(out, p)
			}
		}
	}
	return out
}

// The examples checked against definitions of commands (most checks fail:
// the error paths must agree as much as the passing ones), and the
// numbers of TestNumbersValidateExactly against SessionSummary in all files.
func TestAgreesWithPreviousValidator(t *testing.T) {
	f, _ := file("commands")
	require.NoError(t, f.parseErr)
	defs := make([]string, 0, len(f.defs))
	for d := range f.defs {
		defs = append(defs, d)
	}
	sort.Strings(defs)
	valid, pairs := 0, 0
	for i, p := range examplePayloads(t) {
		for j, d := range defs {
			// A tenth of the pairs, every definition several times.
			if (i+j)%10 != 0 && d != "StateAction" && d != "ActionEnvelope" {
				continue
			}
			pairs++
			if agree(t, "commands", d, p) {
				valid++
			}
		}
	}
	t.Logf("%d pairs, %d valid", pairs, valid)
	assert.Greater(t, valid, 20, "some pairs pass (an example and its own definition)")
	for _, st := range []string{"0", "65", "-1", "1.0", "1.5", "1e400", "-1e400", "1e-400", "18446744073709551616",
		"1.00000000000000000001", "9007199254740993.5", "-0", `"1"`, "null", "true"} {
		b := []byte(`{"resource":"r","provider":"p","title":"t","status":` + st + `,"createdAt":"x","modifiedAt":"y"}`)
		for _, file := range []string{"commands", "state", "notifications", "actions", "errors"} {
			agree(t, file, "SessionSummary", b)
		}
	}
	assert.True(t, agree(t, "actions", "ActionEnvelope", []byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"root/agentsChanged","agents":[]}}`)))
}

// The fuzzer mutates payloads and picks definitions; both libraries must
// decide alike.
func FuzzAgreesWithPreviousValidator(f *testing.F) {
	for _, p := range [][]byte{
		[]byte(`{"channel":"ahp-chat:/9a0b77c1","clientSeq":8,"action":{"type":"chat/toolCallComplete","turnId":"turn-4","toolCallId":"tc-8","result":{"success":true,"pastTenseMessage":"x","content":[{"type":"text","text":"y"}]}}}`),
		[]byte(`{"resource":"r","provider":"p","title":"t","status":1e400,"createdAt":"x","modifiedAt":"y"}`),
		[]byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"root/agentsChanged","agents":[]}}`),
		[]byte(`{"type":"chat/toolCallConfirmed","turnId":"t","toolCallId":"c","approved":false,"reason":"denied"}`),
	} {
		for i := range uint16(8) {
			f.Add(p, i)
		}
	}
	targets := []struct{ file, def string }{
		{"commands", "DispatchActionParams"},
		{"commands", "ActionEnvelope"},
		{"commands", "StateAction"},
		{"state", "SessionSummary"},
		{"commands", "SessionSummary"},
		{"commands", "InitializeResult"},
		{"commands", "ChatToolCallConfirmedAction"},
		{"actions", "ActionEnvelope"},
	}
	f.Fuzz(func(t *testing.T, payload []byte, pick uint16) {
		if !json.Valid(payload) {
			return
		}
		tg := targets[int(pick)%len(targets)]
		agree(t, tg.file, tg.def, payload)
	})
}
