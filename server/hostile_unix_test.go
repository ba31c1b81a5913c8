//go:build unix

package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"
)

// TestFIFOsDoNotBlockChecks: a FIFO named like a plugin manifest (read by
// the plugin-root detection of every check below it) and a FIFO named
// SKILL.md (checked on a watched-file event) blocked the check goroutine
// forever before package wsfs; the healthy files next to them never got
// diagnostics. Now both are refused without blocking.
func TestFIFOsDoNotBlockChecks(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, text string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		if text == "" {
			require.NoError(t, syscall.Mkfifo(p, 0o644))
		} else {
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		}
		return p
	}
	mk("pl/.claude-plugin/plugin.json", "")
	inPlugin := mk("pl/skills/a/SKILL.md", "---\nname: a\x00\n---\n")
	fifo := mk(".github/skills/pipe/SKILL.md", "")
	after := mk(".github/skills/zz/SKILL.md", "---\nname: zz\x00\n---\n")

	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}`})
	c.waitPublish(uri.File(inPlugin), nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(uri.File(fifo))+`","type":2},{"uri":"`+string(uri.File(after))+`","type":2}]}`))
	c.waitPublish(uri.File(after), nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
}

// TestExcludeSetting: `ahpls.exclude` and .ahpls/config.json leave matching
// files without diagnostics; removing the setting brings them back.
func TestExcludeSetting(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) uri.URI {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\nname: x\x00\n---\n"), 0o644))
		return uri.File(p)
	}
	fixture := mk("test/fixtures/.github/skills/f/SKILL.md")
	byConfig := mk("examples/.github/skills/e/SKILL.md")
	kept := mk(".github/skills/k/SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".ahpls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".ahpls", "config.json"), []byte(`{"exclude":["examples"]}`), 0o644))

	c := newTestClient(t, clientSetup{folders: []string{root}, initOpts: json.RawMessage(`{"ahpls":{"exclude":["**/fixtures/**"]}}`)})
	c.waitPublish(kept, nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	// An excluded file opened in the editor gets no findings either.
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(fixture, 1, "---\nname: x\x00\n---\n")))
	c.waitPublish(fixture, ptr(1), func(ds []wireDiag) bool { return len(ds) == 0 })
	for _, n := range c.notesSnapshot() {
		if n.Method == "textDocument/publishDiagnostics" {
			require.NotContains(t, string(n.Params), "examples", "excluded by .ahpls/config.json")
		}
	}
	m := c.mark()
	require.NoError(t, c.notify("workspace/didChangeConfiguration", `{"settings":{"ahpls":{}}}`))
	c.waitPublishFrom(m, fixture, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	_ = byConfig
}

// TestDeepAndIgnoredFiles (issue #25): the scan reaches a file twelve
// folders deep; a file .gitignore ignores gets no findings, open or not,
// unless a consumer loads it although ignored (.claude/…).
func TestDeepAndIgnoredFiles(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, text string) uri.URI {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return uri.File(p)
	}
	const bad = "---\nname: x\x00\n---\n"
	deep := mk("a1/a2/a3/a4/a5/a6/a7/a8/a9/a10/a11/a12/.github/skills/d/SKILL.md", bad)
	ignored := mk("dist/.github/skills/i/SKILL.md", bad)
	kept := mk(".claude/skills/k/SKILL.md", bad)
	mk(".gitignore", "dist/\n.claude/\n")
	mk(".git/index", "DIRC\x00\x00\x00\x02\x00\x00\x00\x00") // a work tree: .gitignore counts

	c := newTestClient(t, clientSetup{folders: []string{root}})
	c.waitPublish(deep, nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	c.waitPublish(kept, nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(ignored, 1, bad)))
	c.waitPublish(ignored, ptr(1), func(ds []wireDiag) bool { return len(ds) == 0 })
}

// TestGitIgnoreChange: a file a .gitignore stops ignoring is found when the
// editor reports the .gitignore change.
func TestGitIgnoreChange(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, text string) uri.URI {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return uri.File(p)
	}
	const bad = "---\nname: x\x00\n---\n"
	seen := mk(".github/skills/s/SKILL.md", bad)
	hidden := mk("dist/.github/skills/h/SKILL.md", bad)
	gi := mk(".gitignore", "dist/\n")
	mk(".git/index", "DIRC\x00\x00\x00\x02\x00\x00\x00\x00")
	c := newTestClient(t, clientSetup{folders: []string{root}})
	c.waitPublish(seen, nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	mk(".gitignore", "# nothing ignored\n")
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(gi)+`","type":2}]}`))
	c.waitPublish(hidden, nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
}
