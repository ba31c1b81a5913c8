package hostlink

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

func globalList(on bool) []any {
	return []any{map[string]any{"kind": "global", "enabled": on}}
}

// A Global toggle of our own plugin is a local decision: it is stored,
// republished (same nonce), survives a restart of the link over the same
// state directory and a reconnect, and no later publication reverts it.
func TestOwnGlobalToggleSurvivesRestartAndReconnect(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		host := startHost(t, dl.with(ahptest.Options{}))
		ws := workspace(t)
		state := t.TempDir()
		h1 := newHarness(t, harnessOpts{host: host, ws: ws, stateDir: state})
		h1.published("proj", "tooling")
		h1.settled(h1.session, "proj", "tooling")
		nonce := h1.nonce("proj")
		sets := host.acSets.Load()

		ctx := t.Context()
		require.NoError(t, h1.link.Toggle(ctx, h1.session, h1.pluginID("proj"), enablement.KindGlobal, false))
		host.wait(t, "plugin disabled", func(v *ahptest.View) bool {
			e := entryPlugin(v, h1.session, h1.cid(), h1.pluginID("proj"))
			return e != nil && host.on(e) == false
		})
		assert.Equal(t, false, host.on(h1.hostPlugin("proj")), "spelled for the dialect: `enabled` in 0.8, a global list in 1.x")
		assert.Equal(t, nonce, h1.nonce("proj"), "a toggle does not change content")
		assert.Equal(t, sets+1, host.acSets.Load(), "one toggle, one activeClientSet, no toggle action")

		// A bundled server disabled locally: 0.8 has no field for it, so it
		// is left out of the served .mcp.json under a new nonce; 1.x says
		// so in childEnablement and the tree (and nonce) stay as they are.
		docs := h1.rowID("mcpServer", "docs")
		require.NotEmpty(t, docs)
		require.NoError(t, h1.link.Toggle(ctx, h1.session, docs, enablement.KindGlobal, false))
		if host.v1 {
			host.wait(t, "docs disabled in childEnablement", func(v *ahptest.View) bool {
				return childOn(entryPlugin(v, h1.session, h1.cid(), h1.pluginID("proj")), "docs") == false
			})
		} else {
			host.wait(t, "new nonce for the filtered tree", func(v *ahptest.View) bool {
				e := entryPlugin(v, h1.session, h1.cid(), h1.pluginID("proj"))
				return e != nil && e["nonce"] != nonce
			})
		}
		filtered := h1.nonce("proj")
		served, err := host.ResourceRead(ctx, h1.cid(), h1.pluginURI("proj")+"/.mcp.json")
		require.NoError(t, err)
		if host.v1 {
			assert.Equal(t, nonce, filtered, "servers stay in .mcp.json: same tree, same nonce")
			assert.Contains(t, served, `"docs"`)
		} else {
			assert.True(t, strings.HasPrefix(filtered, nonce+"~"), "nonce %s carries the omission suffix", filtered)
			assert.NotContains(t, served, `"docs"`)
		}
		assert.Contains(t, served, `"web"`)

		// Restart: a new link over the same state directory.
		cid := h1.cid()
		h1.stop()
		h2 := newHarness(t, harnessOpts{host: host, ws: ws, stateDir: state, session: h1.session})
		require.Equal(t, cid, h2.cid(), "the clientId is stable per workspace")
		h2.ed.wait(t, "h2 connected", func() bool {
			for _, s := range h2.ed.Statuses() {
				if strings.HasPrefix(s, StatusConnected) {
					return true
				}
			}
			return false
		})
		host.wait(t, "h2 joined", func(v *ahptest.View) bool {
			return v.Connected(cid) && v.Subscribed(cid, h2.session)
		})
		waitUntil(t, "h2 ready", func() bool { return h2.localNonce("proj") != "" })
		assert.Equal(t, filtered, h2.localNonce("proj"), "the restarted link publishes the same tree")
		for _, p := range h2.link.Status().Plugins {
			if p.Name == "proj" && !host.v1 {
				assert.Equal(t, []string{"docs"}, p.Omitted)
			} else if p.Name == "proj" {
				assert.Empty(t, p.Omitted)
			}
		}
		served, err = host.ResourceRead(ctx, cid, h2.pluginURI("proj")+"/.mcp.json")
		require.NoError(t, err)
		if host.v1 {
			assert.Contains(t, served, `"docs"`)
			host.wait(t, "docs still disabled after the restart", func(v *ahptest.View) bool {
				return childOn(entryPlugin(v, h2.session, cid, h2.pluginID("proj")), "docs") == false
			})
		} else {
			assert.NotContains(t, served, `"docs"`)
		}

		// A content change republishes with the decision intact.
		h2.change(".github/skills/fmt/SKILL.md", fmtSkill+"\nMore.\n")
		host.wait(t, "republished after the edit", func(v *ahptest.View) bool {
			e := entryPlugin(v, h2.session, cid, h2.pluginID("proj"))
			return e != nil && e["nonce"] == h2.localNonce("proj") && e["nonce"] != filtered
		})
		host.wait(t, "still disabled, spelled for the dialect", func(v *ahptest.View) bool {
			return host.on(entryPlugin(v, h2.session, cid, h2.pluginID("proj"))) == false
		})

		// Reconnect: an outage during which the content changes again; the
		// entry is re-asserted once the socket is back.
		host.RefuseConnections(true)
		seen := len(h2.ed.Statuses())
		require.NoError(t, host.Drop(cid))
		// "disconnected", then "connecting: retrying in N s (why)" per attempt.
		h2.ed.wait(t, "disconnected status", func() bool {
			st := h2.ed.Statuses()
			return len(st) > seen && slices.ContainsFunc(st[seen:], func(s string) bool { return strings.HasPrefix(s, StatusDisconnected) })
		})
		// Host-routed toggles fail while disconnected; nothing is queued.
		err = h2.link.Toggle(ctx, h2.session, h2.pluginID("proj"), enablement.KindSession, true)
		assert.ErrorIs(t, err, enablement.ErrNotConnected)
		h2.change(".github/skills/fmt/SKILL.md", fmtSkill+"\nEven more.\n")
		offline := h2.localNonce("proj")
		host.RefuseConnections(false)
		host.wait(t, "entry re-asserted after reconnect", func(v *ahptest.View) bool {
			e := entryPlugin(v, h2.session, cid, h2.pluginID("proj"))
			return e != nil && e["nonce"] == offline
		})
		host.wait(t, "still disabled, spelled for the dialect", func(v *ahptest.View) bool {
			return host.on(entryPlugin(v, h2.session, cid, h2.pluginID("proj"))) == false
		})
		h2.ed.wait(t, "connected again", func() bool {
			st := h2.ed.Statuses()
			return strings.HasPrefix(st[len(st)-1], StatusConnected)
		})

		// Never overwritten by a stale publication: after the toggle, every
		// entry the host accepted had the plugin disabled.
		seenToggle := false
		for _, e := range host.Entries() {
			l, _ := e["customizations"].([]any)
			for _, c := range l {
				m := c.(map[string]any)
				if m["id"] != h1.pluginID("proj") {
					continue
				}
				if effectiveOn(m) == false {
					seenToggle = true
				} else if seenToggle {
					t.Errorf("a later activeClientSet re-enabled the plugin: %v", m)
				}
			}
		}
		assert.True(t, seenToggle)

		// Re-enabling restores inheritance: nothing stays stored.
		require.NoError(t, h2.link.Toggle(ctx, h2.session, h2.pluginID("proj"), enablement.KindGlobal, true))
		host.wait(t, "plugin enabled again", func(v *ahptest.View) bool {
			e := entryPlugin(v, h2.session, cid, h2.pluginID("proj"))
			return e != nil && host.on(e) == true
		})
		assert.Equal(t, 1, h2.link.folders[0].store.Len(), "only the docs decision remains stored")
	})
}

