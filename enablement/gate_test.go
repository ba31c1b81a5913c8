package enablement

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeResolver is the reference's gate fixture: stored lists are returned
// verbatim by id, else by durable key, else [{global, discoveryDefault}].
type fakeResolver struct {
	lists   map[string]List
	pending bool
	last    Target
}

func newFake() *fakeResolver { return &fakeResolver{lists: map[string]List{}} }

func (f *fakeResolver) Resolve(_ string, t Target) Resolution {
	f.last = t
	if f.pending {
		return Resolution{Pending: PendingSession}
	}
	if l, ok := f.lists[t.ID]; ok {
		return Resolution{List: l}
	}
	if k, err := t.DurableKey(); err == nil {
		if l, ok := f.lists[k]; ok {
			return Resolution{List: l}
		}
	}
	if t.DiscoveryDefault != nil {
		return Resolution{List: L(G(*t.DiscoveryDefault))}
	}
	return Resolution{List: List{}}
}

func (f *fakeResolver) Replace(t Target, l List) { f.lists[t.ID] = l }

func (f *fakeResolver) ApplyClientGlobal(s string, t Target, l List) (Resolution, error) {
	if t.Bundled && !f.pending {
		g, _ := find(l, KindGlobal)
		f.lists[t.ID] = With(f.Resolve(s, t).List, KindGlobal, g)
	}
	return f.Resolve(s, t), nil
}

func server(id, name string) Node { return Node{Type: TypeMCPServer, ID: id, Name: name} }

func pluginNode(children ...Node) Node {
	return Node{Type: TypePlugin, ID: "plugin-id", URI: pluginURI, Name: "example", Children: children}
}

func resolveTree(f Resolver, tree []Node) Resolved {
	return ResolveTree(f, sess1, tree, nil, nil, nil)
}

func TestG01_DiscoveryDefaultFalseServer(t *testing.T) {
	f := newFake()
	srv := server("server-id", "stdio")
	srv.DiscoveryDefault = bp(false)
	r := resolveTree(f, []Node{srv})
	assert.False(t, r.LaunchSet()["server-id"])
	r = resolveTree(f, r.Tree) // re-resolved from its own output
	assert.False(t, r.LaunchSet()["server-id"], "republishing never turns the config default into an enable")
	f.Replace(f.last, L(S(true)))
	assert.True(t, resolveTree(f, r.Tree).LaunchSet()["server-id"])
	f.pending = true
	assert.False(t, resolveTree(f, r.Tree).LaunchSet()["server-id"])
}

func TestG02_PendingPassesUntouched(t *testing.T) {
	f := newFake()
	f.pending = true
	in := []Node{pluginNode(server("server-id", "docs"))}
	in[0].Enablement = L(G(true))
	r := resolveTree(f, in)
	assert.Equal(t, in, r.Tree)
	assert.Equal(t, map[string]bool{"plugin-id": true, "server-id": true}, r.PendingIDs)
	assert.True(t, r.Pending)
	assert.False(t, r.Eligible("plugin-id"))
	assert.False(t, r.Eligible("server-id"))
}

func TestG03_PendingLaunchesNothing(t *testing.T) {
	f := newFake()
	f.pending = true
	r := resolveTree(f, []Node{pluginNode(server("server-id", "docs"))})
	assert.Equal(t, map[string]bool{"server-id": false}, r.LaunchSet())
}

func TestG04_EmptyResolvedListIsOmitted(t *testing.T) {
	f := newFake()
	srv := server("server-id", "docs")
	srv.Enablement = L(S(false)) // stale incoming list
	r := resolveTree(f, []Node{srv})
	assert.Nil(t, r.Tree[0].Enablement)
	assert.True(t, r.LaunchSet()["server-id"])
}

func TestG05_ClientGlobalsApplied(t *testing.T) {
	f := newFake()
	f.lists["server-id"] = L(S(false), W(true), G(true))
	children, plugins := ClientMaps([]ClientPlugin{{ID: "plugin-id", URI: pluginURI,
		Enablement: L(G(true)), ChildEnablement: map[string]List{"server": L(G(false))}}})
	r := ResolveTree(f, sess1, []Node{pluginNode(server("server-id", "server"))}, children, plugins, nil)
	assert.Equal(t, L(G(true)), r.Tree[0].Enablement)
	assert.Equal(t, L(S(false), W(true), G(false)), r.Tree[0].Children[0].Enablement)
}

func TestG06_WorkspaceKeyReachesMaterializedChildren(t *testing.T) {
	f := newFake()
	f.lists[pluginURI+"#mcp=azure"] = L(W(false))
	for _, id := range []string{"azure-in-session-1", "azure-in-session-2"} {
		r := resolveTree(f, []Node{pluginNode(server(id, "azure"))})
		assert.Equal(t, L(W(false)), r.Tree[0].Children[0].Enablement)
		assert.Equal(t, map[string]bool{id: false}, r.LaunchSet())
	}
}

func TestG07_GlobalKeyReachesNewSession(t *testing.T) {
	f := newFake()
	f.lists[pluginURI+"#mcp=azure"] = L(G(false))
	r := ResolveTree(f, sess2, []Node{pluginNode(server("azure-new", "azure"))}, nil, nil, nil)
	assert.Equal(t, L(G(false)), r.Tree[0].Children[0].Enablement)
}

