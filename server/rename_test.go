package server

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

const renameCaps = `{"workspace":{"workspaceEdit":{"documentChanges":true,"resourceOperations":["create","rename","delete"]}}}`

func renameParams(u uri.URI, line, char int, name string) string {
	return fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d},"newName":%q}`, u, line, char, name)
}

func TestRenameSkillMovesFolder(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: renameCaps})
	text := "---\nname: db-migrate\ndescription: Runs migrations.\n---\n"
	u := writeFile(t, root, ".github/skills/db-migrate/SKILL.md", text)
	require.Equal(t, skillURI(root, "db-migrate"), u)
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 7, text)))

	assert.Equal(t, `{"placeholder":"db-migrate","range":`+rng(1, 6, 1, 16)+`}`, c.request("textDocument/prepareRename", posParams(u, 1, 8)))

	got := c.request("textDocument/rename", renameParams(u, 1, 8, "schema-migrate"))
	dir := filepath.Join(root, ".github", "skills")
	want := fmt.Sprintf(`{"documentChanges":[`+
		`{"edits":[{"newText":"schema-migrate","range":%s}],"textDocument":{"uri":%q,"version":7}},`+
		`{"kind":"rename","newUri":%q,"oldUri":%q}]}`,
		rng(1, 6, 1, 16), u, uri.File(filepath.Join(dir, "schema-migrate")), uri.File(filepath.Join(dir, "db-migrate")))
	assert.Equal(t, want, got)
}

// Without resource operations only the value changes, and the user is told
// which folder to rename.
func TestRenameSkillValueOnly(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := writeFile(t, root, ".github/skills/db-migrate/SKILL.md", "---\nname: \"db-migrate\"\ndescription: Runs migrations.\n---\n")
	got := c.request("textDocument/rename", renameParams(u, 1, 1, "schema-migrate"))
	assert.Equal(t, fmt.Sprintf(`{"changes":{%q:[{"newText":"schema-migrate","range":%s}]}}`, u, rng(1, 6, 1, 18)), got)
	n := c.waitFor("showMessage", func(n note) bool { return n.Method == "window/showMessage" })
	var m wireLogMessage
	require.NoError(t, json.Unmarshal(n.Params, &m))
	assert.Equal(t, 2, m.Type)
	assert.Contains(t, m.Message, "Rename the folder 'db-migrate' to 'schema-migrate'")
}

func TestRenameErrors(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: renameCaps})
	u := writeFile(t, root, ".github/skills/db-migrate/SKILL.md", "---\nname: db-migrate\ndescription: Runs migrations.\n---\nBody\n")
	writeFile(t, root, ".github/skills/taken/SKILL.md", "---\nname: taken\ndescription: T.\n---\n")
	for _, tc := range []struct {
		line, char int
		name       string
		code       int64
		msg        string
	}{
		{1, 8, "DB Migrate", -32602, "no skill name"},
		{1, 8, "taken", -32803, "already exists"},
		{2, 3, "x", -32803, "put the cursor on the value of 'name'"},
		{4, 1, "x", -32803, "put the cursor on the value of 'name'"},
	} {
		err := c.call("textDocument/rename", renameParams(u, tc.line, tc.char, tc.name), nil)
		var je *jsonrpc2.Error
		require.ErrorAs(t, err, &je, "%+v", tc)
		assert.Equal(t, tc.code, int64(je.Code), tc.name)
		assert.True(t, strings.Contains(je.Message, tc.msg), je.Message)
	}
}

// renameMessage waits for the window/showMessage a value-only rename sends.
func renameMessage(t *testing.T, c *testClient) string {
	t.Helper()
	n := c.waitFor("showMessage", func(n note) bool { return n.Method == "window/showMessage" })
	var m wireLogMessage
	require.NoError(t, json.Unmarshal(n.Params, &m))
	return m.Message
}

// TestRenameNeverMovesSharedFolders: a SKILL.md at the workspace root used
// to rename the workspace folder itself (.git included) to a sibling
// outside it, and .github/SKILL.md the whole .github folder. Now only the
// value changes and the user is told why.
func TestRenameNeverMovesSharedFolders(t *testing.T) {
	for _, tc := range []struct{ rel, why string }{
		{"SKILL.md", "the workspace folder itself"},
		{".github/SKILL.md", "'.github', which holds more than this skill"},
		{"skills/SKILL.md", "'skills', which holds more than this skill"},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			root := t.TempDir()
			c := newTestClient(t, clientSetup{folders: []string{root}, caps: renameCaps})
			u := writeFile(t, root, tc.rel, "---\nname: old-name\ndescription: D.\n---\n")
			got := c.request("textDocument/rename", renameParams(u, 1, 8, "new-name"))
			assert.Equal(t, fmt.Sprintf(`{"changes":{%q:[{"newText":"new-name","range":%s}]}}`, u, rng(1, 6, 1, 14)), got)
			assert.NotContains(t, got, `"rename"`)
			msg := renameMessage(t, c)
			assert.Contains(t, msg, tc.why)
			assert.Contains(t, msg, "no folder was moved")
		})
	}
}

// TestRenameCaseOnly: PDF → pdf is no clash (on macOS and Windows the new
// spelling finds the old folder) and moves through a temporary name.
func TestRenameCaseOnly(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: renameCaps})
	u := writeFile(t, root, "skills/PDF/SKILL.md", "---\nname: PDF\ndescription: D.\n---\n")
	var we struct {
		DocumentChanges []struct {
			Kind   string `json:"kind"`
			OldURI string `json:"oldUri"`
			NewURI string `json:"newUri"`
		} `json:"documentChanges"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.request("textDocument/rename", renameParams(u, 1, 7, "pdf"))), &we))
	var renames [][2]string
	for _, ch := range we.DocumentChanges {
		if ch.Kind == "rename" {
			renames = append(renames, [2]string{ch.OldURI, ch.NewURI})
		}
	}
	require.Len(t, renames, 2, "through a temporary name: %v", renames)
	assert.Equal(t, string(uri.File(filepath.Join(root, "skills/PDF"))), renames[0][0])
	assert.Equal(t, renames[0][1], renames[1][0])
	assert.Contains(t, renames[0][1], ".ahpls-rename-")
	assert.Equal(t, string(uri.File(filepath.Join(root, "skills/pdf"))), renames[1][1])
}

