package hostlink

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// esPath is a workspace file of the harness.
func esPath(h *harness, rel string) string { return filepath.Join(h.ws, filepath.FromSlash(rel)) }

// esRule keeps a file's diagnostics of one rule.
func esRule(ds []model.Diagnostic, rule string) []model.Diagnostic {
	var out []model.Diagnostic
	for _, d := range ds {
		if d.Rule == rule {
			out = append(out, d)
		}
	}
	return out
}

// esHints are the enablement hints the editor shows on a file.
func esHints(h *harness, p string) []model.Diagnostic {
	return esRule(h.ed.Diags(p), RuleEnablementState)
}

// esWaitHint waits until a file shows exactly one enablement hint
// containing want, and returns it.
func esWaitHint(t *testing.T, h *harness, p, want string) model.Diagnostic {
	t.Helper()
	var got model.Diagnostic
	h.ed.wait(t, filepath.Base(p)+" hint "+want, func() bool {
		ds := esHints(h, p)
		if len(ds) == 1 && strings.Contains(ds[0].Message, want) {
			got = ds[0]
			return true
		}
		return false
	})
	return got
}

func esWaitNoHint(t *testing.T, h *harness, p string) {
	t.Helper()
	h.ed.wait(t, filepath.Base(p)+" without enablement hints", func() bool { return len(esHints(h, p)) == 0 })
}

func esSpan(text, sub string) model.Span {
	i := strings.Index(text, sub)
	return model.Span{Start: i, End: i + len(sub)}
}

// The effective state shows on the files it concerns: a plugin disabled
// here marks each of its customization files (and each server key of its
// .mcp.json) with why, a session decision by the host marks that one file,
// and turning things back on removes the hints. Things that are on are
// never marked.
func TestEnablementHintsFollowDecisions(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.published("proj", "tooling")
	h.settled(h.session, "proj", "tooling")
	lint := esPath(h, ".github/skills/lint/SKILL.md")
	fmtFile := esPath(h, ".github/skills/fmt/SKILL.md")
	agent := esPath(h, ".github/agents/reviewer.agent.md")
	mcp := esPath(h, ".mcp.json")
	release := esPath(h, "plugins/tooling/skills/release/SKILL.md")
	manifest := esPath(h, "plugins/tooling/.plugin/plugin.json")
	var leaf string
	waitUntil(t, "the host lists the lint skill", func() bool {
		rows := h.link.FileRows(h.session, lint)
		if len(rows) == 2 {
			leaf = rows[0].ID
		}
		return leaf != ""
	})
	for p, ds := range h.ed.AllDiags() {
		assert.Empty(t, esRule(ds, RuleEnablementState), "%s: everything is on, nothing is said", p)
	}

	// The plugin, off in this editor.
	require.NoError(t, h.link.Toggle(t.Context(), h.session, h.pluginID("proj"), enablement.KindGlobal, false))
	d := esWaitHint(t, h, lint, "plugin proj is disabled")
	assert.Equal(t, "Disabled because plugin proj is disabled (globally (this editor))", d.Message)
	assert.Equal(t, model.SeverityHint, d.Severity)
	assert.Equal(t, model.Span{Start: 0, End: 3}, d.Span, "the first line")
	esWaitHint(t, h, fmtFile, "plugin proj is disabled")
	esWaitHint(t, h, agent, "plugin proj is disabled")
	h.ed.wait(t, "both servers of .mcp.json", func() bool { return len(esHints(h, mcp)) == 2 })
	servers := esHints(h, mcp)
	assert.Equal(t, esSpan(mcpJSON, `"docs"`), servers[0].Span)
	assert.Equal(t, esSpan(mcpJSON, `"web"`), servers[1].Span)
	for _, s := range servers {
		assert.Equal(t, "Disabled because plugin proj is disabled (globally (this editor))", s.Message)
	}
	assert.Empty(t, esHints(h, release), "the other plugin is on")
	assert.Empty(t, esHints(h, manifest))

	// Back on: every hint goes.
	require.NoError(t, h.link.Toggle(t.Context(), h.session, h.pluginID("proj"), enablement.KindGlobal, true))
	for _, p := range []string{lint, fmtFile, agent, mcp} {
		esWaitNoHint(t, h, p)
	}

	// The host decides for one skill in this session.
	h.emit(h.session, fmt.Sprintf(`{"type":"session/customizationToggled","id":%q,"enabled":false}`, leaf))
	d = esWaitHint(t, h, lint, "Disabled for this session")
	assert.Equal(t, "Disabled for this session", d.Message)
	assert.Empty(t, esHints(h, fmtFile), "only the skill decided on")
	h.emit(h.session, fmt.Sprintf(`{"type":"session/customizationToggled","id":%q,"enabled":true}`, leaf))
	esWaitNoHint(t, h, lint)

	// The other plugin, as a whole, on its manifest.
	require.NoError(t, h.link.Toggle(t.Context(), h.session, h.pluginID("tooling"), enablement.KindGlobal, false))
	d = esWaitHint(t, h, manifest, "Disabled")
	assert.Equal(t, "Disabled globally (this editor)", d.Message)
	esWaitHint(t, h, release, "plugin tooling is disabled")
	assert.Empty(t, esHints(h, lint))

	// Closing the link takes the hints with it.
	h.stop()
	assert.Empty(t, h.ed.AllDiags())
}

