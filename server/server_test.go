package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

func skillURI(root, name string) uri.URI {
	return uri.File(filepath.Join(root, ".github", "skills", name, "SKILL.md"))
}

// A broken file gets diagnostics at the exact range with the document's
// version; fixing it publishes [] (never null) with the new version.
func TestOpenBrokenThenFix(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "demo")

	// "é" is 2 bytes but 1 UTF-16 unit: the NUL sits at UTF-16 column 10.
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: démo\x00\ndescription: x\n---\n")))
	p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	d := withCode(p.diags(t), "file/encoding")[0]
	assert.Equal(t, 1, d.Range.Start.Line)
	assert.Equal(t, 10, d.Range.Start.Character)
	assert.Equal(t, 1, d.Range.End.Line)
	assert.Equal(t, 11, d.Range.End.Character)
	assert.Equal(t, 1, d.Severity)
	assert.Equal(t, "ahpls", d.Source)
	assert.Equal(t, model.RuleHref("file/encoding"), d.CodeDescription.Href)

	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 2, "---\nname: demo\ndescription: A demo skill.\n---\nBody.\n")))
	fixed := c.waitPublish(u, ptr(2), nil)
	assert.Equal(t, "[]", string(fixed.Diagnostics), "a clean file publishes [] (not null)")

	// Closing a file that is not on disk clears it (again with []).
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 3, "\x00")))
	c.waitPublish(u, ptr(3), func(ds []wireDiag) bool { return len(ds) == 1 })
	m := c.mark()
	require.NoError(t, c.notify("textDocument/didClose", `{"textDocument":{"uri":"`+string(u)+`"}}`))
	closed := c.waitPublishFrom(m, u, nil, func(ds []wireDiag) bool { return len(ds) == 0 })
	assert.Nil(t, closed.Version)
	assert.Equal(t, "[]", string(closed.Diagnostics))
}

// An edit that leaves the findings as they were publishes nothing.
func TestPublishOnlyOnChange(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "same")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: same\x00\n---\nbody\n")))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(ds) == 1 })
	// Same findings at the same positions: body text changes only.
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 2, "---\nname: same\x00\n---\nother body\n")))
	// A real change afterwards, as a marker that version 2 was handled.
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(u, 3, "---\nname: same\n---\n")))
	c.waitPublish(u, ptr(3), nil)
	for _, n := range c.notesSnapshot() {
		if n.Method == "textDocument/publishDiagnostics" {
			assert.NotContains(t, string(n.Params), `"version":2`)
		}
	}
}

// The SKILL.md case with a real skill rule, once the Markdown room's skill
// rules are registered.
func TestOpenBrokenSkillName(t *testing.T) {
	if _, ok := diagnostics.LookupRule("skill/name-charset"); !ok {
		t.Skip("skill/name-charset is not registered yet")
	}
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "plugin-settings")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 3, "---\nname: Plugin Settings\ndescription: Tunes plugins.\n---\n")))
	p := c.waitPublish(u, ptr(3), func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) > 0 })
	d := withCode(p.diags(t), "skill/name-charset")[0]
	assert.Equal(t, 1, d.Range.Start.Line)
	assert.GreaterOrEqual(t, d.Range.Start.Character, len("name: "))
	assert.NotEmpty(t, d.Data.Verdicts)
	require.NoError(t, c.notify("textDocument/didChange", didChangeRange(u, 4, 1, 6, 1, 21, "plugin-settings")))
	c.waitPublish(u, ptr(4), func(ds []wireDiag) bool { return len(withCode(ds, "skill/name-charset")) == 0 })
}

