package enablement

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPureRules(t *testing.T) {
	t.Run("Sort", func(t *testing.T) {
		assert.Equal(t, L(S(false), W(true), G(false)), Sort(L(G(false), S(false), W(true))))
	})
	t.Run("Enabled", func(t *testing.T) {
		assert.True(t, Enabled(nil))
		assert.True(t, Enabled(List{}))
		assert.False(t, Enabled(L(S(false), G(true))))
		assert.True(t, Enabled(L(W(true), G(false))))
	})
	t.Run("With", func(t *testing.T) {
		assert.Equal(t, L(S(true), G(false)), With(L(G(false)), KindSession, S(true)))
		assert.Equal(t, List{}, With(L(S(true)), KindSession), "none = clear, never nil")
		assert.Equal(t, L(W(false), G(true)), With(L(S(true), W(true), G(true)), KindWorkspace, W(false))[1:])
	})
	t.Run("Scopes", func(t *testing.T) {
		assert.Equal(t, ScopeValues{Session: true, Workspace: true, Global: true}, Scopes(nil))
		assert.Equal(t, ScopeValues{Session: false, Workspace: false, Global: false}, Scopes(L(G(false))))
		assert.Equal(t, ScopeValues{Session: false, Workspace: true, Global: false}, Scopes(L(S(false), W(true), G(false))))
	})
	t.Run("Valid", func(t *testing.T) {
		for name, tc := range map[string]struct {
			l    List
			want bool
		}{
			"empty":            {List{}, true},
			"sorted":           {L(S(true), W(false), G(true)), true},
			"unsorted":         {L(G(true), S(false)), false},
			"duplicate":        {L(G(true), G(false)), false},
			"workspace no uri": {L(Decision{Kind: KindWorkspace}), false},
			"unknown kind":     {L(Decision{Kind: "user"}), false},
		} {
			assert.Equal(t, tc.want, Valid(tc.l), name)
		}
	})
	t.Run("ContainerOn/ChildOn", func(t *testing.T) {
		dirOff := Node{Type: TypeDirectory, Enabled: bp(false)}
		plugin08 := Node{Type: TypePlugin, Enabled: bp(false)}
		pluginOn := Node{Type: TypePlugin, Enablement: L(S(true), G(false))}
		leaf := Node{Type: "skill"}
		leafOff := Node{Type: "skill", Enabled: bp(false)}
		mcpOff := Node{Type: TypeMCPServer, Enablement: L(G(false))}
		assert.False(t, ContainerOn(dirOff))
		assert.False(t, ContainerOn(plugin08))
		assert.True(t, ContainerOn(pluginOn))
		assert.True(t, ChildOn(pluginOn, leaf))
		assert.False(t, ChildOn(pluginOn, leafOff))
		assert.False(t, ChildOn(pluginOn, mcpOff))
		assert.False(t, ChildOn(dirOff, leaf))
	})
	t.Run("Reason", func(t *testing.T) {
		plugin := Node{Type: TypePlugin, ID: "p", Name: "P", URI: pluginURI, ClientID: "c", Enablement: L(G(false))}
		dir := Node{Type: TypeDirectory, ID: "d", Name: "skills", Enabled: bp(false)}
		child := Node{Type: TypeMCPServer, ID: "m", Enablement: L(S(false))}
		assert.Equal(t, &Cause{Kind: ReasonPlugin, Plugin: &PluginRef{ID: "p", Name: "P", URI: pluginURI, ClientID: "c", Enablement: L(G(false))}},
			Reason(child, &plugin), "the plugin wins over the child's own decision")
		assert.Equal(t, ReasonDirectory, Reason(Node{Type: "skill"}, &dir).Kind)
		assert.Equal(t, &Cause{Kind: ReasonScope, Scope: KindSession}, Reason(child, nil))
		assert.Equal(t, &Cause{Kind: ReasonSelf}, Reason(Node{Type: "skill", Enabled: bp(false)}, nil))
		assert.Nil(t, Reason(Node{Type: TypeMCPServer, Enablement: L(S(true), G(false))}, nil))
	})
	t.Run("DetectDialect", func(t *testing.T) {
		assert.Equal(t, DialectUnknown, DetectDialect(nil))
		assert.Equal(t, DialectSnapshot08, DetectDialect([]Node{{Type: TypePlugin, Enabled: bp(true)}}))
		assert.Equal(t, DialectEnablement, DetectDialect([]Node{{Type: TypePlugin, Enabled: bp(true),
			Children: []Node{{Type: TypeMCPServer, Enablement: List{}}}}}))
		assert.Equal(t, DialectEnablement, DetectDialect([]Node{{Type: TypeMCPServer}}), "lacking enabled")
	})
}

