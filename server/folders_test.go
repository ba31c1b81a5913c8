package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// folderMove is a workspace with a skill folder that a marketplace lists
// and that has a finding (a NUL byte), to be moved from skills/deploy to
// skills/deploy2 by each route an editor reports it.
type folderMove struct {
	root               string
	oldDir, newDir     string
	oldSkill, newSkill uri.URI
	market             uri.URI
}

func newFolderMove(t *testing.T) folderMove {
	root := t.TempDir()
	m := folderMove{root: root, oldDir: filepath.Join(root, "skills", "deploy"), newDir: filepath.Join(root, "skills", "deploy2")}
	m.oldSkill = writeFile(t, root, "skills/deploy/SKILL.md", "---\nname: deploy\x00\ndescription: Deploys.\n---\n")
	m.newSkill = uri.File(filepath.Join(m.newDir, "SKILL.md"))
	m.market = writeFile(t, root, ".claude-plugin/marketplace.json", `{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./","skills":["./skills/deploy"]}]}`)
	return m
}

func hasCode(code string) func([]wireDiag) bool {
	return func(ds []wireDiag) bool { return len(withCode(ds, code)) > 0 }
}

func empty(ds []wireDiag) bool { return len(ds) == 0 }

// expectMoved waits for what a moved folder must bring: the old path's
// findings cleared, the new path's published, and the marketplace that
// pointed at the old path now reporting it missing.
func (m folderMove) expectMoved(t *testing.T, c *testClient, mark int) {
	t.Helper()
	c.waitPublishFrom(mark, m.oldSkill, nil, empty)
	c.waitPublishFrom(mark, m.newSkill, nil, hasCode("file/encoding"))
	c.waitPublishFrom(mark, m.market, nil, hasCode("market/path-missing"))
	// And nothing for the old path afterwards but [].
	for _, n := range c.notesSnapshot()[mark:] {
		var p wirePublish
		if n.Method != "textDocument/publishDiagnostics" || json.Unmarshal(n.Params, &p) != nil || p.URI != string(m.oldSkill) {
			continue
		}
		assert.Equal(t, "[]", string(p.Diagnostics))
	}
}

// ready waits for the initial scan's end and the skill's findings (the
// clean marketplace publishes nothing).
func (m folderMove) ready(t *testing.T, c *testClient) {
	t.Helper()
	c.waitFor("scan done", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "scan done")
	})
	c.waitPublish(m.oldSkill, nil, hasCode("file/encoding"))
}

const dynamicWatch = `{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}`

// TestFolderMoveWatched: an editor watcher (VS Code, Neovim 0.10+) reports
// a moved folder as the folder deleted and another created, nothing for
// the files inside. The server must watch folders to hear of it at all.
// The server's own watcher is off: this is the editor's route alone.
func TestFolderMoveWatched(t *testing.T) {
	m := newFolderMove(t)
	c := newTestClient(t, clientSetup{folders: []string{m.root}, caps: dynamicWatch, opts: Options{NoFSNotify: true}})
	reg := c.waitRequest("client/registerCapability")
	assert.Contains(t, string(reg.Params), `"globPattern":"**/*","kind":5`, "creation and deletion of anything, folders included")
	assert.Contains(t, string(reg.Params), `copilot-setup-steps.yml`)
	m.ready(t, c)

	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	mark := c.mark()
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(uri.File(m.oldDir))+`","type":3},{"uri":"`+string(uri.File(m.newDir))+`","type":1}]}`))
	m.expectMoved(t, c, mark)

	// Deleting the folder clears the new path too.
	require.NoError(t, os.RemoveAll(m.newDir))
	mark = c.mark()
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(uri.File(m.newDir))+`","type":3}]}`))
	c.waitPublishFrom(mark, m.newSkill, nil, empty)
}

// TestFolderMoveRenameFiles: the editor's own rename (explorer, or a
// rename's workspace edit) arrives as workspace/didRenameFiles (the
// server's own watcher off: this is the editor's route alone).
func TestFolderMoveRenameFiles(t *testing.T) {
	m := newFolderMove(t)
	cs := clientSetup{folders: []string{m.root}, caps: dynamicWatch, noInit: true, opts: Options{NoFSNotify: true}}
	c := newTestClient(t, cs)
	res := c.initialize(cs)
	var init struct {
		Capabilities struct {
			Workspace struct {
				FileOperations struct {
					DidRename, DidDelete struct{ Filters []any }
				} `json:"fileOperations"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(res, &init))
	assert.NotEmpty(t, init.Capabilities.Workspace.FileOperations.DidRename.Filters)
	assert.NotEmpty(t, init.Capabilities.Workspace.FileOperations.DidDelete.Filters)
	m.ready(t, c)
	// The marketplace is open, as it often is: a disk event for an open
	// file is ignored, but the re-check after the move must still reach it.
	text, err := os.ReadFile(filepath.Join(m.root, ".claude-plugin", "marketplace.json"))
	require.NoError(t, err)
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(m.market, 1, string(text))))
	c.waitPublish(m.market, ptr(1), nil)

	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	mark := c.mark()
	require.NoError(t, c.notify("workspace/didRenameFiles", `{"files":[{"oldUri":"`+string(uri.File(m.oldDir))+`","newUri":"`+string(uri.File(m.newDir))+`"}]}`))
	m.expectMoved(t, c, mark)

	require.NoError(t, os.RemoveAll(m.newDir))
	mark = c.mark()
	require.NoError(t, c.notify("workspace/didDeleteFiles", `{"files":[{"uri":"`+string(uri.File(m.newDir))+`"}]}`))
	c.waitPublishFrom(mark, m.newSkill, nil, empty)
}

// TestFolderMoveFSNotify is the fallback's regression test (Neovim 0.7–0.9,
// editors without dynamic watcher registration): a folder moved in a shell.
func TestFolderMoveFSNotify(t *testing.T) {
	m := newFolderMove(t)
	c := newTestClient(t, clientSetup{folders: []string{m.root}})
	require.Eventually(t, c.srv.fsWatchRunning, waitLimit, time.Millisecond)
	m.ready(t, c)

	mark := c.mark()
	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	m.expectMoved(t, c, mark)

	// A setup-steps file is watched too.
	mark = c.mark()
	steps := writeFile(t, m.root, ".github/workflows/copilot-setup-steps.yml", "jobs:\n  other:\n    runs-on: ubuntu-latest\n")
	c.waitPublishFrom(mark, steps, nil, func(ds []wireDiag) bool { return len(ds) > 0 })
}

// TestRenamedOpenBufferCleared: F2 renamed a skill whose SKILL.md was open
// and edited (dirty); VS Code moved the editor but kept the old document
// open, so its findings stayed on the old path. didRenameFiles now drops
// the old buffer and clears its findings.
func TestRenamedOpenBufferCleared(t *testing.T) {
	m := newFolderMove(t)
	c := newTestClient(t, clientSetup{folders: []string{m.root}, caps: dynamicWatch})
	m.ready(t, c)
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(m.oldSkill, 1, "---\nname: Deploy2\ndescription: Deploys.\n---\n")))
	c.waitPublish(m.oldSkill, ptr(1), hasCode("skill/name-charset"))
	mark := c.mark() // before the move: the server's own watcher sees it too
	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	require.NoError(t, c.notify("workspace/didRenameFiles", `{"files":[{"oldUri":"`+string(uri.File(m.oldDir))+`","newUri":"`+string(uri.File(m.newDir))+`"}]}`))
	c.waitPublishFrom(mark, m.oldSkill, nil, empty)
}
