package enablement

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeConn records what the language server would dispatch: it mirrors the
// server's loop (every publish path calls Publication; local toggles
// republish to every joined session; host routes dispatch the action).
type fakeConn struct {
	connected  bool
	joined     []string
	dispatched []dispatched
}

type dispatched struct {
	session string
	typ     string
	payload json.RawMessage
}

func (c *fakeConn) publish(store *ClientStore, tree ClientTree, d Dialect) {
	plugins, ok := Publication(store, tree, d)
	if !ok {
		return
	}
	for _, s := range c.joined {
		raw, _ := json.Marshal(map[string]any{"type": "session/activeClientSet",
			"activeClient": map[string]any{"clientId": "ahpls-1", "tools": []any{}, "customizations": plugins}})
		c.dispatched = append(c.dispatched, dispatched{s, "session/activeClientSet", raw})
	}
}

func (c *fakeConn) toggle(t *testing.T, store *ClientStore, tree ClientTree, ctx RouteContext, it ToggleItem, tg Toggle) (Route, error) {
	ctx.Connected = c.connected
	r, err := RouteToggle(store, ctx, it, tg)
	if err != nil {
		return r, err
	}
	if r.Local {
		c.publish(store, tree, ctx.Dialect)
	}
	if r.Action != nil {
		raw, err := json.Marshal(r.Action)
		require.NoError(t, err)
		c.dispatched = append(c.dispatched, dispatched{tg.Session, "session/customizationToggled", raw})
	}
	return r, nil
}

func (c *fakeConn) ofType(typ string) []dispatched {
	var out []dispatched
	for _, d := range c.dispatched {
		if d.typ == typ {
			out = append(out, d)
		}
	}
	return out
}

func resolvedTree(p ...ClientPluginSource) ClientTree {
	if len(p) == 0 {
		p = []ClientPluginSource{ownPlugin()}
	}
	return ClientTree{Resolved: true, Plugins: p}
}

func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

func published(t *testing.T, d dispatched) map[string]any {
	var m struct {
		ActiveClient struct {
			Customizations []map[string]any `json:"customizations"`
		} `json:"activeClient"`
	}
	require.NoError(t, json.Unmarshal(d.payload, &m))
	require.Len(t, m.ActiveClient.Customizations, 1)
	return m.ActiveClient.Customizations[0]
}

func docsKey() string { return MCPKey(ownPlugin().URI, "docs") }

func TestC01_EnablementDialectAlwaysPublishesGlobal(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	plugins, ok := Publication(c, resolvedTree(), DialectEnablement)
	require.True(t, ok)
	require.Len(t, plugins, 1)
	m := asMap(t, plugins[0])
	assert.Equal(t, []any{map[string]any{"kind": "global", "enabled": true}}, m["enablement"])
	assert.Equal(t, map[string]any{"docs": []any{map[string]any{"kind": "global", "enabled": true}}}, m["childEnablement"])
	assert.NotContains(t, m, "enabled")
	assert.Equal(t, "sha256-abc", m["nonce"])
	assert.Empty(t, plugins[0].Omitted, "servers stay in .mcp.json")
}

func TestC02_BooleanDialects(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	_, err := c.SetGlobal(ownPlugin().URI, false, true)
	require.NoError(t, err)
	_, err = c.SetGlobal(docsKey(), false, true)
	require.NoError(t, err)

	p08, ok := Publication(c, resolvedTree(), DialectSnapshot08)
	require.True(t, ok)
	m := asMap(t, p08[0])
	assert.Equal(t, false, m["enabled"])
	assert.NotContains(t, m, "enablement")
	assert.NotContains(t, m, "childEnablement")
	assert.Equal(t, []string{"docs"}, p08[0].Omitted)
	assert.NotEqual(t, "sha256-abc", p08[0].Nonce, "the served tree changed")

	pu, ok := Publication(c, resolvedTree(), DialectUnknown)
	require.True(t, ok)
	m = asMap(t, pu[0])
	assert.Equal(t, false, m["enabled"])
	assert.Equal(t, []any{map[string]any{"kind": "global", "enabled": false}}, m["enablement"])
	assert.NotContains(t, m, "childEnablement")
	assert.Equal(t, []string{"docs"}, pu[0].Omitted)
	assert.Equal(t, p08[0].Nonce, pu[0].Nonce)
}