// P1: a kind must be a real string; an entry without one is not "session".
func TestP01_KindIsAStringWithoutZeroMeaning(t *testing.T) {
	var d Decision
	require.NoError(t, json.Unmarshal([]byte(`{"enabled":false}`), &d))
	assert.False(t, Valid(List{d}))
	assert.NotEqual(t, KindSession, d.Kind)
	assert.Equal(t, Kind("session"), KindSession)
	assert.Equal(t, Kind("workspace"), KindWorkspace)
	assert.Equal(t, Kind("global"), KindGlobal)
}

// P2: false must be encoded, never omitted (absent = on).
func TestP02_FalseIsEncoded(t *testing.T) {
	raw, err := json.Marshal(G(false))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"global","enabled":false}`, string(raw))
	raw, err = json.Marshal(Wd("file:///r", false))
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"workspace","uri":"file:///r","enabled":false}`, string(raw))
	e := PluginEntry{Type: TypePlugin, ID: "p", URI: "u", Name: "n", Enabled: bp(false)}
	raw, err = json.Marshal(e)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"enabled":false`)
}

// P3: nil and empty differ: [] in a toggle clears all, an empty resolved
// list is omitted, a child key with [] still marks a bundled server.
func TestP03_NilVersusEmpty(t *testing.T) {
	t.Run("toggle [] is sent", func(t *testing.T) {
		raw, err := json.Marshal(ToggleAction{ID: "x"})
		require.NoError(t, err)
		assert.JSONEq(t, `{"type":"session/customizationToggled","id":"x","enablement":[]}`, string(raw))
		var back struct {
			Enablement List `json:"enablement"`
		}
		require.NoError(t, json.Unmarshal(raw, &back))
		assert.NotNil(t, back.Enablement)
		assert.Empty(t, back.Enablement)
	})
	t.Run("empty resolved list omitted", func(t *testing.T) {
		r := ResolveTree(Noop(), sess1, []Node{{Type: TypePlugin, ID: "p", URI: pluginURI, Enablement: L(S(false))}}, nil, nil, nil)
		assert.Nil(t, r.Tree[0].Enablement)
		raw, err := json.Marshal(PluginEntry{Type: TypePlugin, ID: "p", Enablement: r.Tree[0].Enablement})
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "enablement")
	})
	t.Run("child key with [] is bundled", func(t *testing.T) {
		in := `{"id":"p","uri":"` + pluginURI + `","name":"P","childEnablement":{"azure":[]}}`
		var cp ClientPlugin
		require.NoError(t, json.Unmarshal([]byte(in), &cp))
		raw, err := json.Marshal(cp)
		require.NoError(t, err)
		assert.JSONEq(t, in, string(raw))
		f := newFake()
		children, plugins := ClientMaps([]ClientPlugin{cp})
		ResolveTree(f, sess1, []Node{pluginNode(server("azure-id", "azure"))}, children, plugins, nil)
		assert.True(t, f.last.Bundled)
		ResolveTree(f, sess1, []Node{pluginNode(server("other-id", "other"))}, children, plugins, nil)
		assert.False(t, f.last.Bundled, "no key, not bundled")
	})
}

// P5: lifecycle is not intent. Re-running the gate for state changes
// (starting, stopped, echoes) never writes a decision or fires an event.
func TestP05_LifecycleChangesNoDecision(t *testing.T) {
	h := newHarness(t)
	h.set(sess1, fixture, KindSession, false)
	h.clearEvents()
	before, meta := h.durable(), h.sessionMeta(sess1)
	cp := ClientPlugin{ID: fixture.ID, URI: pluginURI, Enablement: L(G(true)), ChildEnablement: map[string]List{"docs": L(G(true))}}
	children, plugins := ClientMaps([]ClientPlugin{cp})
	tree := []Node{pluginNode(server("docs-id", "docs"))}
	tree[0].ID = fixture.ID
	for range 3 { // e.g. starting, ready, stopped: each triggers a republish
		r := ResolveTree(h.ov, sess1, tree, children, plugins, nil)
		tree = r.Tree
		assert.False(t, r.LaunchSet()["docs-id"])
	}
	assert.Equal(t, before, h.durable())
	assert.Equal(t, meta, h.sessionMeta(sess1))
	assert.Empty(t, h.gotEvents())
}

// P10: differences are taken against the inherited value, never true.
func TestP10_DifferencesAgainstInherited(t *testing.T) {
	t.Run("host", TestS09_DifferencesAgainstBaseNotTrue)
	t.Run("client source default", func(t *testing.T) {
		c, _ := openClient(t, t.TempDir())
		p := ownPlugin()
		p.Servers = []BundledServer{{Name: "docs", ConfigDisabled: true}}
		changed, err := c.SetGlobal(docsKey(), false, false)
		require.NoError(t, err)
		assert.False(t, changed)
		assert.Empty(t, c.Decisions(), "off is the source default: nothing stored")
		pub, _ := Publication(c, resolvedTree(p), DialectEnablement)
		assert.Equal(t, L(G(false)), pub[0].ChildEnablement["docs"])
		_, err = c.SetGlobal(docsKey(), true, false)
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{docsKey(): true}, c.Decisions(), "an explicit enable is a difference")
	})
}

// P11: keys are stable and position-independent; plugin URIs are
// per-folder and free of client id and nonce.
func TestP11_StableKeys(t *testing.T) {
	t.Run("S15", TestS15_DurableKeys)
	t.Run("G8", TestG08_TopLevelAndNestedShareOneKey)
	u := PluginURI(folder, "workspace")
	assert.Equal(t, u, PluginURI(folder, "workspace"), "stable across restarts")
	assert.NotEqual(t, u, PluginURI("file:///work/other", "workspace"), "unique per folder")
	assert.Regexp(t, `^virtual://ahpls/[0-9a-f]{8}/workspace$`, u)
	assert.NotContains(t, u, "ahpls-1")
	assert.NotContains(t, u, ownPlugin().Nonce)
}

