package server

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/view"
)

// TestViewHoverAndCommand: the first line's hover says what each consumer
// does with the file (the example), and ahpls.listView returns
// the same model as JSON, with the editor's state applied.
func TestViewHoverAndCommand(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".github/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Fill PDF forms.\n---\nBody.\n")
	claude := "---\nname: pdf\ndescription: Read PDFs.\n---\nBody.\n"
	u := writeFile(t, root, ".claude/skills/pdf/SKILL.md", claude)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	c.waitPublish(u, nil, nil) // the scan's check

	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	require.NoError(t, c.call("textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":0,"character":1}}`, u), &hover))
	assert.Contains(t, hover.Contents.Value, "Claude Code: loads as `pdf`")
	assert.Contains(t, hover.Contents.Value, "VS Code: shadowed by .github/skills/pdf/SKILL.md")
	assert.Contains(t, hover.Contents.Value, "Agent Skills spec: loads as `pdf`")

	// Below the first line the hover is about the line only.
	var none json.RawMessage
	require.NoError(t, c.call("textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":4,"character":1}}`, u), &none))
	assert.Equal(t, "null", string(none))

	var views []FolderView
	args := fmt.Sprintf(`{"command":%q,"arguments":[{"targets":["vscode"],"state":{"disabled":{".github/skills/pdf/SKILL.md":"workspace"}}}]}`, CommandListView)
	require.NoError(t, c.call("workspace/executeCommand", args, &views))
	require.Len(t, views, 1)
	require.Len(t, views[0].Consumers, 1)
	got := map[string]string{}
	for _, it := range views[0].Consumers[0].Items {
		got[it.Source] = string(it.Status)
	}
	assert.Equal(t, map[string]string{".github/skills/pdf/SKILL.md": "disabled", ".claude/skills/pdf/SKILL.md": "shadowed"}, got)

	// A new file shows up: file events invalidate the cached view.
	helper := writeFile(t, root, ".claude/agents/helper.md", "---\nname: helper\ndescription: Helps.\n---\n")
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", fmt.Sprintf(`{"changes":[{"uri":%q,"type":1}]}`, helper)))
	require.Eventually(t, func() bool {
		var vs []FolderView
		if c.call("workspace/executeCommand", fmt.Sprintf(`{"command":%q}`, CommandListView), &vs) != nil || len(vs) != 1 {
			return false
		}
		for _, cons := range vs[0].Consumers {
			for _, it := range cons.Items {
				if it.Source == ".claude/agents/helper.md" {
					return true
				}
			}
		}
		return false
	}, waitLimit, time.Millisecond)
}

func TestListViewBadArgument(t *testing.T) {
	c := newTestClient(t, clientSetup{folders: []string{t.TempDir()}})
	var out json.RawMessage
	err := c.call("workspace/executeCommand", fmt.Sprintf(`{"command":%q,"arguments":["not an object"]}`, CommandListView), &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ahpls.listView")
	// An empty folder: one view, every consumer, nothing listed.
	var views []FolderView
	require.NoError(t, c.call("workspace/executeCommand", fmt.Sprintf(`{"command":%q,"arguments":[null]}`, CommandListView), &views))
	require.Len(t, views, 1)
	assert.Len(t, views[0].Consumers, len(view.ViewTargets))
	for _, cons := range views[0].Consumers {
		assert.Empty(t, cons.Items, cons.Target)
	}
}