func TestC03_OwnGlobalToggleIsLocal(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	conn := &fakeConn{connected: true, joined: []string{sess1, sess2}}
	ctx := RouteContext{Dialect: DialectEnablement, Directory: repo}
	it := ToggleItem{ID: "ahpls-1:workspace", Type: TypePlugin, Owned: true, Key: ownPlugin().URI, SourceDefault: true,
		OnHost: true, HostList: L(G(true))}
	r, err := conn.toggle(t, c, resolvedTree(), ctx, it, Toggle{Session: sess1, ID: it.ID, Scope: KindGlobal, Enabled: false})
	require.NoError(t, err)
	assert.True(t, r.Local)
	assert.True(t, r.Changed)
	assert.Equal(t, map[string]bool{ownPlugin().URI: false}, c.Decisions())
	sets := conn.ofType("session/activeClientSet")
	require.Len(t, sets, 2, "one activeClientSet per joined session")
	assert.Equal(t, []string{sess1, sess2}, []string{sets[0].session, sets[1].session})
	for _, s := range sets {
		p := published(t, s)
		assert.Equal(t, []any{map[string]any{"kind": "global", "enabled": false}}, p["enablement"])
		assert.Equal(t, "sha256-abc", p["nonce"], "same nonce: content did not change")
	}
	assert.Empty(t, conn.ofType("session/customizationToggled"))
}

func TestC04_SessionToggleOfBundledServerGoesToHost(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	conn := &fakeConn{connected: true, joined: []string{sess1}}
	it := ToggleItem{ID: "ahpls-ws-mcp-docs", Type: TypeMCPServer, Owned: true, Key: docsKey(), SourceDefault: true,
		OnHost: true, HostList: L(G(true))}
	_, err := conn.toggle(t, c, resolvedTree(), RouteContext{Dialect: DialectEnablement, Directory: repo}, it,
		Toggle{Session: sess1, ID: it.ID, Scope: KindSession, Enabled: false})
	require.NoError(t, err)
	got := conn.ofType("session/customizationToggled")
	require.Len(t, got, 1)
	assert.JSONEq(t, `{"type":"session/customizationToggled","id":"ahpls-ws-mcp-docs","enablement":[{"kind":"session","enabled":false},{"kind":"global","enabled":true}]}`, string(got[0].payload))
	assert.Empty(t, c.Decisions())
	assert.Empty(t, conn.ofType("session/activeClientSet"))
}

func TestC05_HostDiscoveredServerInOwnPluginGoesToHost(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	conn := &fakeConn{connected: true}
	host := L(S(true), W(true))
	it := ToggleItem{ID: "azure-id", Type: TypeMCPServer, OnHost: true, HostList: host}
	_, err := conn.toggle(t, c, resolvedTree(), RouteContext{Dialect: DialectEnablement, Directory: repo}, it,
		Toggle{Session: sess1, ID: it.ID, Scope: KindGlobal, Enabled: false})
	require.NoError(t, err)
	got := conn.ofType("session/customizationToggled")
	require.Len(t, got, 1)
	var a struct {
		ID         string `json:"id"`
		Enablement List   `json:"enablement"`
	}
	require.NoError(t, json.Unmarshal(got[0].payload, &a))
	assert.Equal(t, "azure-id", a.ID)
	assert.Equal(t, With(host, KindGlobal, G(false)), a.Enablement)
	assert.Empty(t, c.Decisions())
}

// hostView is the host's tree for the own plugin P with docs.
func hostView(pluginList, docsList List) []Node {
	p := ownPlugin()
	return []Node{{Type: TypePlugin, ID: p.ID, URI: p.URI, Name: p.Name, ClientID: "ahpls-1", Enablement: pluginList,
		Children: []Node{{Type: TypeMCPServer, ID: "docs-id", Name: "docs", Enablement: docsList},
			{Type: "skill", ID: "lint-id", Name: "lint"}}}}
}

func rowByID(t *testing.T, rows []Row, id string) Row {
	t.Helper()
	for _, r := range rows {
		if r.ID == id {
			return r
		}
	}
	require.Failf(t, "no row", "id %s", id)
	return Row{}
}

func TestC06_HostOverrideShownNotFought(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	conn := &fakeConn{connected: true, joined: []string{sess1}}
	rows := Rows(ViewInput{Dialect: DialectEnablement, Connected: true, Directory: repo, Store: c, Client: resolvedTree(),
		Host: hostView(L(G(false)), nil)})
	r := rowByID(t, rows, ownPlugin().ID)
	assert.False(t, r.On)
	assert.Equal(t, "Disabled globally (host)", r.Reason)
	assert.True(t, r.Overridden)
	g := r.Actions[len(r.Actions)-1]
	assert.Equal(t, KindGlobal, g.Scope)
	assert.Equal(t, "Disable (global) — "+NoteOverridden, g.Title, "the local toggle shows our own value")
	assert.Empty(t, c.Decisions(), "store unchanged")
	assert.Empty(t, conn.dispatched, "no republish")
}

