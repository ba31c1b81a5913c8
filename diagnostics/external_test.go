package diagnostics

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// A fake tools.json validator: flags every "TODO" and panics on "boom".
func fakeToolsChecker(text []byte) []model.Diagnostic {
	if bytes.Contains(text, []byte("boom")) {
		panic("fake checker exploded")
	}
	var out []model.Diagnostic
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte("TODO"))
		if i < 0 {
			break
		}
		// The end is past the text on purpose: Check must clamp it.
		out = append(out, model.Diagnostic{Rule: "tools/todo", Severity: model.SeverityWarning, Message: "A TODO is left in the tool config.",
			Span: model.Span{Start: off + i, End: off + i + 400}})
		off += i + 4
	}
	// Out of order on purpose: Check sorts.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func TestExtraChecker(t *testing.T) {
	const path = ".ahpls/tools.json"
	require.Equal(t, model.KindTools, model.Classify(path, nil), "precondition: the path classifies as tools")
	text := []byte(`{"tools": [{"name": "TODO"}, {"name": "TODO"}]}`)
	require.Empty(t, Check(File{Path: path, Text: text}, Options{}), "no checker passed")
	_, ok := LookupRule("tools/todo")
	require.False(t, ok)

	extra := Checker{Kind: model.KindTools, Check: fakeToolsChecker, Rules: []*Rule{{ID: "tools/todo", Summary: "A TODO left in .ahpls/tools.json."}}}
	opts := Options{Checkers: []Checker{extra}}

	info, ok := LookupRule("tools/todo", extra)
	require.True(t, ok)
	assert.Equal(t, "A TODO left in .ahpls/tools.json.", info.Summary)
	listed := false
	for _, r := range Rules(extra) {
		listed = listed || r.ID == "tools/todo"
	}
	assert.True(t, listed, "Rules(extra) lists the checker's rule (SARIF and docs read it)")

	d := Check(File{Path: path, Text: text}, opts)
	require.Len(t, d, 2)
	assert.Equal(t, 21, d[0].Span.Start, "sorted by position")
	assert.Equal(t, 39, d[1].Span.Start)
	assert.Equal(t, len(text), d[0].Span.End, "span clamped to the text")
	assert.Equal(t, model.SeverityWarning, d[0].Severity)

	// ahpls.rules applies to extra rules too.
	d = Check(File{Path: path, Text: text}, Options{Checkers: opts.Checkers, Rules: map[string]model.Severity{"tools/todo": model.SeverityError}})
	require.Len(t, d, 2)
	assert.Equal(t, model.SeverityError, d[0].Severity)
	assert.Empty(t, Check(File{Path: path, Text: text}, Options{Checkers: opts.Checkers, Rules: map[string]model.Severity{"tools/todo": 0}}))

	// The common guards run first: bad UTF-8 never reaches the checker.
	d = Check(File{Path: path, Text: []byte("{\"TODO\": \"\xff\"}")}, opts)
	require.Len(t, d, 1)
	assert.Equal(t, "file/encoding", d[0].Rule)

	// A panicking checker does not take the caller down.
	d = Check(File{Path: path, Text: []byte(`{"boom": 1}`)}, opts)
	require.Len(t, d, 1)
	assert.Equal(t, "internal/error", d[0].Rule)
	assert.Contains(t, d[0].Message, "fake checker exploded")

	// A built-in kind is not replaced, and other kinds are unaffected.
	hooks := Checker{Kind: model.KindHooks, Check: fakeToolsChecker}
	assert.Empty(t, Check(File{Path: ".github/hooks/x.json", Text: []byte(`{"hooks": {}, "TODO": 1}`)}, Options{Checkers: []Checker{extra, hooks}}))
}

// Every rule in the table has one entry with its metadata.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		assert.False(t, seen[r.ID], "rule %s is listed twice", r.ID)
		seen[r.ID] = true
		assert.NotEmpty(t, r.Summary, r.ID)
		assert.NotEmpty(t, r.Kinds, r.ID)
		assert.NotEmpty(t, r.Severity, r.ID)
		for _, e := range r.Evidence {
			assert.NotEmpty(t, e.Consumer, r.ID)
			assert.NotEmpty(t, e.Reaction, r.ID)
			assert.NotEmpty(t, e.Source, r.ID)
		}
		got, ok := LookupRule(r.ID)
		assert.True(t, ok, r.ID)
		assert.Equal(t, r.ID, got.ID)
	}
}
