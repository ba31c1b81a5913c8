package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// ownWatcherReady waits until the server's own watcher watches the
// workspace folders (beside an editor's watcher it starts after the scan).
func ownWatcherReady(t *testing.T, c *testClient) {
	t.Helper()
	require.Eventually(t, c.srv.fsWatchRunning, waitLimit, time.Millisecond, "the server's own watcher never started")
}

// TestOwnWatcherSeesShellMove is #41's mv case with an editor whose
// watcher misses it (code-server's did): the client registered file
// watchers, so the server is not on its fallback, and it sends no
// workspace/didChangeWatchedFiles for a skill folder renamed on disk. The
// server's own watcher clears the old path, checks the new one and
// re-checks the marketplace that listed the old path.
func TestOwnWatcherSeesShellMove(t *testing.T) {
	m := newFolderMove(t)
	c := newTestClient(t, clientSetup{folders: []string{m.root}, caps: dynamicWatch})
	reg := c.waitRequest("client/registerCapability")
	assert.Contains(t, string(reg.Params), "workspace/didChangeWatchedFiles", "the editor watches: no fallback")
	m.ready(t, c)
	ownWatcherReady(t, c)

	mark := c.mark()
	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	m.expectMoved(t, c, mark)

	// And back, below a folder created after the start.
	mark = c.mark()
	deeper := filepath.Join(m.root, "skills", "team")
	require.NoError(t, os.MkdirAll(deeper, 0o755))
	moved := filepath.Join(deeper, "deploy")
	require.NoError(t, os.Rename(m.newDir, moved))
	c.waitPublishFrom(mark, m.newSkill, nil, empty)
	c.waitPublishFrom(mark, uri.File(filepath.Join(moved, "SKILL.md")), nil, hasCode("file/encoding"))
}

// TestPullOwnWatcherSeesShellMove is the same for an editor that pulls
// diagnostics (VS Code): the streamed workspace answer shows the move.
func TestPullOwnWatcherSeesShellMove(t *testing.T) {
	m := newFolderMove(t)
	p := newPullClient(t, m.root)
	p.until(t, "the skill's finding", p.has(m.oldSkill, "file/encoding"))
	ownWatcherReady(t, p.c)

	require.NoError(t, os.Rename(m.oldDir, m.newDir))
	p.until(t, "the move seen", func() bool {
		return len(p.shown[string(m.oldSkill)]) == 0 && p.has(m.newSkill, "file/encoding")() && p.has(m.market, "market/path-missing")()
	})
}

// settled waits until the server has no work left: no workspace re-check
// due, no scan, no check running or waiting.
func settled(t *testing.T, s *Server) {
	t.Helper()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.rechecksDue > 0 || s.scansRunning > 0 {
			return false
		}
		for _, fs := range s.files {
			if fs.running || fs.timer != nil {
				return false
			}
		}
		return true
	}, waitLimit, time.Millisecond, "the server did not settle")
}

// fsProbe holds and traces the server's own watcher: a mode change of a
// marker file is an event the watcher ignores, so once the hook hears of
// it every event before it has been handled.
type fsProbe struct {
	mu     sync.Mutex
	marker string
	marks  int
	hold   string        // events of this path wait for release
	held   chan struct{} // closed when one was held
	free   chan struct{}
	seen   chan struct{} // closed and replaced on every event
}

func newFSProbe(marker string) *fsProbe {
	return &fsProbe{marker: marker, seen: make(chan struct{})}
}

func (p *fsProbe) hook(name string) {
	p.mu.Lock()
	if filepath.Clean(name) == p.marker {
		p.marks++
	}
	close(p.seen)
	p.seen = make(chan struct{})
	hold, free, held := p.hold, p.free, p.held
	if hold != "" && filepath.Clean(name) == hold {
		p.hold = ""
		close(held)
	} else {
		free = nil
	}
	p.mu.Unlock()
	if free != nil {
		<-free
	}
}

// holdNext makes the next event of path wait until the returned release.
func (p *fsProbe) holdNext(path string) (held <-chan struct{}, release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hold, p.held, p.free = path, make(chan struct{}), make(chan struct{})
	free := p.free
	return p.held, func() { close(free) }
}

// drain waits until the watcher has handled every event so far.
func (p *fsProbe) drain(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	want := p.marks + 1
	p.mu.Unlock()
	st, err := os.Stat(p.marker)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(p.marker, st.Mode().Perm()^0o100))
	deadline := time.After(waitLimit)
	for {
		p.mu.Lock()
		got, ch := p.marks, p.seen
		p.mu.Unlock()
		if got >= want {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatal("the watcher did not reach the marker")
		}
	}
}

