package hostlink

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// plugin builds a host customizationUpdated for one of our plugins.
func (h *harness) pluginUpdate(name, load, children string) string {
	c := fmt.Sprintf(`{"type":"plugin","id":%q,"uri":%q,"name":%q,"enabled":true,"clientId":%q`, h.pluginID(name), h.pluginURI(name), name, h.cid())
	if load != "" {
		c += `,"load":` + load
	}
	if children != "" {
		c += `,"children":` + children
	}
	return `{"type":"session/customizationUpdated","customization":` + c + `}}`
}

func (h *harness) path(rel string) string { return filepath.Join(h.ws, filepath.FromSlash(rel)) }

// only asserts the single diagnostic a file shows.
func only(t *testing.T, ds []model.Diagnostic, rule string, sev model.Severity, span model.Span, parts ...string) {
	t.Helper()
	require.Len(t, ds, 1, "diagnostics %v", ds)
	assert.Equal(t, rule, ds[0].Rule)
	assert.Equal(t, sev, ds[0].Severity)
	assert.Equal(t, span, ds[0].Span)
	for _, p := range parts {
		assert.Contains(t, ds[0].Message, p)
	}
}

func spanOf(text, sub string) model.Span {
	i := strings.Index(text, sub)
	return model.Span{Start: i, End: i + len(sub)}
}