// With "utf-8" offered, positions count bytes; the server says so.
func TestPositionEncodingUTF8(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"general":{"positionEncodings":["utf-8","utf-16"]}}`, noInit: true})
	res := c.initialize(clientSetup{folders: []string{root}, caps: `{"general":{"positionEncodings":["utf-8","utf-16"]}}`})
	var init struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
			TextDocumentSync struct {
				Change int `json:"change"`
			} `json:"textDocumentSync"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(res, &init))
	assert.Equal(t, "utf-8", init.Capabilities.PositionEncoding)
	assert.Equal(t, 2, init.Capabilities.TextDocumentSync.Change, "incremental sync")

	u := skillURI(root, "demo")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: démo\x00\n---\n")))
	p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	assert.Equal(t, len("name: démo"), withCode(p.diags(t), "file/encoding")[0].Range.Start.Character)

	// An incremental edit in byte columns: delete the NUL.
	require.NoError(t, c.notify("textDocument/didChange", didChangeRange(u, 2, 1, len("name: démo"), 1, len("name: démo")+1, "")))
	c.waitPublish(u, ptr(2), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 0 })
	snap, ok := c.srv.DocumentSnapshot(u)
	require.True(t, ok)
	assert.Equal(t, "---\nname: démo\n---\n", string(snap.Text))
}

func TestLifecycle(t *testing.T) {
	t.Run("requests before initialize", func(t *testing.T) {
		c := newTestClient(t, clientSetup{noInit: true})
		err := c.call("textDocument/hover", `{"textDocument":{"uri":"file:///x.md"},"position":{"line":0,"character":0}}`, nil)
		var je *jsonrpc2.Error
		require.ErrorAs(t, err, &je)
		assert.Equal(t, jsonrpc2.ServerNotInitialized, je.Code)
	})
	t.Run("shutdown then exit is 0", func(t *testing.T) {
		c := newTestClient(t, clientSetup{})
		require.NoError(t, c.call("shutdown", `null`, nil))
		err := c.call("textDocument/hover", `{"textDocument":{"uri":"file:///x.md"},"position":{"line":0,"character":0}}`, nil)
		var je *jsonrpc2.Error
		require.ErrorAs(t, err, &je)
		assert.Equal(t, jsonrpc2.InvalidRequest, je.Code)
		require.NoError(t, c.notify("exit", `null`))
		assert.Equal(t, 0, <-c.code)
		c.code <- 0
	})
	t.Run("exit without shutdown is 1", func(t *testing.T) {
		c := newTestClient(t, clientSetup{})
		require.NoError(t, c.notify("exit", `null`))
		assert.Equal(t, 1, <-c.code)
		c.code <- 1
	})
	t.Run("initialize twice", func(t *testing.T) {
		c := newTestClient(t, clientSetup{})
		err := c.call("initialize", `{"processId":null,"rootUri":null,"capabilities":{}}`, nil)
		var je *jsonrpc2.Error
		require.ErrorAs(t, err, &je)
		assert.Equal(t, jsonrpc2.InvalidRequest, je.Code)
	})
}

// Customization files on disk get diagnostics without being opened; a
// deleted file is cleared; open buffers win over disk.
func TestWorkspaceScanAndWatchedFiles(t *testing.T) {
	root := t.TempDir()
	bad := filepath.Join(root, ".github", "skills", "broken", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	require.NoError(t, os.WriteFile(bad, []byte("---\nname: broken\x00\n---\n"), 0o644))
	// Not ours: must not be published.
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.md"), []byte("x\x00"), 0o644))
	// Skipped folder.
	nm := filepath.Join(root, "node_modules", "p", ".github", "skills", "x", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(nm), 0o755))
	require.NoError(t, os.WriteFile(nm, []byte("\x00"), 0o644))

	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}`})
	u := uri.File(bad)
	p := c.waitPublish(u, nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	assert.Nil(t, p.Version, "disk diagnostics carry no version")
	reg := c.waitRequest("client/registerCapability")
	assert.Contains(t, string(reg.Params), "workspace/didChangeWatchedFiles")

	// The open buffer wins: a disk change event is ignored while it is open.
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 7, "---\nname: broken\ndescription: ok\n---\n")))
	c.waitPublish(u, ptr(7), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 0 })
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(u)+`","type":2}]}`))
	m := c.mark()
	require.NoError(t, c.notify("textDocument/didClose", `{"textDocument":{"uri":"`+string(u)+`"}}`))
	// Closed: back to the disk's text, which still has the NUL.
	back := c.waitPublishFrom(m, u, nil, nil)
	assert.Len(t, withCode(back.diags(t), "file/encoding"), 1)
	assert.Nil(t, back.Version)

	// Mark before the removal: the server's own watcher may see it and
	// publish before the editor's event arrives (which is then a repeat
	// and checked no more).
	m = c.mark()
	require.NoError(t, os.Remove(bad))
	require.NoError(t, c.notify("workspace/didChangeWatchedFiles", `{"changes":[{"uri":"`+string(u)+`","type":3}]}`))
	cleared := c.waitPublishFrom(m, u, nil, nil)
	assert.Equal(t, "[]", string(cleared.Diagnostics))

	for _, n := range c.notesSnapshot() {
		if n.Method == "textDocument/publishDiagnostics" {
			assert.NotContains(t, string(n.Params), "notes.md")
			assert.NotContains(t, string(n.Params), "node_modules")
		}
	}
}