// A decision the host has not confirmed shows as pending; an untouched
// default waiting for the host does not (that is every file at start).
func TestEnablementHintPending(t *testing.T) {
	off := false
	h := newHarness(t, harnessOpts{host: startHost(t, ahptest.Options{LoadClientPlugins: &off})})
	h.published("proj")
	lint := esPath(h, ".github/skills/lint/SKILL.md")
	waitUntil(t, "our plugin pending", func() bool {
		rows := h.link.FileRows(h.session, lint)
		return len(rows) == 1 && rows[0].Pending
	})
	for p, ds := range h.ed.AllDiags() {
		assert.Empty(t, esRule(ds, RuleEnablementState), "%s: defaults are not hinted", p)
	}

	require.NoError(t, h.link.Toggle(t.Context(), h.session, h.pluginID("proj"), enablement.KindGlobal, false))
	d := esWaitHint(t, h, lint, PendingPrefix)
	assert.Equal(t, PendingPrefix+"disabled globally (this editor)", d.Message)
	assert.Equal(t, model.SeverityHint, d.Severity)

	// The host shows the plugin (off): confirmed, the reason replaces it.
	h.emit(h.session, strings.Replace(h.pluginUpdateES("proj"), `"enabled":true`, `"enabled":false`, 1))
	d = esWaitHint(t, h, lint, "plugin proj is disabled")
	assert.Equal(t, "Disabled because plugin proj is disabled (globally (this editor))", d.Message)
}

// pluginUpdateES is a host customizationUpdated for one of our plugins,
// loaded, with no children.
func (h *harness) pluginUpdateES(name string) string {
	return fmt.Sprintf(`{"type":"session/customizationUpdated","customization":{"type":"plugin","id":%q,"uri":%q,"name":%q,"enabled":true,"clientId":%q,"load":{"kind":"loaded"},"children":[]}}`,
		h.pluginID(name), h.pluginURI(name), name, h.cid())
}

const esToolsJSON = `{
  "version": 1,
  "tools": [
    {
      "name": "run_tests",
      "description": "Runs the tests.",
      "inputSchema": {"type": "object"},
      "command": {"argv": ["go", "test", "./..."]}
    }
  ]
}
`

const esToolsJSON2 = `{
  "version": 1,
  "tools": [
    {
      "name": "run_tests",
      "description": "Runs the tests.",
      "inputSchema": {"type": "object"},
      "command": {"argv": ["go", "test", "./..."]}
    },
    {
      "name": "vet",
      "description": "Vets the code.",
      "inputSchema": {"type": "object"},
      "command": {"argv": ["go", "vet", "./..."]}
    }
  ]
}
`

// Command tools of an untrusted workspace are not registered, and the
// config says so at each tool's "command" key, until the workspace is
// trusted or the tool is gone.
func TestUntrustedToolsShowOnConfig(t *testing.T) {
	ws := workspace(t)
	writeFiles(t, ws, map[string]string{tools.ConfigFile: esToolsJSON})
	h := newHarness(t, harnessOpts{ws: ws})
	h.published("proj")
	cfg := esPath(h, tools.ConfigFile)
	untrusted := func() []model.Diagnostic { return esRule(h.ed.Diags(cfg), RuleToolsUntrusted) }

	h.ed.wait(t, "the untrusted warning", func() bool { return len(untrusted()) == 1 })
	d := untrusted()[0]
	assert.Equal(t, model.SeverityWarning, d.Severity)
	assert.Equal(t, `"command"`, esToolsJSON[d.Span.Start:d.Span.End], "at the command key")
	assert.Contains(t, d.Message, `"run_tests"`)
	assert.Contains(t, d.Message, tools.UntrustedReason)
	assert.NotEmpty(t, h.link.Registries()[0].Blocked(), "and the tool is not registered")

	h.link.SetTrusted(true)
	h.ed.wait(t, "trusted: cleared", func() bool { return len(untrusted()) == 0 })
	h.link.SetTrusted(false)
	h.ed.wait(t, "untrusted again", func() bool { return len(untrusted()) == 1 })

	// The file changes: one warning per command tool.
	h.change(tools.ConfigFile, esToolsJSON2)
	h.ed.wait(t, "two tools, two warnings", func() bool { return len(untrusted()) == 2 })
	for i, d := range untrusted() {
		assert.Equal(t, `"command"`, esToolsJSON2[d.Span.Start:d.Span.End], "warning %d", i)
	}
	require.NoError(t, os.Remove(cfg))
	h.link.FilesChanged(cfg)
	h.waitApplied()
	h.ed.wait(t, "no config, no warning", func() bool { return len(untrusted()) == 0 })
}

