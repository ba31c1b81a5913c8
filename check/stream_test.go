package check

import (
	"os"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
)

// TestRunDropsText: a plain run keeps no file's text with its findings (a
// big tree's memory is then its findings', not its bytes: #30), yet every
// fix edit has the range the whole text gives, as SARIF and the MCP fix
// list print it; the runs of --fix keep the text they apply fixes to.
func TestRunDropsText(t *testing.T) {
	found, err := RunConfig([]string{rulesWS}, Config{})
	require.NoError(t, err)
	edits := 0
	for _, f := range found {
		assert.Nil(t, f.src, "%s: %s keeps the file's text", f.Path, f.Rule)
		if len(f.fixes) == 0 {
			continue
		}
		text, err := os.ReadFile(f.Path)
		require.NoError(t, err)
		idx := model.NewLineIndex(text)
		for i, fx := range f.Fixes() {
			for j, e := range fx.Edits {
				orig := f.fixes[i].Edits[j]
				if orig.Path != "" {
					assert.Zero(t, e.Line, "an edit of another file has no range here")
					continue
				}
				r := idx.Range(orig.Span, model.UTF16)
				assert.Equal(t, []int{r.Start.Line + 1, r.Start.Character + 1, r.End.Line + 1, r.End.Character + 1},
					[]int{e.Line, e.Column, e.EndLine, e.EndColumn}, "%s: %s fix %d edit %d", f.Path, f.Rule, i, j)
				edits++
			}
		}
	}
	require.Positive(t, edits, "the fixtures have fixes")

	kept, err := RunConfig([]string{rulesWS}, Config{keepText: true})
	require.NoError(t, err)
	withText := 0
	for _, f := range kept {
		if f.src != nil {
			withText++
			assert.NotEmpty(t, f.fixes, "%s: %s keeps text it has no fix for", f.Path, f.Rule)
		}
	}
	assert.Positive(t, withText, "--fix's run keeps the text of findings with fixes")
}

// TestSharedVerdicts: equal verdict maps of many findings are one map (a
// big check's memory), with the content they had.
func TestSharedVerdicts(t *testing.T) {
	a := sharedVerdicts(model.Verdicts{model.TargetVSCodeAgentHost: model.Skip, model.TargetClaudeCode: model.Reject})
	b := sharedVerdicts(model.Verdicts{model.TargetClaudeCode: model.Reject, model.TargetVSCodeAgentHost: model.Skip})
	c := sharedVerdicts(model.Verdicts{model.TargetClaudeCode: model.Skip})
	assert.Equal(t, model.Verdicts{model.TargetVSCodeAgentHost: model.Skip, model.TargetClaudeCode: model.Reject}, b)
	assert.Equal(t, reflect.ValueOf(a).Pointer(), reflect.ValueOf(b).Pointer(), "equal verdicts share one map")
	assert.NotEqual(t, reflect.ValueOf(a).Pointer(), reflect.ValueOf(c).Pointer())
	assert.Equal(t, model.RuleHref("md/link"), sharedHref("md/link"))
}