// Once the host shows our plugin (0.8 booleans), a Session toggle is the
// host's business: a customizationToggled action on the session channel,
// the local store untouched. Host items (a directory) route the same way.
func TestHostRoutedToggles(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, harnessOpts{versions: dl.versions})
		h.published("proj")
		h.settled(h.session, "proj")
		dirURI := "file://" + h.path(".github/agents")
		h.emit(h.session, `{"type":"session/customizationUpdated","customization":{"type":"directory","id":"dir-agents","uri":"`+dirURI+`","name":"Workspace agents","enabled":true,"contents":"agent","writable":false,"children":[{"type":"agent","id":"a-rev","uri":"`+dirURI+`/reviewer.agent.md","name":"reviewer"}]}}`)
		// The entry speaks the host's dialect (0.8: learnt from the host's
		// booleans, the list dropped; 1.x: lists from the start).
		h.host.wait(t, "dialect-shaped entry", func(v *ahptest.View) bool {
			return h.host.on(entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))) == true
		})
		waitUntil(t, "rows show the host items", func() bool {
			found := 0
			for _, r := range h.link.Rows(h.session) {
				if r.ID == h.pluginID("proj") || r.ID == "a-rev" {
					found++
				}
			}
			return found == 2
		})
		sets := h.host.acSets.Load()

		require.NoError(t, h.link.Toggle(t.Context(), h.session, h.pluginID("proj"), enablement.KindSession, false))
		host := func(id string) map[string]any {
			st, _ := h.host.State(h.session)
			for _, c := range st["customizations"].([]any) {
				if m := c.(map[string]any); m["id"] == id {
					return m
				}
			}
			return nil
		}
		assert.Equal(t, false, host(h.pluginID("proj"))["enabled"])
		assert.Equal(t, 0, h.link.folders[0].store.Len(), "a session toggle is not stored locally")
		// The toggle as sent, in the dialect's shape: {id, enabled} for 0.8,
		// {id, enablement} with every explicit decision for 1.x.
		toggles := h.host.Toggles()
		require.Len(t, toggles, 1)
		if h.host.v1 {
			assert.NotContains(t, toggles[0], "enabled")
			// The list replaces every explicit decision: ours in the Session
			// scope, and the Global one the entry carries (ahp.md §9).
			assert.Equal(t, []any{map[string]any{"kind": "session", "enabled": false}, map[string]any{"kind": "global", "enabled": true}}, toggles[0]["enablement"])
		} else {
			assert.Equal(t, false, toggles[0]["enabled"])
			assert.NotContains(t, toggles[0], "enablement")
		}
		assert.Equal(t, h.pluginID("proj"), toggles[0]["id"])

		require.NoError(t, h.link.Toggle(t.Context(), h.session, "a-rev", enablement.KindSession, false))
		children := host("dir-agents")["children"].([]any)
		assert.Equal(t, false, children[0].(map[string]any)["enabled"])
		assert.Equal(t, sets, h.host.acSets.Load(), "host toggles never republish the entry")

		// A scope the dialect cannot express is refused, not guessed.
		err := h.link.Toggle(t.Context(), h.session, "a-rev", enablement.KindWorkspace, false)
		assert.ErrorIs(t, err, enablement.ErrScopeUnsupported)
		assert.Error(t, h.link.Toggle(t.Context(), h.session, "no-such-id", enablement.KindSession, false))
	})
}