// Load states of our plugins, of a host directory inside the workspace and
// of MCP servers become diagnostics on the files behind them, one per
// failure whatever the number of sessions, and all go when the link closes.
func TestLoadStatesBecomeDiagnostics(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		// The host's own loader is off: every state comes from the test.
		off := false
		h := newHarness(t, harnessOpts{host: startHost(t, dl.with(ahptest.Options{LoadClientPlugins: &off}))})
		h.published("proj", "tooling")
		ed := h.ed
		lint := h.path(".github/skills/lint/SKILL.md")
		fmtFile := h.path(".github/skills/fmt/SKILL.md")
		mcp := h.path(".mcp.json")
		agent := h.path(".github/agents/reviewer.agent.md")
		manifest := h.path("plugins/tooling/.plugin/plugin.json")
		firstLine := model.Span{Start: 0, End: 3} // "---"

		// A 0.8 host's enablement shape is learnt only from what the host
		// authored (issue 15), here the MCP child it reports: show one
		// first, so the republish that learning causes happens now and not
		// in the middle of the states below.
		if !h.host.v1 {
			ready := fmt.Sprintf(`[{"type":"mcpServer","id":"m-docs","uri":%q,"name":"docs","enabled":true,"state":{"kind":"ready"}}]`, h.pluginURI("proj")+"/.mcp.json")
			h.emit(h.session, h.pluginUpdate("proj", `{"kind":"loaded"}`, ready))
			h.settled(h.session, "proj")
		}

		// Our synthesized plugin, state by state.
		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"loading"}`, ""))
		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"error","message":"skills/lint/SKILL.md: missing description"}`, ""))
		ed.wait(t, "load error on the named skill", func() bool { return len(ed.Diags(lint)) > 0 })
		only(t, ed.Diags(lint), RuleLoadError, model.SeverityError, firstLine, "ahptest", `"Fix flaky test"`, "skills/lint/SKILL.md: missing description")

		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"degraded","message":"skills/fmt/SKILL.md:3: description is too short"}`, ""))
		ed.wait(t, "degraded moves to the fmt skill", func() bool { return len(ed.Diags(lint)) == 0 && len(ed.Diags(fmtFile)) > 0 })
		only(t, ed.Diags(fmtFile), RuleLoadDegraded, model.SeverityWarning, spanOf(fmtSkill, "description: Format the code base with the project's formatter."), "description is too short")

		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"degraded","message":"2 customizations were skipped"}`, ""))
		ed.wait(t, "no file named: the plugin's first Markdown file", func() bool { return len(ed.Diags(fmtFile)) == 0 && len(ed.Diags(agent)) > 0 })
		only(t, ed.Diags(agent), RuleLoadDegraded, model.SeverityWarning, firstLine, "2 customizations were skipped", `plugin "proj"`)

		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"degraded","message":"skills/lint/SKILL.md: bad header; agents/reviewer.agent.md: unknown model"}`, ""))
		ed.wait(t, "one problem per named file", func() bool {
			a := ed.Diags(agent)
			return len(ed.Diags(lint)) == 1 && len(a) == 1 && strings.Contains(a[0].Message, "unknown model")
		})
		only(t, ed.Diags(lint), RuleLoadDegraded, model.SeverityWarning, firstLine, "skills/lint/SKILL.md: bad header")
		assert.NotContains(t, ed.Diags(lint)[0].Message, "unknown model")
		only(t, ed.Diags(agent), RuleLoadDegraded, model.SeverityWarning, firstLine, "agents/reviewer.agent.md: unknown model")

		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"error","message":"copy failed: /var/cache/host/plugins/ab12/skills/fmt/SKILL.md:2: bad header"}`, ""))
		ed.wait(t, "materialized path maps back", func() bool {
			return len(ed.Diags(agent)) == 0 && len(ed.Diags(lint)) == 0 && len(ed.Diags(fmtFile)) > 0
		})
		only(t, ed.Diags(fmtFile), RuleLoadError, model.SeverityError, spanOf(fmtSkill, "name: fmt"), "bad header")

		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"loading"}`, ""))
		ed.wait(t, "loading shows nothing", func() bool { return len(ed.Diags(fmtFile)) == 0 })

		// An MCP child of our plugin in error lands on its key in .mcp.json.
		children := fmt.Sprintf(`[{"type":"skill","id":"s-lint","uri":%q,"name":"lint"},{"type":"mcpServer","id":"m-docs","uri":%q,"name":"docs","enabled":true,"state":{"kind":"error","error":{"errorType":"spawn","message":"docs-server: command not found"}}}]`,
			h.pluginURI("proj")+"/skills/lint/SKILL.md", h.pluginURI("proj")+"/.mcp.json")
		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"loaded"}`, children))
		ed.wait(t, "mcp error", func() bool { return len(ed.Diags(mcp)) > 0 })
		only(t, ed.Diags(mcp), RuleMCPError, model.SeverityError, spanOf(mcpJSON, `"docs"`), "docs-server: command not found", `MCP server "docs"`)
		h.emit(h.session, `{"type":"session/mcpServerStateChanged","id":"m-docs","state":{"kind":"ready"}}`)
		ed.wait(t, "mcp ready clears", func() bool { return len(ed.Diags(mcp)) == 0 })

		// A plugin folder's error without a file lands on its manifest.
		h.emit(h.session, h.pluginUpdate("tooling", `{"kind":"error","message":"could not copy the plugin"}`, ""))
		ed.wait(t, "manifest", func() bool { return len(ed.Diags(manifest)) > 0 })
		only(t, ed.Diags(manifest), RuleLoadError, model.SeverityError, model.Span{Start: 0, End: 1}, "could not copy the plugin", `plugin "tooling"`)
		h.emit(h.session, h.pluginUpdate("tooling", `{"kind":"loaded"}`, "[]"))
		ed.wait(t, "manifest cleared", func() bool { return len(ed.Diags(manifest)) == 0 })

		// A host directory inside the workspace: the named file, else its first
		// customization file; loaded clears.
		dirURI := virtualplugin.FolderURI(h.path(".github/agents"))
		dir := func(load string) string {
			return fmt.Sprintf(`{"type":"session/customizationUpdated","customization":{"type":"directory","id":"dir-agents","uri":%q,"name":"Workspace agents","enabled":true,"contents":"agent","writable":false,"load":%s}}`, dirURI, load)
		}
		h.emit(h.session, dir(`{"kind":"error","message":"reviewer.agent.md line 2: unknown tool 'grep'"}`))
		ed.wait(t, "directory error", func() bool { return len(ed.Diags(agent)) > 0 })
		only(t, ed.Diags(agent), RuleLoadError, model.SeverityError, spanOf(reviewerAgent, "description: Reviews pull requests for style and correctness."), "unknown tool 'grep'", `directory "Workspace agents"`)
		h.emit(h.session, dir(`{"kind":"degraded","message":"some agents were skipped"}`))
		ed.wait(t, "directory degraded", func() bool {
			ds := ed.Diags(agent)
			return len(ds) == 1 && ds[0].Rule == RuleLoadDegraded
		})
		only(t, ed.Diags(agent), RuleLoadDegraded, model.SeverityWarning, firstLine, "some agents were skipped")
		h.emit(h.session, dir(`{"kind":"loaded"}`))
		ed.wait(t, "directory loaded", func() bool { return len(ed.Diags(agent)) == 0 })

		// A top-level MCP server from the workspace's .mcp.json.
		h.emit(h.session, fmt.Sprintf(`{"type":"session/customizationUpdated","customization":{"type":"mcpServer","id":"mcp-web","uri":%q,"name":"web","enabled":true,"state":{"kind":"error","error":{"errorType":"http","message":"401 from https://example.com/mcp"}}}}`, virtualplugin.FolderURI(mcp)))
		ed.wait(t, "top-level mcp error", func() bool { return len(ed.Diags(mcp)) > 0 })
		only(t, ed.Diags(mcp), RuleMCPError, model.SeverityError, spanOf(mcpJSON, `"web"`), "401 from https://example.com/mcp")
		h.emit(h.session, `{"type":"session/customizationRemoved","id":"mcp-web"}`)
		ed.wait(t, "removed clears", func() bool { return len(ed.Diags(mcp)) == 0 })

		// Two sessions report the same failure: one diagnostic naming both.
		s2 := h.host.CreateSession(ahptest.SessionSpec{Title: "Refactor", WorkingDirectories: []string{virtualplugin.FolderURI(h.ws)}})
		h.host.wait(t, "joined the second session", func(v *ahptest.View) bool { return entryPlugin(v, s2, h.cid(), h.pluginID("proj")) != nil })
		failure := `{"kind":"error","message":"skills/lint/SKILL.md: missing description"}`
		h.emit(h.session, h.pluginUpdate("proj", failure, "[]"))
		h.emit(s2, h.pluginUpdate("proj", failure, "[]"))
		ed.wait(t, "one diagnostic naming both sessions", func() bool {
			ds := ed.Diags(lint)
			return len(ds) == 1 && strings.Contains(ds[0].Message, `sessions "Fix flaky test", "Refactor"`)
		})
		only(t, ed.Diags(lint), RuleLoadError, model.SeverityError, firstLine, `sessions "Fix flaky test", "Refactor"`)

		// One session recovers: the other still reports it.
		h.emit(h.session, h.pluginUpdate("proj", `{"kind":"loaded"}`, "[]"))
		ed.wait(t, "only the second session", func() bool {
			ds := ed.Diags(lint)
			return len(ds) == 1 && !strings.Contains(ds[0].Message, "Fix flaky test")
		})
		only(t, ed.Diags(lint), RuleLoadError, model.SeverityError, firstLine, `session "Refactor"`)

		// Closing the link clears everything the host said.
		h.emit(h.session, dir(`{"kind":"error","message":"boom"}`))
		ed.wait(t, "two files with diagnostics", func() bool { return len(ed.Diags(agent)) > 0 })
		h.stop()
		assert.Empty(t, ed.AllDiags())
	})
}

