//go:build unix

package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFixesNeverEditOutside: the AGENTS.md fix (and fix-all) inserted
// '@AGENTS.md' into CLAUDE.md even when CLAUDE.md is a symlink to a file
// outside the workspace, which the editor then wrote (by itself, with
// fix-on-save). Now the fix is not offered there; with no CLAUDE.md at
// all it still is, as a quick fix (it creates a file: unsafe, so never
// in fix-all).
func TestFixesNeverEditOutside(t *testing.T) {
	for _, linked := range []bool{true, false} {
		t.Run(fmt.Sprintf("linked=%v", linked), func(t *testing.T) {
			parent := t.TempDir()
			root := filepath.Join(parent, "ws")
			writeFile(t, parent, "elsewhere.md", "Someone else's notes.\n")
			u := writeFile(t, root, "AGENTS.md", "# Rules\n\nBe brief.\n")
			claude := filepath.Join(root, "CLAUDE.md")
			if linked {
				require.NoError(t, os.Symlink(filepath.Join(parent, "elsewhere.md"), claude))
			}
			c := newTestClient(t, clientSetup{folders: []string{root}, initOpts: json.RawMessage(`{"ahpls":{"targets":["claude-code"]}}`)})
			require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "# Rules\n\nBe brief.\n")))
			c.waitPublish(u, nil, func(ds []wireDiag) bool { return len(withCode(ds, "memory/agents-md")) == 1 })
			for _, only := range []string{`"quickfix"`, `"source.fixAll"`} {
				got := c.request("textDocument/codeAction", fmt.Sprintf(
					`{"textDocument":{"uri":%q},"range":%s,"context":{"diagnostics":[],"only":[%s]}}`, u, rng(0, 0, 0, 0), only))
				// An edit of CLAUDE.md is a "changes" key (the
				// diagnostic's message names the file too).
				if linked || only == `"source.fixAll"` {
					assert.NotContains(t, got, `CLAUDE.md":[`, only)
				} else {
					assert.Contains(t, got, `CLAUDE.md":[`, only)
				}
			}
		})
	}
}

// TestLinksNeverLeaveThroughSymlinks: documentLink and definition
// followed an in-workspace symlink to /etc and offered /etc/passwd.
func TestLinksNeverLeaveThroughSymlinks(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "ws")
	writeFile(t, parent, "secret.md", "x")
	writeFile(t, root, "inside.md", "fine")
	require.NoError(t, os.Symlink("/etc", filepath.Join(root, "etc")))
	require.NoError(t, os.Symlink(filepath.Join(parent, "secret.md"), filepath.Join(root, "notes.md")))
	text := "[p](etc/passwd) [n](notes.md) [ok](inside.md)\n"
	u := writeFile(t, root, "AGENTS.md", text)
	c := newTestClient(t, clientSetup{folders: []string{root}})
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, text)))
	got := c.request("textDocument/documentLink", docParams(u))
	assert.NotContains(t, got, "passwd")
	assert.NotContains(t, got, "notes.md")
	assert.Contains(t, got, "inside.md", "links inside still work")
	assert.Equal(t, `[]`, c.request("textDocument/definition", posParams(u, 0, 6)))
	assert.Equal(t, `[]`, c.request("textDocument/definition", posParams(u, 0, 21)))
}

// TestFixesStayInTheirOwnFolder: with two workspace folders open, a
// CLAUDE.md linked into the other folder is still outside the AGENTS.md's
// own folder (the one its rules ran under), so no fix edits it.
func TestFixesStayInTheirOwnFolder(t *testing.T) {
	parent := t.TempDir()
	a, b := filepath.Join(parent, "a"), filepath.Join(parent, "b")
	writeFile(t, b, "notes.md", "B's notes.\n")
	u := writeFile(t, a, "AGENTS.md", "# Rules\n")
	require.NoError(t, os.Symlink(filepath.Join(b, "notes.md"), filepath.Join(a, "CLAUDE.md")))
	c := newTestClient(t, clientSetup{folders: []string{a, b}, initOpts: json.RawMessage(`{"ahpls":{"targets":["claude-code"]}}`)})
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "# Rules\n")))
	c.waitPublish(u, nil, func(ds []wireDiag) bool { return len(withCode(ds, "memory/agents-md")) == 1 })
	got := c.request("textDocument/codeAction", fmt.Sprintf(
		`{"textDocument":{"uri":%q},"range":%s,"context":{"diagnostics":[],"only":["quickfix","source.fixAll"]}}`, u, rng(0, 0, 0, 0)))
	assert.NotContains(t, got, `CLAUDE.md":[`)
}