type recordingExecutor struct {
	started chan bool
	stopped chan struct{}
}

func (e *recordingExecutor) Start(_ context.Context, c *ahpclient.Client) { e.started <- c != nil }
func (e *recordingExecutor) Stop()                                        { close(e.stopped) }

// The tool executor hook is started with the live client and stopped when
// the link ends.
func TestExecutorHook(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		ex := &recordingExecutor{started: make(chan bool, 1), stopped: make(chan struct{})}
		h := newHarness(t, harnessOpts{versions: dl.versions, cfg: func(c *Config) { c.Executor = ex }})
		select {
		case ok := <-ex.started:
			assert.True(t, ok)
		case <-time.After(waitTimeout):
			t.Fatal("executor not started")
		}
		h.stop()
		select {
		case <-ex.stopped:
		case <-time.After(waitTimeout):
			t.Fatal("executor not stopped")
		}
	})
}

// Two workspace folders: each publishes its own plugins under its own
// folder key, and a Global toggle lands in that folder's store only.
func TestTwoFolders(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		host := startHost(t, dl.with(ahptest.Options{}))
		a := workspace(t)
		b := filepath.Join(filepath.Dir(a), "other")
		writeFiles(t, b, map[string]string{".github/skills/docs/SKILL.md": "---\nname: docs\ndescription: Write the docs for a change.\n---\n"})
		session := host.CreateSession(ahptest.SessionSpec{Title: "Both", WorkingDirectories: []string{virtualplugin.FolderURI(filepath.Dir(a))}})
		ed := newFakeEditor(a, b)
		l, err := New(Config{Host: settings.Host{URL: host.URL()}, StateDir: t.TempDir(), DebounceDelay: time.Millisecond}, ed, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })

		idA := pluginID(l.ClientID(), virtualplugin.FolderKey(a), "proj")
		idB := pluginID(l.ClientID(), virtualplugin.FolderKey(b), "other")
		host.wait(t, "both folders published", func(v *ahptest.View) bool {
			return entryPlugin(v, session, l.ClientID(), idA) != nil && entryPlugin(v, session, l.ClientID(), idB) != nil
		})
		require.NoError(t, l.Toggle(t.Context(), session, idB, enablement.KindGlobal, false))
		host.wait(t, "b disabled", func(v *ahptest.View) bool {
			return host.on(entryPlugin(v, session, l.ClientID(), idB)) == false
		})
		host.wait(t, "a untouched", func(v *ahptest.View) bool {
			return host.on(entryPlugin(v, session, l.ClientID(), idA)) == true
		})
		var storeA, storeB int
		for _, f := range l.folders {
			if f.abs == a {
				storeA = f.store.Len()
			} else {
				storeB = f.store.Len()
			}
		}
		assert.Equal(t, 0, storeA)
		assert.Equal(t, 1, storeB)
	})
}

