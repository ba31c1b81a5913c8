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
	u := skillURI(root, "db-migrate")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 7, "---\nname: db-migrate\ndescription: Runs migrations.\n---\n")))

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