func TestC07_CorruptStoreAndDyingWrite(t *testing.T) {
	t.Run("corrupt", func(t *testing.T) {
		dir := t.TempDir()
		path := ClientStorePath(dir, folder)
		require.NoError(t, os.WriteFile(path, []byte(`{"version":1,"global":`), 0o600))
		c, logs := openClient(t, dir)
		assert.Empty(t, c.Decisions())
		assert.Equal(t, 1, logs.count("level=WARN"))
		assert.Contains(t, logs.String(), path)
		_, err := os.Stat(path + ".corrupt")
		assert.NoError(t, err, ".corrupt kept")
		_, ok := Publication(c, resolvedTree(), DialectEnablement)
		assert.True(t, ok, "publication proceeds")
	})
	t.Run("write dies before rename", func(t *testing.T) {
		dir := t.TempDir()
		c, _ := openClient(t, dir)
		_, err := c.SetGlobal(ownPlugin().URI, false, true)
		require.NoError(t, err)
		path := ClientStorePath(dir, folder)
		before, err := os.ReadFile(path)
		require.NoError(t, err)
		crash := errors.New("killed")
		c.s.beforeRename = func() error { return crash }
		_, err = c.SetGlobal(docsKey(), false, true)
		require.ErrorIs(t, err, crash)
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, before, after, "old file intact")
		temps, _ := filepath.Glob(path + ".tmp-*")
		assert.Len(t, temps, 1, "the crash left its temp file")
		c2, logs := openClient(t, dir)
		assert.Equal(t, map[string]bool{ownPlugin().URI: false}, c2.Decisions())
		assert.Zero(t, logs.count("level=WARN"))
		temps, _ = filepath.Glob(path + ".tmp-*")
		assert.Empty(t, temps, "stray temp removed")
	})
}

func TestC08_DisabledPluginExplainsChild(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	rows := Rows(ViewInput{Dialect: DialectEnablement, Connected: true, Directory: repo, Store: c, Client: resolvedTree(),
		Host: hostView(L(W(false), G(true)), L(S(false)))})
	r := rowByID(t, rows, "docs-id")
	assert.False(t, r.On)
	require.NotNil(t, r.Cause)
	assert.Equal(t, ReasonPlugin, r.Cause.Kind)
	assert.Equal(t, "Disabled because plugin Workspace is disabled (workspace)", r.Reason)
	assert.Equal(t, []RowAction{{Title: "Enable plugin Workspace (workspace)", ID: ownPlugin().ID, Scope: KindWorkspace, Enabled: true}}, r.Actions)
	leaf := rowByID(t, rows, "lint-id")
	assert.Equal(t, ReasonPlugin, leaf.Cause.Kind, "a disabled plugin's skills are off too")
}

func TestC09_DisconnectedToggles(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	conn := &fakeConn{connected: false, joined: []string{sess1}}
	ctx := RouteContext{Dialect: DialectEnablement, Directory: repo}
	it := ToggleItem{ID: "docs-id", Type: TypeMCPServer, Owned: true, Key: docsKey(), SourceDefault: true, OnHost: true, HostList: L(G(true))}
	_, err := conn.toggle(t, c, resolvedTree(), ctx, it, Toggle{Session: sess1, ID: it.ID, Scope: KindSession, Enabled: false})
	assert.ErrorIs(t, err, ErrNotConnected)
	assert.Contains(t, err.Error(), "not connected")
	assert.Empty(t, conn.dispatched, "nothing queued or sent")
	r, err := conn.toggle(t, c, resolvedTree(), ctx, it, Toggle{Session: sess1, ID: it.ID, Scope: KindGlobal, Enabled: false})
	require.NoError(t, err)
	assert.True(t, r.Local)
	assert.Equal(t, map[string]bool{docsKey(): false}, c.Decisions())
}