// End to end with the host's own loader: it copies our plugin through
// reverse requests, reports what it found, and the report lands on the
// file it names; the next clean load clears it.
func TestHostLoaderReportLandsOnFile(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, harnessOpts{versions: dl.versions})
		h.published("proj")
		h.settled(h.session, "proj")
		require.Positive(t, h.host.Reads(h.pluginURI("proj")), "the host read our tree")
		lint := h.path(".github/skills/lint/SKILL.md")

		require.NoError(t, h.host.SetLoadOverride(h.pluginURI("proj"), map[string]any{"kind": "degraded", "message": "skills/lint/SKILL.md: description is vague"}))
		h.change(".github/skills/fmt/SKILL.md", fmtSkill+"\nv2\n")
		h.ed.wait(t, "the host's report on the lint skill", func() bool { return len(h.ed.Diags(lint)) > 0 })
		only(t, h.ed.Diags(lint), RuleLoadDegraded, model.SeverityWarning, model.Span{Start: 0, End: 3}, "description is vague", `plugin "proj"`, `"Fix flaky test"`)

		h.change(".github/skills/fmt/SKILL.md", fmtSkill+"\nv3\n")
		h.ed.wait(t, "cleared by a clean load", func() bool { return len(h.ed.Diags(lint)) == 0 })
	})
}

// Until the host shows its dialect, a plugin carries both spellings of one
// value (ahp.md §9 rule 3). A 1.x version shows it at once: the very first
// entry the host keeps is list-only, with childEnablement. (An entry
// computed before the connection, with both spellings, may reach it first
// and is replaced at once; extra keys are legal.)
func TestUnknownDialectPublishesBoth(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		off := false
		h := newHarness(t, harnessOpts{host: startHost(t, dl.with(ahptest.Options{LoadClientPlugins: &off}))})
		p := h.hostPlugin("proj")
		global := []any{map[string]any{"kind": "global", "enabled": true}}
		if h.host.v1 {
			h.host.wait(t, "the list-only entry", func(v *ahptest.View) bool {
				p = entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))
				return h.host.dialectShaped(p)
			})
		}
		assert.Equal(t, global, p["enablement"])
		if h.host.v1 {
			assert.NotContains(t, p, "enabled", "1.x never sees `enabled` on a plugin")
			assert.Equal(t, map[string]any{"docs": global, "web": global}, p["childEnablement"])
			return
		}
		assert.Equal(t, true, p["enabled"])
		assert.Nil(t, p["childEnablement"], "no childEnablement outside the enablement dialect")
	})
}

// A top-level MCP server is marked in the workspace only when its URI says
// it comes from there, or names no file at all and the workspace defines a
// server of that name.
func TestTopLevelMCPAttribution(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		off := false
		h := newHarness(t, harnessOpts{host: startHost(t, dl.with(ahptest.Options{LoadClientPlugins: &off}))})
		h.published("proj")
		mcp := h.path(".mcp.json")
		emit := func(id, uri, name string) {
			h.emit(h.session, fmt.Sprintf(`{"type":"session/customizationUpdated","customization":{"type":"mcpServer","id":%q,"uri":%q,"name":%q,"enabled":true,"state":{"kind":"error","error":{"errorType":"spawn","message":"failed %s"}}}}`, id, uri, name, id))
		}
		emit("elsewhere", "file:///etc/agent/mcp.json", "docs")
		emit("by-name", "mcp://docs", "docs")
		h.ed.wait(t, "the by-name server", func() bool { return len(h.ed.Diags(mcp)) > 0 })
		only(t, h.ed.Diags(mcp), RuleMCPError, model.SeverityError, spanOf(mcpJSON, `"docs"`), "failed by-name")
		for p := range h.ed.AllDiags() {
			assert.Equal(t, mcp, p, "nothing lands anywhere else")
		}
	})
}