func (c *testClient) notesSnapshot() []note {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]note(nil), c.notes...)
}

// Without editor-side watching the server watches with fsnotify.
func TestFSNotifyFallback(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".github", "skills", "late")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	c := newTestClient(t, clientSetup{folders: []string{root}})
	// Wait until the initial scan ran (initialized is processed in order
	// before this request is answered, and the watcher is set up before the
	// scan), then create a broken file.
	require.Eventually(t, c.srv.fsWatchRunning, waitLimit, time.Millisecond)
	f := filepath.Join(dir, "SKILL.md")
	require.NoError(t, os.WriteFile(f, []byte("---\nname: late\x00\n---\n"), 0o644))
	c.waitPublish(uri.File(f), nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	m := c.mark()
	require.NoError(t, os.Remove(f))
	gone := c.waitPublishFrom(m, uri.File(f), nil, nil)
	assert.Equal(t, "[]", string(gone.Diagnostics))
}

func TestSettings(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, initOpts: json.RawMessage(`{"ahpls":{"targets":["vscode","nope"],"rules":{"file/encoding":"warning"}}}`)})
	c.waitFor("unknown target warning", func(n note) bool {
		return n.Method == "window/showMessage" && strings.Contains(string(n.Params), "'nope'")
	})
	assert.Equal(t, []model.Target{model.TargetVSCode}, c.srv.Settings().Targets)

	u := skillURI(root, "demo")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: a\x00\n---\n")))
	p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	assert.Equal(t, 2, withCode(p.diags(t), "file/encoding")[0].Severity, "ahpls.rules overrides the level")

	// Push-style configuration change: the rule is turned off and every open
	// file is re-checked.
	require.NoError(t, c.notify("workspace/didChangeConfiguration", `{"settings":{"ahpls":{"rules":{"file/encoding":"off"}}}}`))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 0 })
}

// With workspace/configuration support the server pulls the section, on
// initialized and again on every didChangeConfiguration.
func TestConfigurationPull(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}, caps: `{"workspace":{"configuration":true}}`, config: json.RawMessage(`{"rules":{"file/encoding":"off"}}`)})
	req := c.waitRequest("workspace/configuration")
	assert.Contains(t, string(req.Params), `"section":"ahpls"`)
	require.Eventually(t, func() bool { _, ok := c.srv.Settings().Rules["file/encoding"]; return ok }, waitLimit, time.Millisecond)

	u := skillURI(root, "demo")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: a\x00\n---\n")))
	p := c.waitPublish(u, ptr(1), nil)
	assert.Empty(t, withCode(p.diags(t), "file/encoding"))

	c.mu.Lock()
	c.config = json.RawMessage(`{"rules":{}}`)
	c.mu.Unlock()
	require.NoError(t, c.notify("workspace/didChangeConfiguration", `{"settings":null}`))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
}