func TestC10_EveryPublishPathReadsTheStore(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	conn := &fakeConn{connected: true, joined: []string{sess1}}
	tree := resolvedTree()
	last := func() map[string]any { s := conn.ofType("session/activeClientSet"); return published(t, s[len(s)-1]) }
	enabled := func(v bool) []any { return []any{map[string]any{"kind": "global", "enabled": v}} }

	conn.publish(c, tree, DialectEnablement) // join
	assert.Equal(t, enabled(true), last()["enablement"])
	_, err := c.SetGlobal(ownPlugin().URI, false, true)
	require.NoError(t, err)
	tree.Plugins[0].Nonce = "sha256-def"
	conn.publish(c, tree, DialectEnablement) // content change
	assert.Equal(t, enabled(false), last()["enablement"])
	assert.Equal(t, "sha256-def", last()["nonce"])
	_, err = c.SetGlobal(ownPlugin().URI, true, true)
	require.NoError(t, err)
	conn.publish(c, tree, DialectEnablement) // reconnect re-assert
	assert.Equal(t, enabled(true), last()["enablement"])
	it := ToggleItem{ID: "ahpls-1:workspace", Type: TypePlugin, Owned: true, Key: ownPlugin().URI, SourceDefault: true}
	_, err = conn.toggle(t, c, tree, RouteContext{Dialect: DialectEnablement}, it, Toggle{Session: sess1, Scope: KindGlobal, Enabled: false})
	require.NoError(t, err)
	assert.Equal(t, enabled(false), last()["enablement"])
	conn.publish(c, tree, DialectSnapshot08) // dialect change
	assert.Equal(t, false, last()["enabled"])
}

func TestC11_NothingPublishedBeforeLoadAndScan(t *testing.T) {
	conn := &fakeConn{connected: true, joined: []string{sess1}}
	conn.publish(nil, resolvedTree(), DialectEnablement)
	c, _ := openClient(t, t.TempDir())
	conn.publish(c, ClientTree{Plugins: []ClientPluginSource{ownPlugin()}}, DialectEnablement)
	assert.Empty(t, conn.dispatched)
	conn.publish(c, resolvedTree(), DialectEnablement)
	assert.Len(t, conn.dispatched, 1)
}

func TestC12_ChildEnablementRebuiltFromTree(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	_, err := c.SetGlobal(docsKey(), false, true)
	require.NoError(t, err)
	without := ownPlugin()
	without.Servers = []BundledServer{{Name: "search"}}
	p, _ := Publication(c, resolvedTree(without), DialectEnablement)
	assert.Equal(t, map[string]List{"search": L(G(true))}, p[0].ChildEnablement)
	p, _ = Publication(c, resolvedTree(), DialectEnablement)
	assert.Equal(t, map[string]List{"docs": L(G(false))}, p[0].ChildEnablement, "its decision returns")
}