// The entry as each dialect spells it. Against a host speaking enablement
// lists (AHP 1.x) it carries `enablement` and `childEnablement` and no
// `enabled`; a bundled server disabled globally stays in the served
// .mcp.json and keeps the nonce. Against 0.8 it carries `enabled` only,
// and the disabled server is left out of the tree under a new nonce.
func TestEnablementDialect(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		host := startHost(t, dl.with(ahptest.Options{}))
		h := newHarness(t, harnessOpts{host: host})
		h.published("proj")
		defer func() {
			if t.Failed() {
				t.Logf("status %+v", h.link.Status())
				st, _ := host.State(h.session)
				b, _ := json.Marshal(st)
				t.Logf("host state %s", b)
				ls, _ := h.link.client.State(h.session)
				b, _ = json.Marshal(ls)
				t.Logf("mirror state %s", b)
			}
		}()
		h.settled(h.session, "proj")
		want := "0.8.0"
		if host.v1 {
			want = "1.0.0"
		}
		assert.Equal(t, want, h.link.client.ProtocolVersion())
		p := h.hostPlugin("proj")
		if host.v1 {
			assert.NotContains(t, p, "enabled")
			assert.Equal(t, globalList(true), p["enablement"])
			assert.Equal(t, map[string]any{"docs": globalList(true), "web": globalList(true)}, p["childEnablement"])
		} else {
			assert.Equal(t, true, p["enabled"])
			assert.NotContains(t, p, "enablement")
			assert.NotContains(t, p, "childEnablement")
		}
		nonce := h.nonce("proj")

		var docs string
		waitUntil(t, "docs row", func() bool { docs = h.rowID("mcpServer", "docs"); return docs != "" })
		require.NoError(t, h.link.Toggle(t.Context(), h.session, docs, enablement.KindGlobal, false))
		if host.v1 {
			host.wait(t, "docs disabled in childEnablement", func(v *ahptest.View) bool {
				return childOn(entryPlugin(v, h.session, h.cid(), h.pluginID("proj")), "docs") == false
			})
			assert.Equal(t, nonce, h.nonce("proj"), "servers stay in .mcp.json: same tree, same nonce")
		} else {
			host.wait(t, "a new nonce for the tree without docs", func(v *ahptest.View) bool {
				e := entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))
				return e != nil && e["nonce"] != nonce
			})
			assert.NotContains(t, h.hostPlugin("proj"), "childEnablement")
		}
		assert.Equal(t, true, host.on(h.hostPlugin("proj")), "the plugin itself stays enabled")
		served, err := host.ResourceRead(t.Context(), h.cid(), h.pluginURI("proj")+"/.mcp.json")
		require.NoError(t, err)
		assert.Equal(t, host.v1, strings.Contains(served, `"docs"`), "docs served: %s", served)
		assert.Contains(t, served, `"web"`)
	})
}