func BenchmarkOverlayResolve(b *testing.B) {
	ss := newSessions()
	ss.on(sess1, repo)
	ov := NewOverlay(OpenStore("", nil), ss, nil, slogDiscard())
	ov.InitSession(sess1)
	for i := range 400 {
		_, _ = ov.Set(sess1, Target{ID: fmt.Sprint("p", i), Type: TypePlugin, Source: fmt.Sprint("file:///p/", i)}, KindGlobal, false)
	}
	_, _ = ov.Set(sess1, fixture, KindWorkspace, false)
	b.ResetTimer()
	for b.Loop() {
		_ = ov.Resolve(sess1, fixture)
	}
}

func BenchmarkResolveTree(b *testing.B) {
	ss := newSessions()
	ss.on(sess1, repo)
	ov := NewOverlay(OpenStore("", nil), ss, nil, slogDiscard())
	ov.InitSession(sess1)
	var tree []Node
	var cps []ClientPlugin
	for p := range 10 {
		uri := pluginURI + string(rune('a'+p))
		n := Node{Type: TypePlugin, ID: uri, URI: uri, Name: "p"}
		cp := ClientPlugin{ID: uri, URI: uri, Enablement: L(G(true)), ChildEnablement: map[string]List{}}
		for c := range 5 {
			name := string(rune('a' + c))
			n.Children = append(n.Children, server(uri+name, name), Node{Type: "skill", ID: uri + "s" + name})
			cp.ChildEnablement[name] = L(G(c%2 == 0))
		}
		tree = append(tree, n)
		cps = append(cps, cp)
	}
	children, plugins := ClientMaps(cps)
	b.ResetTimer()
	for b.Loop() {
		r := ResolveTree(ov, sess1, tree, children, plugins, nil)
		_ = r.LaunchSet()
	}
}