// A client without an `ahpls` section answers the pull with null; the
// initializationOptions stay in force.
func TestConfigurationPullNullKeepsInitOptions(t *testing.T) {
	c := newTestClient(t, clientSetup{folders: []string{t.TempDir()}, caps: `{"workspace":{"configuration":true}}`, initOpts: json.RawMessage(`{"rules":{"fm/crlf":"error"}}`)})
	c.waitRequest("workspace/configuration")
	// The scan is logged after the pull's answer was applied.
	c.waitFor("scan log", func(n note) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "customization files in")
	})
	assert.Equal(t, model.SeverityError, c.srv.Settings().Rules["fm/crlf"])
}

func TestExecuteCommands(t *testing.T) {
	c := newTestClient(t, clientSetup{})
	var res map[string]any
	require.NoError(t, c.call("workspace/executeCommand", `{"command":"test.sync"}`, &res))
	assert.Equal(t, true, res["ok"])

	// The server has no host commands of its own (they are the bridge's).
	err := c.call("workspace/executeCommand", `{"command":"ahpls.toggleCustomization","arguments":[{"uri":"file:///x"}]}`, nil)
	require.Error(t, err)
}

func TestExternalDiagnosticsMerge(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "demo")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: a\x00\n---\n")))
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })

	var ext []wireDiag
	_ = ext
	c.srv.SetExternalDiagnostics("ahpls-host", u, []protocolDiagnostic{hostDiag("The agent host could not load this skill.")})
	p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(ds) == 2 })
	ds := p.diags(t)
	assert.Equal(t, "file/encoding", ds[0].Code, "rule diagnostics first")
	assert.Equal(t, "ahpls-host", ds[1].Source)

	all := c.srv.Diagnostics()
	require.Len(t, all, 1)
	assert.Len(t, all[0].Diagnostics, 2)
	assert.Equal(t, ".github/skills/demo/SKILL.md", all[0].Rel)

	c.srv.SetExternalDiagnostics("ahpls-host", u, nil)
	c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(ds) == 1 })
}

// Related information points at the first of two duplicate keys, in the same
// file, with a range in the negotiated encoding.
func TestRelatedInformation(t *testing.T) {
	if _, ok := diagnostics.LookupRule("yaml/duplicate-key"); !ok {
		t.Skip("yaml/duplicate-key is not registered")
	}
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	u := skillURI(root, "dup")
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(u, 1, "---\nname: dup\ndescription: a\ndescription: b\n---\n")))
	p := c.waitPublish(u, ptr(1), func(ds []wireDiag) bool { return len(withCode(ds, "yaml/duplicate-key")) == 1 })
	d := withCode(p.diags(t), "yaml/duplicate-key")[0]
	assert.Equal(t, 3, d.Range.Start.Line, "the second key")
	require.Len(t, d.RelatedInformation, 1)
	assert.Equal(t, string(u), d.RelatedInformation[0].Location.URI)
	assert.NotEmpty(t, d.Data.Verdicts)
}

// A plugin manifest that exists only in an open buffer already decides
// what the files of its plugin are (open buffers win over disk).
func TestLayoutFromOpenManifest(t *testing.T) {
	root := t.TempDir()
	c := newTestClient(t, clientSetup{folders: []string{root}})
	agent := uri.File(filepath.Join(root, "plugins", "p", "agents", "helper.md"))
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(agent, 1, "no header here\n")))
	first := c.waitPublish(agent, ptr(1), nil)
	assert.Equal(t, "[]", string(first.Diagnostics), "without a manifest this is no customization file")

	manifest := uri.File(filepath.Join(root, "plugins", "p", ".claude-plugin", "plugin.json"))
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(manifest, 1, `{"name": "p"}`)))
	m := c.mark()
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(agent, 2, "still no header\n")))
	p := c.waitPublishFrom(m, agent, ptr(2), nil)
	assert.NotEmpty(t, p.diags(t), "a Claude plugin's agents/*.md is a Claude agent")
}

