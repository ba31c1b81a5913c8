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

func TestRegisterChecker(t *testing.T) {
	const path = ".ahpls/tools.json"
	require.Equal(t, model.KindTools, model.Classify(path, nil), "precondition: the path classifies as tools")
	text := []byte(`{"tools": [{"name": "TODO"}, {"name": "TODO"}]}`)
	require.Empty(t, Check(File{Path: path, Text: text}, Options{}), "no checker registered yet")
	_, ok := LookupRule("tools/todo")
	require.False(t, ok)

	RegisterChecker(model.KindTools, fakeToolsChecker, RuleInfo{ID: "tools/todo", Summary: "A TODO left in .ahpls/tools.json."})
	t.Cleanup(func() { unregisterChecker(model.KindTools, "tools/todo") })

	info, ok := LookupRule("tools/todo")
	require.True(t, ok)
	assert.Equal(t, "A TODO left in .ahpls/tools.json.", info.Summary)
	listed := false
	for _, r := range Rules() {
		listed = listed || r.ID == "tools/todo"
	}
	assert.True(t, listed, "Rules() lists the registered rule (SARIF and docs read it)")

	d := Check(File{Path: path, Text: text}, Options{})
	require.Len(t, d, 2)
	assert.Equal(t, 21, d[0].Span.Start, "sorted by position")
	assert.Equal(t, 39, d[1].Span.Start)
	assert.Equal(t, len(text), d[0].Span.End, "span clamped to the text")
	assert.Equal(t, model.SeverityWarning, d[0].Severity)

	// ahpls.rules applies to registered rules too.
	d = Check(File{Path: path, Text: text}, Options{Rules: map[string]model.Severity{"tools/todo": model.SeverityError}})
	require.Len(t, d, 2)
	assert.Equal(t, model.SeverityError, d[0].Severity)
	assert.Empty(t, Check(File{Path: path, Text: text}, Options{Rules: map[string]model.Severity{"tools/todo": 0}}))

	// The common guards run first: bad UTF-8 never reaches the checker.
	d = Check(File{Path: path, Text: []byte("{\"TODO\": \"\xff\"}")}, Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "file/encoding", d[0].Rule)

	// A panicking checker does not take the caller down.
	d = Check(File{Path: path, Text: []byte(`{"boom": 1}`)}, Options{})
	require.Len(t, d, 1)
	assert.Equal(t, "internal/error", d[0].Rule)
	assert.Contains(t, d[0].Message, "fake checker exploded")

	// Other kinds are unaffected.
	assert.Empty(t, Check(File{Path: ".github/hooks/x.json", Text: []byte(`{"hooks": {}}`)}, Options{}))
}