func TestClientStorePathAndPluginURI(t *testing.T) {
	dir := t.TempDir()
	path := ClientStorePath(dir, folder)
	assert.Regexp(t, `^[0-9a-f]{16}\.json$`, filepath.Base(path))
	assert.NotEqual(t, path, ClientStorePath(dir, "file:///work/other"))
	t.Setenv("XDG_STATE_HOME", "/state")
	d, err := DefaultStateDir()
	require.NoError(t, err)
	assert.Equal(t, "/state/ahpls/enablement", d)
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	d, err = DefaultStateDir()
	require.NoError(t, err)
	assert.Equal(t, "/home/u/.local/state/ahpls/enablement", d)
	c, _ := openClient(t, dir)
	_, err = c.SetGlobal("k", false, true)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"folder":"file:///work/proj","global":{"k":false},"lru":[{"scope":"global","key":"k"}]}`, string(data))
}

func TestRouteToggleShapes(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	host := ToggleItem{ID: "x", Type: TypeMCPServer, OnHost: true, HostList: L(G(true))}
	tests := []struct {
		name string
		ctx  RouteContext
		it   ToggleItem
		tg   Toggle
		want string
		err  error
	}{
		{"0.8 session", RouteContext{Dialect: DialectSnapshot08, Connected: true}, host,
			Toggle{Scope: KindSession, Enabled: false}, `{"type":"session/customizationToggled","id":"x","enabled":false}`, nil},
		{"0.8 workspace not offered", RouteContext{Dialect: DialectSnapshot08, Connected: true, Directory: repo}, host,
			Toggle{Scope: KindWorkspace}, "", ErrScopeUnsupported},
		{"workspace needs a directory", RouteContext{Dialect: DialectEnablement, Connected: true}, host,
			Toggle{Scope: KindWorkspace}, "", ErrNoDirectory},
		{"workspace carries the directory", RouteContext{Dialect: DialectEnablement, Connected: true, Directory: repo}, host,
			Toggle{Scope: KindWorkspace, Enabled: false},
			`{"type":"session/customizationToggled","id":"x","enablement":[{"kind":"workspace","uri":"file:///repo","enabled":false},{"kind":"global","enabled":true}]}`, nil},
		{"leaf is session-wide", RouteContext{Dialect: DialectEnablement, Connected: true}, ToggleItem{ID: "s", Type: "skill", OnHost: true},
			Toggle{Scope: KindSession, Enabled: false},
			`{"type":"session/customizationToggled","id":"s","enablement":[{"kind":"session","enabled":false}]}`, nil},
		{"no host item yet", RouteContext{Dialect: DialectEnablement, Connected: true}, ToggleItem{ID: "y", Type: TypeMCPServer},
			Toggle{Scope: KindSession}, "", ErrNoHostItem},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := RouteToggle(c, tc.ctx, tc.it, tc.tg)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			raw, err := json.Marshal(r.Action)
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(raw))
		})
	}
}

func TestRowsTexts(t *testing.T) {
	c, _ := openClient(t, t.TempDir())
	in := ViewInput{Dialect: DialectEnablement, Connected: true, Directory: repo, Store: c, Client: resolvedTree()}
	hostMCP := func(l List) []Node {
		return []Node{{Type: TypeMCPServer, ID: "top", Name: "stdio", Enablement: l}}
	}
	tests := []struct {
		name    string
		host    []Node
		id      string
		reason  string
		actions []string
	}{
		{"session", hostMCP(L(S(false))), "top", "Disabled for this session", []string{"Enable (session)", "Disable (workspace)", "Disable (global)"}},
		{"workspace", hostMCP(L(W(false))), "top", "Disabled in workspace file:///repo", []string{"Enable (session)", "Enable (workspace)", "Disable (global)"}},
		{"host global", hostMCP(L(G(false))), "top", "Disabled globally (host)", []string{"Enable (session)", "Enable (workspace)", "Enable (global)"}},
		{"on", hostMCP(nil), "top", "", []string{"Disable (session)", "Disable (workspace)", "Disable (global)"}},
		{"own global", hostView(L(G(true)), L(G(false))), "docs-id", "Disabled globally (host)", []string{"Enable (session)", "Enable (workspace)", "Disable (global) — overridden by host"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in.Host = tc.host
			r := rowByID(t, Rows(in), tc.id)
			assert.Equal(t, tc.reason, r.Reason)
			var titles []string
			for _, a := range r.Actions {
				titles = append(titles, a.Title)
			}
			assert.Equal(t, tc.actions, titles)
		})
	}
	t.Run("own global disabled here", func(t *testing.T) {
		_, err := c.SetGlobal(docsKey(), false, true)
		require.NoError(t, err)
		in.Host = hostView(L(G(true)), L(G(false)))
		r := rowByID(t, Rows(in), "docs-id")
		assert.Equal(t, "Disabled globally (this editor)", r.Reason)
		assert.False(t, r.Overridden)
	})
	t.Run("unconfirmed", func(t *testing.T) {
		in.Host = nil
		rows := Rows(in)
		require.Len(t, rows, 2)
		assert.True(t, rows[0].Pending && rows[1].Pending)
		assert.Equal(t, NoteUnconfirmed, rows[1].Reason)
		assert.False(t, rows[1].On, "docs disabled locally")
		assert.Equal(t, []RowAction{{Title: "Enable (global)", ID: docsKey(), Scope: KindGlobal, Enabled: true}}, rows[1].Actions)
	})
	t.Run("0.8 omitted own server", func(t *testing.T) {
		in.Dialect = DialectSnapshot08
		host := hostView(nil, nil)
		host[0].Enabled = bp(true)
		host[0].Children = host[0].Children[1:] // docs left out of .mcp.json
		in.Host = host
		rows := Rows(in)
		var docs *Row
		for i := range rows {
			if rows[i].Name == "docs" {
				docs = &rows[i]
			}
		}
		require.NotNil(t, docs)
		assert.True(t, docs.Pending)
		p := rowByID(t, rows, ownPlugin().ID)
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		assert.Equal(t, []string{"Disable (session)", "Disable (global)"}, titles, "0.8: host-routed toggles are session only")
	})
	assert.False(t, strings.Contains(ownPlugin().URI, "ahpls-1"), "plugin URI free of client id")
}