func TestWorkspaceFoldersChange(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	bad := filepath.Join(b, ".github", "skills", "x", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	require.NoError(t, os.WriteFile(bad, []byte("---\nname: x\x00\n---\n"), 0o644))
	c := newTestClient(t, clientSetup{folders: []string{a}, opts: Options{NoFSNotify: true}})
	require.NoError(t, c.notify("workspace/didChangeWorkspaceFolders", fmt.Sprintf(`{"event":{"added":[{"uri":%q,"name":"b"}],"removed":[]}}`, uri.File(b))))
	c.waitPublish(uri.File(bad), nil, func(ds []wireDiag) bool { return len(withCode(ds, "file/encoding")) == 1 })
	m := c.mark()
	require.NoError(t, c.notify("workspace/didChangeWorkspaceFolders", fmt.Sprintf(`{"event":{"added":[],"removed":[{"uri":%q,"name":"b"}]}}`, uri.File(b))))
	gone := c.waitPublishFrom(m, uri.File(bad), nil, nil)
	assert.Equal(t, "[]", string(gone.Diagnostics), "a removed folder's files are cleared")
}

func TestProgressAndShowDocumentFromOtherGoroutines(t *testing.T) {
	c := newTestClient(t, clientSetup{caps: `{"window":{"workDoneProgress":true,"showDocument":{"support":true}}}`})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := c.srv.StartProgress(context.Background(), "Connecting", "to the agent host")
		p.Report("halfway", 50)
		p.End("connected")
		res, err := c.srv.ShowDocument(context.Background(), &protocol.ShowDocumentParams{URI: "file:///tmp/a.md"})
		assert.NoError(t, err)
		assert.True(t, res.Success)
	}()
	<-done
	c.waitRequest("window/workDoneProgress/create")
	var kinds []string
	c.waitFor("progress end", func(n note) bool {
		if n.Method != "$/progress" {
			return false
		}
		var p struct {
			Value struct {
				Kind string `json:"kind"`
			} `json:"value"`
		}
		_ = json.Unmarshal(n.Params, &p)
		kinds = append(kinds, p.Value.Kind)
		return p.Value.Kind == "end"
	})
	assert.Equal(t, []string{"begin", "report", "end"}, kinds)
}

// Saving a file re-checks the files whose cross-file rules read it: a
// parent skill that stops linking its nested skill turns the nested one's
// Info into a Warning.
func TestSaveRechecksDependents(t *testing.T) {
	if _, ok := diagnostics.LookupRule("skill/nested"); !ok {
		t.Skip("skill/nested is not registered")
	}
	root := t.TempDir()
	parent := filepath.Join(root, ".github", "skills", "parent", "SKILL.md")
	nested := filepath.Join(root, ".github", "skills", "parent", "sub", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(nested), 0o755))
	linked := "---\nname: parent\ndescription: Has a nested skill.\n---\nSee [sub](sub/SKILL.md).\n"
	require.NoError(t, os.WriteFile(parent, []byte(linked), 0o644))
	require.NoError(t, os.WriteFile(nested, []byte("---\nname: sub\ndescription: Nested.\n---\n"), 0o644))

	c := newTestClient(t, clientSetup{folders: []string{root}, opts: Options{NoFSNotify: true}})
	first := c.waitPublish(uri.File(nested), nil, func(ds []wireDiag) bool { return len(withCode(ds, "skill/nested")) == 1 })
	assert.Equal(t, 3, withCode(first.diags(t), "skill/nested")[0].Severity, "linked from its parent: Info")

	pu := uri.File(parent)
	require.NoError(t, c.notify("textDocument/didOpen", didOpen(pu, 1, linked)))
	unlinked := "---\nname: parent\ndescription: No links any more.\n---\nBody.\n"
	require.NoError(t, c.notify("textDocument/didChange", didChangeFull(pu, 2, unlinked)))
	require.NoError(t, os.WriteFile(parent, []byte(unlinked), 0o644))
	m := c.mark()
	require.NoError(t, c.notify("textDocument/didSave", fmt.Sprintf(`{"textDocument":{"uri":%q}}`, pu)))
	after := c.waitPublishFrom(m, uri.File(nested), nil, func(ds []wireDiag) bool { return len(withCode(ds, "skill/nested")) == 1 })
	assert.Equal(t, 2, withCode(after.diags(t), "skill/nested")[0].Severity, "no longer linked: Warning")
}
