package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// TestConfigFileInTheEditor: .ahpls/config.json is validated (the same
// errors that make settings ignore it), completes its keys, rule ids in an
// override's "rules" and their levels, and hovers a rule id with the
// rule's summary.
func TestConfigFileInTheEditor(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := uri.File(filepath.Join(root, ".ahpls", "config.json"))

	got := completionLabels(t, c, u, "{\n  \n}\n", 1, 2)
	assert.Subset(t, got, []string{"exclude", "gitignore", "overrides"})

	text := "{\"overrides\": [{\"files\": [\"docs/**\"], \"rules\": {\n  \"md/link\": \"\",\n  \n}}]}\n"
	require.NoError(t, c.notify("textDocument/didChange", `{"textDocument":{"uri":"`+string(u)+`","version":2},"contentChanges":[{"text":`+jsonString(text)+`}]}`))
	var list struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	require.NoError(t, c.call("textDocument/completion", posParams(u, 2, 2), &list))
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	assert.Contains(t, labels, "skill/name-dir")
	assert.Contains(t, labels, "suppress/unused")
	list.Items = nil
	require.NoError(t, c.call("textDocument/completion", posParams(u, 1, 14), &list))
	labels = labels[:0]
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	assert.Equal(t, []string{"off", "error", "warning", "info", "hint"}, labels)

	// The empty level is an error where it stands (and so is the trailing
	// comma: the file is strict JSON).
	c.waitPublish(u, ptr(2), func(ds []wireDiag) bool {
		for _, d := range withCode(ds, "config/invalid") {
			if strings.Contains(d.Message, "the level of 'md/link'") {
				return true
			}
		}
		return false
	})

	// Hover answers from the check of the buffer's current version (a
	// stale check is not shown), so it is asked once that check is
	// published: asked before, it raced the check (1 run in 30).
	var raw json.RawMessage
	require.NoError(t, c.call("textDocument/hover", posParams(u, 1, 5), &raw))
	var h wireHover
	require.NoError(t, json.Unmarshal(raw, &h))
	assert.True(t, strings.HasPrefix(h.Contents.Value, "**md/link**"), h.Contents.Value)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
