package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"

	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// A fake tools.json validator: flags every "TODO" and panics on "boom".
func fakeToolsValidator(text []byte) []core.ToolsProblem {
	if bytes.Contains(text, []byte("boom")) {
		panic("fake validator exploded")
	}
	var out []core.ToolsProblem
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte("TODO"))
		if i < 0 {
			break
		}
		// The end is past the text on purpose: Check must clamp it.
		out = append(out, core.ToolsProblem{Severity: model.SeverityWarning, Message: "A TODO is left in the tool config.",
			Span: model.Span{Start: off + i, End: off + i + 400}})
		off += i + 4
	}
	// Out of order on purpose: Check sorts.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func TestToolsConfig(t *testing.T) {
	const path = ".ahpls/tools.json"
	require.Equal(t, model.KindTools, model.Classify(path, nil), "precondition: the path classifies as tools")
	text := []byte(`{"tools": [{"name": "TODO"}, {"name": "TODO"}]}`)
	require.Empty(t, Check(core.File{Path: path, Text: text}, core.Options{}), "no validator passed")
	info, ok := LookupRule("tools/config")
	require.True(t, ok, "the rule is in the table without a validator")
	assert.Contains(t, info.Summary, ".ahpls/tools.json")

	opts := core.Options{ToolsConfig: fakeToolsValidator}
	d := Check(core.File{Path: path, Text: text}, opts)
	require.Len(t, d, 2)
	assert.Equal(t, "tools/config", d[0].Rule)
	assert.Equal(t, 21, d[0].Span.Start, "sorted by position")
	assert.Equal(t, 39, d[1].Span.Start)
	assert.Equal(t, len(text), d[0].Span.End, "span clamped to the text")
	assert.Equal(t, model.SeverityWarning, d[0].Severity)

	// ahpls.rules applies to it like to every rule.
	d = Check(core.File{Path: path, Text: text}, core.Options{ToolsConfig: fakeToolsValidator, Rules: map[string]model.Severity{"tools/config": model.SeverityError}})
	require.Len(t, d, 2)
	assert.Equal(t, model.SeverityError, d[0].Severity)
	assert.Empty(t, Check(core.File{Path: path, Text: text}, core.Options{ToolsConfig: fakeToolsValidator, Rules: map[string]model.Severity{"tools/config": 0}}))

	// The common guards run first: bad UTF-8 never reaches the validator.
	d = Check(core.File{Path: path, Text: []byte("{\"TODO\": \"\xff\"}")}, opts)
	require.Len(t, d, 1)
	assert.Equal(t, "file/encoding", d[0].Rule)

	// A panicking validator does not take the caller down.
	d = Check(core.File{Path: path, Text: []byte(`{"boom": 1}`)}, opts)
	require.Len(t, d, 1)
	assert.Equal(t, "internal/error", d[0].Rule)
	assert.Contains(t, d[0].Message, "fake validator exploded")

	// Other kinds never reach it.
	assert.Empty(t, Check(core.File{Path: ".github/hooks/x.json", Text: []byte(`{"hooks": {}, "TODO": 1}`)}, opts))
}