// effectiveOn reads a published plugin leniently, as a host would: a
// restarted link publishes both spellings until it learns a 0.8 host's
// dialect, so neither spelling alone may be required here.
func effectiveOn(p map[string]any) any {
	if on, ok := p["enabled"]; ok {
		return on
	}
	l, _ := p["enablement"].([]any)
	if len(l) == 0 {
		return true
	}
	m, _ := l[0].(map[string]any)
	return m["enabled"]
}

// childOn is a bundled server's Global decision in our entry's
// childEnablement (1.x), or nil.
func childOn(p map[string]any, name string) any {
	ce, _ := p["childEnablement"].(map[string]any)
	l, _ := ce[name].([]any)
	if len(l) != 1 {
		return nil
	}
	m, _ := l[0].(map[string]any)
	return m["enabled"]
}

// "Toggle this file": the rows a file stands for, most specific first, and
// a toggle without a session reaching every joined session.
func TestFileRowsAndSessionlessToggle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, harnessOpts{versions: dl.versions})
		h.published("proj")
		h.settled(h.session, "proj")
		lint := h.path(".github/skills/lint/SKILL.md")

		var rows []enablement.Row
		waitUntil(t, "rows for the skill", func() bool { rows = h.link.FileRows(h.session, lint); return len(rows) == 2 })
		assert.Equal(t, "skill", rows[0].Type, "the leaf comes first")
		assert.Equal(t, h.pluginID("proj"), rows[1].ID)
		mcpRows := h.link.FileRows(h.session, h.path(".mcp.json"))
		require.Len(t, mcpRows, 3)
		assert.Equal(t, []string{"docs", "web", "proj"}, []string{mcpRows[0].Name, mcpRows[1].Name, mcpRows[2].Name})
		assert.Empty(t, h.link.FileRows(h.session, h.path("src/main.go")))
		offline := h.link.FileRows("", lint)
		require.Len(t, offline, 1, "without a session: the plugin only")

		// The leaf, in every joined session.
		require.NoError(t, h.link.Toggle(t.Context(), "", rows[0].ID, enablement.KindSession, false))
		st, _ := h.host.State(h.session)
		for _, ch := range hostCustomization(st, h.pluginID("proj"))["children"].([]any) {
			if m := ch.(map[string]any); m["id"] == rows[0].ID {
				assert.Equal(t, false, m["enabled"])
			}
		}
		// Our own Global needs no session at all.
		require.NoError(t, h.link.Toggle(t.Context(), "", h.pluginID("proj"), enablement.KindGlobal, false))
		h.host.wait(t, "plugin disabled", func(v *ahptest.View) bool {
			return h.host.on(entryPlugin(v, h.session, h.cid(), h.pluginID("proj"))) == false
		})
	})
}