// TestChangeSeenTwiceCheckedOnce: a file change that both the editor's
// watcher and the server's own report costs the checks of one report,
// whichever comes first; the second is dropped at the gate.
func TestChangeSeenTwiceCheckedOnce(t *testing.T) {
	for _, first := range []string{"own watcher", "editor"} {
		t.Run(first+" first", func(t *testing.T) {
			root := t.TempDir()
			skill := writeFile(t, root, ".github/skills/twice/SKILL.md", "---\nname: twice\ndescription: Seen twice.\n---\n")
			other := writeFile(t, root, ".github/skills/other/SKILL.md", "---\nname: other\ndescription: Another file the re-check runs over.\n---\n")
			_ = other
			marker := filepath.Join(root, "marker.txt")
			require.NoError(t, os.WriteFile(marker, nil, 0o644))
			probe := newFSProbe(marker)
			cs := clientSetup{folders: []string{root}, caps: dynamicWatch, noInit: true}
			c := newTestClient(t, cs)
			c.srv.fsw.hook = probe.hook
			c.initialize(cs)
			c.waitRequest("client/registerCapability")
			ownWatcherReady(t, c)
			probe.drain(t)
			settled(t, c.srv)

			p, _ := uriPath(skill)
			broken := "---\nname: twice\x00\ndescription: Seen twice.\n---\n"
			editorReport := `{"changes":[{"uri":"` + string(skill) + `","type":2}]}`
			sync := func() { require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, nil)) }
			mark := c.mark()
			before := c.srv.Checks()
			var release func()
			if first == "editor" {
				var held <-chan struct{}
				held, release = probe.holdNext(p)
				require.NoError(t, os.WriteFile(p, []byte(broken), 0o644))
				<-held // the own watcher's report waits
				require.NoError(t, c.notify("workspace/didChangeWatchedFiles", editorReport))
				sync()
			} else {
				require.NoError(t, os.WriteFile(p, []byte(broken), 0o644))
			}
			c.waitPublishFrom(mark, skill, nil, hasCode("file/encoding"))
			if first != "editor" {
				probe.drain(t)
			}
			settled(t, c.srv)
			once := c.srv.Checks()
			dropped := c.srv.fsw.dropped.Load()
			require.Greater(t, once, before, "the first report costs checks")

			// The second report of the same change.
			if first == "editor" {
				release()
				probe.drain(t)
			} else {
				require.NoError(t, c.notify("workspace/didChangeWatchedFiles", editorReport))
				sync()
			}
			settled(t, c.srv)
			assert.Greater(t, c.srv.fsw.dropped.Load(), dropped, "the second report reached the gate and was dropped there")
			assert.Equal(t, once, c.srv.Checks(), "rules runs after the second report of one change")

			// A real second change is news again.
			mark = c.mark()
			require.NoError(t, c.notify("workspace/didChangeWatchedFiles", editorReport))
			require.NoError(t, os.WriteFile(p, []byte("---\nname: twice\ndescription: Seen twice, fixed.\n---\n"), 0o644))
			c.waitPublishFrom(mark, skill, nil, empty)
		})
	}
}

// TestOwnWatcherBudget: past its budget the watcher watches no more
// folders, says so once in a window/logMessage, and goes on with the
// ones it watches (the shallowest first).
func TestOwnWatcherBudget(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b/c", "d/e", "f"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755))
	}
	cs := clientSetup{folders: []string{root}, noInit: true}
	c := newTestClient(t, cs)
	c.srv.fsw.budget = 3
	c.initialize(cs)
	full := c.waitFor("the watcher full", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "and no more")
	})
	var msg struct {
		Type    int    `json:"type"`
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(full.Params, &msg))
	assert.Equal(t, 2, msg.Type, "a warning")
	assert.Contains(t, msg.Message, "watching 3 folders")
	ownWatcherReady(t, c)
	c.srv.fsw.mu.Lock()
	watched := len(c.srv.fsw.watched)
	_, top := c.srv.fsw.watched[root]
	c.srv.fsw.mu.Unlock()
	assert.Equal(t, 3, watched)
	assert.True(t, top, "the workspace folder itself is watched first")

	// The workspace folder is still watched.
	mark := c.mark()
	mcp := writeFile(t, root, ".mcp.json", "{")
	c.waitPublishFrom(mark, mcp, nil, func(ds []wireDiag) bool { return len(ds) > 0 })
}

// TestFileWatcherSetting: "fallback" keeps the server's own watcher off
// while the editor watches; switching to "on" starts it, "off" stops it.
func TestFileWatcherSetting(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: dynamicWatch, initOpts: json.RawMessage(`{"fileWatcher":"fallback"}`)})
	c.waitFor("scan done", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "scan done")
	})
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, nil))
	assert.False(t, c.srv.fsWatchRunning(), "fallback: the editor watches")

	require.NoError(t, c.notify("workspace/didChangeConfiguration", `{"settings":{"ahpls":{"fileWatcher":"on"}}}`))
	ownWatcherReady(t, c)
	require.NoError(t, c.notify("workspace/didChangeConfiguration", `{"settings":{"ahpls":{"fileWatcher":"off"}}}`))
	require.Eventually(t, func() bool { return !c.srv.fsWatchRunning() }, waitLimit, time.Millisecond)
}