// TestRenameUpdatesReferences: moving skills/pptx to skills/slides used to
// leave the marketplace listing ./skills/pptx (the plugin then shipped
// without the skill). The same edit now updates the marketplace's inline
// skills path, a plugin manifest's, a Markdown link into the folder and a
// subagent's `skills` entry, annotated for the preview and applied by
// default.
func TestRenameUpdatesReferences(t *testing.T) {
	root := t.TempDir()
	caps := `{"workspace":{"workspaceEdit":{"documentChanges":true,"resourceOperations":["rename"],"changeAnnotationSupport":{}}}}`
	u := writeFile(t, root, "skills/pptx/SKILL.md", "---\nname: pptx\ndescription: Slides.\n---\nSee [ref](../pptx/ref.md).\n")
	writeFile(t, root, "skills/pptx/ref.md", "ref\n")
	market := writeFile(t, root, ".claude-plugin/marketplace.json", `{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./","skills":["./skills/pptx","./skills/other"]}]}`)
	manifest := writeFile(t, root, "plugin.json", `{"name":"p","skills":["./skills/pptx/"]}`)
	agents := writeFile(t, root, "AGENTS.md", "Use [the skill](skills/pptx/SKILL.md).\n")
	agent := writeFile(t, root, ".claude/agents/deck.md", "---\nname: deck\ndescription: Decks.\nskills: [pptx, pptx-extra]\n---\nBody.\n")
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: caps})
	// The workspace scan checks the files in the background: ask until
	// every referring file is known.
	var got string
	for range 300 {
		got = c.request("textDocument/rename", renameParams(u, 1, 7, "slides"))
		if strings.Contains(got, string(market)) && strings.Contains(got, string(manifest)) && strings.Contains(got, string(agents)) && strings.Contains(got, string(agent)) && strings.Contains(got, "../slides/ref.md") {
			break
		}
		sleepBriefly()
	}
	var we struct {
		DocumentChanges []struct {
			TextDocument struct{ URI string } `json:"textDocument"`
			Edits        []struct {
				NewText      string `json:"newText"`
				AnnotationID string `json:"annotationId"`
			} `json:"edits"`
			Kind, OldURI, NewURI string
		} `json:"documentChanges"`
		ChangeAnnotations map[string]struct {
			Label             string `json:"label"`
			NeedsConfirmation bool   `json:"needsConfirmation"`
		} `json:"changeAnnotations"`
	}
	require.NoError(t, json.Unmarshal([]byte(got), &we), got)
	texts := map[string][]string{}
	for _, ch := range we.DocumentChanges {
		for _, e := range ch.Edits {
			texts[ch.TextDocument.URI] = append(texts[ch.TextDocument.URI], e.NewText)
			if ch.TextDocument.URI != string(u) {
				assert.Equal(t, string(refAnnotation), e.AnnotationID)
			}
		}
	}
	assert.Equal(t, []string{"slides", "../slides/ref.md"}, texts[string(u)])
	assert.Equal(t, []string{"./skills/slides"}, texts[string(market)])
	assert.Equal(t, []string{"./skills/slides/"}, texts[string(manifest)])
	assert.Equal(t, []string{"skills/slides/SKILL.md"}, texts[string(agents)])
	assert.Equal(t, []string{"slides"}, texts[string(agent)], "pptx-extra is another skill")
	last := we.DocumentChanges[len(we.DocumentChanges)-1]
	assert.Equal(t, "rename", last.Kind, "the folder moves after the text edits")
	ann, ok := we.ChangeAnnotations[string(refAnnotation)]
	require.True(t, ok, "the reference edits are labelled for the preview")
	assert.False(t, ann.NeedsConfirmation, "applied by default: VS Code leaves edits needing confirmation unticked")
}

// TestRenameUpdatesNestedMarketplace: a marketplace below the workspace
// folder resolves its sources from its own folder (the rules do), so the
// rename must too: VS Code's e2e renamed office/skills/pptx and left
// office/.claude-plugin/marketplace.json on ./skills/pptx.
func TestRenameUpdatesNestedMarketplace(t *testing.T) {
	root := t.TempDir()
	caps := `{"workspace":{"workspaceEdit":{"documentChanges":true,"resourceOperations":["rename"],"changeAnnotationSupport":{}}}}`
	u := writeFile(t, root, "office/skills/pptx/SKILL.md", "---\nname: pptx\ndescription: Slides.\n---\n")
	market := writeFile(t, root, "office/.claude-plugin/marketplace.json", `{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./","skills":["./skills/pptx"]}]}`)
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: caps})
	var got string
	for range 300 {
		got = c.request("textDocument/rename", renameParams(u, 1, 7, "slides"))
		if strings.Contains(got, string(market)) {
			break
		}
		sleepBriefly()
	}
	assert.Contains(t, got, string(market), "the marketplace's entry is among the edits")
	assert.Contains(t, got, `"newText":"./skills/slides"`)
}