// With two sessions joined, a hint that holds in one of them names it; one
// that holds in both does not.
func TestEnablementHintsNameTheSession(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.published("proj")
	h.settled(h.session, "proj")
	s2 := h.host.CreateSession(ahptest.SessionSpec{Title: "Refactor", WorkingDirectories: []string{virtualplugin.FolderURI(h.ws)}})
	h.settled(s2, "proj")
	lint := esPath(h, ".github/skills/lint/SKILL.md")
	var leaf string
	waitUntil(t, "both sessions list the lint skill", func() bool {
		r1, r2 := h.link.FileRows(h.session, lint), h.link.FileRows(s2, lint)
		if len(r1) == 2 && len(r2) == 2 {
			leaf = r1[0].ID
		}
		return leaf != ""
	})

	h.emit(h.session, fmt.Sprintf(`{"type":"session/customizationToggled","id":%q,"enabled":false}`, leaf))
	d := esWaitHint(t, h, lint, "Disabled for this session")
	assert.Equal(t, `Disabled for this session (session "Fix flaky test")`, d.Message)

	h.emit(h.session, fmt.Sprintf(`{"type":"session/customizationToggled","id":%q,"enabled":true}`, leaf))
	require.NoError(t, h.link.Toggle(t.Context(), "", h.pluginID("proj"), enablement.KindGlobal, false))
	// (While one session has the news and the other not yet, the hint
	// names the first; it converges once both have it.)
	esWaitHint(t, h, lint, "Disabled because plugin proj is disabled (globally (this editor))")
	h.ed.wait(t, "true in every session: no session named", func() bool {
		ds := esHints(h, lint)
		return len(ds) == 1 && ds[0].Message == "Disabled because plugin proj is disabled (globally (this editor))"
	})
}

// esBenchLink is a ready link over a workspace of n skills and a .mcp.json,
// never connected.
func esBenchLink(b *testing.B, n int) *Link {
	root := b.TempDir()
	ws := filepath.Join(root, "ws")
	files := map[string]string{".mcp.json": mcpJSON}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf(".github/skills/s%03d/SKILL.md", i)] = fmt.Sprintf("---\nname: s%03d\ndescription: Skill number %d of the benchmark workspace.\n---\n\nBody.\n", i, i)
	}
	for rel, text := range files {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	l, err := New(Config{Host: settings.Host{URL: "ws://127.0.0.1:1/none"}, StateDir: root}, newFakeEditor(ws), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.client.Close() })
	for _, f := range l.folders {
		l.buildFolder(f)
	}
	l.pub.markReady()
	l.republish()
	return l
}

// The editor state recomputed after every republish, for 200 skills:
// everything on (nothing to say) and the plugin off here (a pending hint
// on every file and server key, the worst case).
func BenchmarkRefreshEditorState(b *testing.B) {
	for _, off := range []bool{false, true} {
		b.Run(fmt.Sprintf("pluginOff=%v", off), func(b *testing.B) {
			l := esBenchLink(b, 200)
			if off {
				f := l.folders[0]
				pubs, _ := l.pub.published()
				for _, p := range pubs {
					if _, err := f.store.SetGlobal(p.source.URI, false, true); err != nil {
						b.Fatal(err)
					}
				}
				l.republish()
				l.es.mu.Lock()
				got := len(l.es.enablementDiags())
				l.es.mu.Unlock()
				if got != 201 {
					b.Fatalf("%d files with hints, want 201", got)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				l.es.refresh()
			}
		})
	}
}

// Under the 0.8 dialect a bundled server disabled here is left out of the
// served .mcp.json, so the host never confirms it: its key says so.
func TestEnablementHintOmittedServer(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.published("proj")
	h.settled(h.session, "proj")
	mcp := esPath(h, ".mcp.json")
	var docs string
	// Until the host lists the server, its row carries the durable key
	// (virtual://…#mcp=docs); wait for the host's own id.
	isDurable := func(id string) bool { return strings.HasPrefix(id, "virtual://") }
	waitUntil(t, "docs row from the host", func() bool { docs = h.rowID("mcpServer", "docs"); return docs != "" && !isDurable(docs) })

	require.NoError(t, h.link.Toggle(t.Context(), h.session, docs, enablement.KindGlobal, false))
	d := esWaitHint(t, h, mcp, PendingPrefix)
	assert.Equal(t, PendingPrefix+"disabled globally (this editor)", d.Message)
	assert.Equal(t, esSpan(mcpJSON, `"docs"`), d.Span, "on the server's key")

	// Left out, the server is named by its durable key again, once the
	// host has reloaded the plugin without it.
	waitUntil(t, "docs row renamed", func() bool { docs = h.rowID("mcpServer", "docs"); return isDurable(docs) })
	require.NoError(t, h.link.Toggle(t.Context(), h.session, docs, enablement.KindGlobal, true))
	esWaitNoHint(t, h, mcp)
}
