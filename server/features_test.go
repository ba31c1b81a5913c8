package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

const bomSkill = "\ufeff---\nname: demo\ndescription: A demo skill.\n---\nBody.\n"

type wireAction struct {
	Title       string     `json:"title"`
	Kind        string     `json:"kind"`
	IsPreferred bool       `json:"isPreferred"`
	Diagnostics []wireDiag `json:"diagnostics"`
	Edit        struct {
		Changes map[string][]struct {
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
				End   struct{ Line, Character int } `json:"end"`
			} `json:"range"`
			NewText string `json:"newText"`
		} `json:"changes"`
	} `json:"edit"`
}

func TestCodeActionFromFix(t *testing.T) {
	for _, tc := range []struct {
		name, caps string
		bomUnits   int // the BOM's length in the negotiated encoding
	}{
		{"utf-16", `{}`, 1},
		{"utf-8", `{"general":{"positionEncodings":["utf-8"]}}`, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			c := newTestClient(t, clientSetup{folders: []string{root}, caps: tc.caps})
			u := skillURI(root, "demo")
			require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, bomSkill)))
			c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "fm/bom")) == 1 })

			var actions []wireAction
			require.NoError(t, c.call("textDocument/codeAction", fmt.Sprintf(
				`{"textDocument":{"uri":%q},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}`, u), &actions))
			var fix *wireAction
			for i := range actions {
				if len(actions[i].Diagnostics) > 0 && actions[i].Diagnostics[0].Code == "fm/bom" && !strings.HasPrefix(actions[i].Title, "Disable ") {
					fix = &actions[i]
				}
			}
			require.NotNil(t, fix, "a quick fix for fm/bom: %+v", actions)
			assert.Equal(t, "quickfix", fix.Kind)
			assert.True(t, fix.IsPreferred)
			edits := fix.Edit.Changes[string(u)]
			require.Len(t, edits, 1)
			assert.Equal(t, 0, edits[0].Range.Start.Character)
			assert.Equal(t, tc.bomUnits, edits[0].Range.End.Character)
			assert.Equal(t, "", edits[0].NewText)

			// Applying the fix clears the finding.
			require.NoError(t, c.notify("textDocument/didChange", didChangeRange(u, 2, 0, 0, 0, tc.bomUnits, "")))
			c.waitPublish(u, ptr(2), func(ds []wireDiag) bool { return len(withCode(ds, "fm/bom")) == 0 })
		})
	}
}

func TestHoverShowsVerdicts(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "demo")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, bomSkill)))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "fm/bom")) == 1 })
	var hover struct {
		Contents struct {
			Kind  string `json:"kind"`
			Value string `json:"value"`
		} `json:"contents"`
	}
	require.NoError(t, c.call("textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":0,"character":0}}`, u), &hover))
	assert.Equal(t, "markdown", hover.Contents.Kind)
	assert.Contains(t, hover.Contents.Value, "fm/bom")
	assert.Contains(t, hover.Contents.Value, "| consumer | reaction |")
	assert.Contains(t, hover.Contents.Value, "VS Code")

	// Nothing to say on a clean body line.
	var none json.RawMessage
	require.NoError(t, c.call("textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":4,"character":1}}`, u), &none))
	assert.Equal(t, "null", string(none))

	// Over a key: the field's documentation from the rule rooms' catalogue.
	require.NoError(t, c.call("textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":2,"character":3}}`, u), &hover))
	assert.Contains(t, hover.Contents.Value, "**description**")
	assert.Contains(t, hover.Contents.Value, "Read by:")

	hooks := uri.File(filepath.Join(root, ".github", "hooks", "h.json"))
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(hooks, 1, "{\n  \"hooks\": {}\n}\n")))
	c.waitPublish(hooks, ptr(1), nil)
	require.NoError(t, c.call("textDocument/hover", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":1,"character":4}}`, hooks), &hover))
	assert.Contains(t, hover.Contents.Value, "**hooks**")
}

func TestCompletion(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	labels := func(u uri.URI, text string, line, col int) []string {
		t.Helper()
		require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, text)))
		var list struct {
			Items []struct {
				Label string `json:"label"`
			} `json:"items"`
		}
		require.NoError(t, c.call("textDocument/completion", fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, u, line, col), &list))
		var out []string
		for _, it := range list.Items {
			out = append(out, it.Label)
		}
		return out
	}
	hooks := uri.File(filepath.Join(root, ".github", "hooks", "fmt.json"))
	assert.Contains(t, labels(hooks, "{\n  \"hooks\": {\n    \n  }\n}\n", 2, 4), "PreToolUse", "hook events as keys of \"hooks\"")

	typ := uri.File(filepath.Join(root, ".github", "hooks", "typ.json"))
	assert.Contains(t, labels(typ, "{\"hooks\": {\"Stop\": [\n  {\"type\": \n", 1, len(`  {"type": `)), "command")

	skill := skillURI(root, "comp")
	assert.ElementsMatch(t, []string{"true", "false"}, labels(skill, "---\nname: comp\nuser-invocable: \n---\n", 2, len("user-invocable: ")))
	assert.Contains(t, labels(uri.File(filepath.Join(root, ".github", "skills", "k", "SKILL.md")), "---\nname: k\n\n---\n", 2, 0), "description")
}

// A quick fix asked for right after typing, while the check of the new
// text is still waiting out its debounce, is there: the request runs the
// pending check first instead of answering from stale (or no) findings.
func TestCodeActionRightAfterTyping(t *testing.T) {
	root := t.TempDir()
	opts := DefaultOptions()
	opts.Debounce = time.Hour // the debounced check would never run in time
	c := newTestClient(t, clientSetup{folders: []string{root}, opts: opts})
	u := skillURI(root, "demo")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: demo\ndescription: A demo.\n---\n")))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(ds) == 0 })
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 2, bomSkill)))

	var actions []wireAction
	require.NoError(t, c.call("textDocument/codeAction", fmt.Sprintf(
		`{"textDocument":{"uri":%q},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}`, u), &actions))
	found := false
	for _, a := range actions {
		if len(a.Diagnostics) > 0 && a.Diagnostics[0].Code == "fm/bom" {
			found = true
		}
	}
	assert.True(t, found, "the fix for the text just typed: %+v", actions)
	c.waitPublish(u, ptr(2), func(ds []wireDiag) bool { return len(withCode(ds, "fm/bom")) == 1 })
}