func TestG08_TopLevelAndNestedShareOneKey(t *testing.T) {
	f := newFake()
	f.lists[pluginURI+"#mcp=azure"] = L(G(false))
	children := map[string]map[string]List{pluginURI: {"azure": {}}}
	nested := ResolveTree(f, sess1, []Node{pluginNode(server("azure-nested", "azure"))}, children, nil, nil)
	assert.Equal(t, L(G(false)), nested.Tree[0].Children[0].Enablement)
	top := ResolveTree(f, sess1, []Node{server("azure-top", "azure")}, children, nil, map[string]string{"azure": pluginURI})
	assert.Equal(t, L(G(false)), top.Tree[0].Enablement)
	assert.True(t, f.last.Bundled, "the owner's record lists it")
	assert.Equal(t, pluginURI, f.last.Owner)
}

func TestG09_HostGlobalOnBundledChildKept(t *testing.T) {
	f := newFake()
	f.lists["server-id"] = L(G(false))
	var cp ClientPlugin
	require.NoError(t, json.Unmarshal([]byte(`{"id":"plugin-id","uri":"`+pluginURI+`","childEnablement":{"server":[]}}`), &cp))
	children, plugins := ClientMaps([]ClientPlugin{cp})
	in := []Node{pluginNode(server("server-id", "server"))}
	r := ResolveTree(f, sess1, in, children, plugins, nil)
	assert.Equal(t, L(G(false)), r.Tree[0].Children[0].Enablement)
	assert.True(t, f.last.Bundled)
	want := in[0].Children[0]
	want.Enablement = L(G(false))
	assert.Equal(t, want, r.Tree[0].Children[0], "nothing but the list is added (no bundled flag)")
}

func TestG10_DisabledPluginHoldsBackChildren(t *testing.T) {
	f := newFake()
	f.lists["plugin-id"] = L(G(false))
	f.lists["child-id"] = L(S(true))
	tree := []Node{pluginNode(server("child-id", "docs"))}
	assert.Equal(t, map[string]bool{"child-id": false}, resolveTree(f, tree).LaunchSet())
	f.lists["plugin-id"] = List{}
	r := resolveTree(f, tree)
	assert.Equal(t, map[string]bool{"child-id": true}, r.LaunchSet())
	assert.Equal(t, L(S(true)), r.Tree[0].Children[0].Enablement)
}

func TestG11_DisabledPluginHoldsBackLeaves(t *testing.T) {
	f := newFake()
	f.lists["plugin-id"] = L(G(false))
	tree := []Node{pluginNode(Node{Type: "agent", ID: "agent-id", Name: "reviewer"})}
	assert.Equal(t, map[string]bool{"agent-id": false}, resolveTree(f, tree).LaunchSet())
	f.lists["plugin-id"] = L(G(true))
	assert.Equal(t, map[string]bool{"agent-id": true}, resolveTree(f, tree).LaunchSet())
}

// The gate over the real overlay: the loop of §3 does not erase a host
// disable (a republish re-applies the client's stale Global).
func TestGateOverOverlayStaleRepublishLoop(t *testing.T) {
	h := newHarness(t)
	cp := ClientPlugin{ID: "plugin-id", URI: pluginURI, Enablement: L(G(true)), ChildEnablement: map[string]List{"docs": L(G(true))}}
	children, plugins := ClientMaps([]ClientPlugin{cp})
	tree := []Node{pluginNode(server("docs-id", "docs"))}
	var republished []Resolved
	h.ov.OnChange(func(s []string) {
		republished = append(republished, ResolveTree(h.ov, sess1, tree, children, plugins, nil))
	})
	require.True(t, ResolveTree(h.ov, sess1, tree, children, plugins, nil).LaunchSet()["docs-id"])
	target := PluginTarget(tree[0], true)
	_, err := h.ov.Toggle(sess1, target, L(S(false), G(false)))
	require.NoError(t, err)
	require.Len(t, republished, 1, "one write, one event, one republish")
	r := republished[0]
	assert.Equal(t, L(S(false), G(true)), r.Tree[0].Enablement, "the client's Global is not stored from a toggle")
	assert.False(t, r.LaunchSet()["docs-id"])
	assert.Equal(t, emptyDurable(), h.durable())
	// A host-side Global (not from a toggle) survives the republish loop.
	_, err = h.ov.Replace(sess1, target, L(G(false)))
	require.NoError(t, err)
	r = republished[len(republished)-1]
	assert.Equal(t, L(G(false)), r.Tree[0].Enablement)
	assert.False(t, r.LaunchSet()["docs-id"])
	assert.Equal(t, map[string]bool{pluginURI: false}, h.durable().Global)
}

func TestNoopResolverSettlesEverything(t *testing.T) {
	r := resolveTree(Noop(), []Node{pluginNode(server("docs-id", "docs"), Node{Type: "skill", ID: "skill-id"})})
	assert.Empty(t, r.PendingIDs)
	assert.Equal(t, map[string]bool{"docs-id": true, "skill-id": true}, r.LaunchSet())
}
