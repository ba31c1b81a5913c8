package enablement

import "slices"

// ClientPlugin is a plugin as a client published it in activeClientSet,
// with the fields the gate needs (JSON tags match the AHP wire).
type ClientPlugin struct {
	ID         string `json:"id"`
	URI        string `json:"uri"`
	Name       string `json:"name"`
	Enablement List   `json:"enablement,omitempty"`
	// ChildEnablement: a key marks a server the client bundled and whose
	// Global it owns; an empty list still counts. Bundled-ness is never
	// published back.
	ChildEnablement map[string]List `json:"childEnablement,omitempty"`
}

// ClientMaps rebuilds the gate's client inputs from every client's latest
// published plugins. Always rebuild from scratch: an append-only map gives a
// re-parsed plugin with the same URI stale verdicts.
func ClientMaps(plugins []ClientPlugin) (clientChildren map[string]map[string]List, clientPlugins map[string]ClientPlugin) {
	clientChildren = map[string]map[string]List{}
	clientPlugins = map[string]ClientPlugin{}
	for _, p := range plugins {
		clientPlugins[p.URI] = p
		if p.ChildEnablement != nil {
			m := map[string]List{}
			for name, l := range p.ChildEnablement {
				if l == nil {
					l = List{}
				}
				m[name] = l
			}
			clientChildren[p.URI] = m
		}
	}
	return clientChildren, clientPlugins
}

// Resolved is a session's tree after the gate.
type Resolved struct {
	Tree       []Node
	Pending    bool            // some item is pending
	PendingIDs map[string]bool // pending plugins and MCP servers
}

// Eligible reports whether id may be handed to a backend: pending items
// fail closed.
func (r Resolved) Eligible(id string) bool { return !r.PendingIDs[id] }

// LaunchSet maps every MCP server and leaf (containers are not keys) to
// whether it may start/be handed off now. A child needs an eligible, enabled
// container and to be eligible and on itself.
func (r Resolved) LaunchSet() map[string]bool {
	out := map[string]bool{}
	for _, n := range r.Tree {
		if n.Type == TypeMCPServer {
			out[n.ID] = r.Eligible(n.ID) && listOn(n)
		}
		for _, ch := range n.Children {
			out[ch.ID] = r.Eligible(n.ID) && ContainerOn(n) && r.Eligible(ch.ID) && own(ch)
		}
	}
	return out
}

// ResolveTree runs every plugin and MCP server of a session's tree through
// the overlay. Every publication, change event and backend hand-off must
// call it; never read a saved snapshot instead. The maps must be rebuilt
// from every client's latest activeClientSet (ClientMaps); mcpOwners maps a
// top-level server name to the URI of the plugin that owns it.
//
// Pending items pass through untouched and are listed in PendingIDs (a
// pending MCP child makes its plugin pending too). Settled plugins and MCP
// servers get the resolved list, omitted when empty. Leaves and directories
// pass through.
func ResolveTree(ov Resolver, session string, tree []Node, clientChildren map[string]map[string]List,
	clientPlugins map[string]ClientPlugin, mcpOwners map[string]string) Resolved {
	r := Resolved{PendingIDs: map[string]bool{}}
	resolve := func(n Node, t Target, client List, useClient bool) Node {
		var res Resolution
		if _, ok := find(client, KindGlobal); ok && useClient {
			var err error
			if res, err = ov.ApplyClientGlobal(session, t, client); err != nil {
				res = ov.Resolve(session, t)
			}
		} else {
			res = ov.Resolve(session, t)
		}
		if res.Pending != Settled {
			r.PendingIDs[n.ID] = true
			r.Pending = true
			return n
		}
		return withList(n, res.List)
	}
	topMCP := func(n Node) Node {
		owner := mcpOwners[n.Name]
		_, bundled := clientChildren[owner][n.Name]
		return resolve(n, MCPTarget(n, owner, bundled), nil, false)
	}
	r.Tree = make([]Node, 0, len(tree))
	for _, n := range tree {
		switch n.Type {
		case TypePlugin:
			cp, bundled := clientPlugins[n.URI]
			out := resolve(n, PluginTarget(n, bundled), cp.Enablement, bundled)
			var children []Node // copied on the first changed child
			for i, ch := range n.Children {
				if ch.Type != TypeMCPServer {
					continue
				}
				l, bundled := clientChildren[n.URI][ch.Name]
				nch := resolve(ch, MCPTarget(ch, n.URI, bundled), l, bundled)
				if r.PendingIDs[ch.ID] {
					// The backend may find the child through the plugin
					// directory, so the plugin is pending too: untouched.
					r.PendingIDs[n.ID] = true
					out = n
				}
				if !sameNode(nch, ch) {
					if children == nil {
						children = slices.Clone(n.Children)
					}
					children[i] = nch
				}
			}
			if children != nil {
				out.Children = children
			}
			r.Tree = append(r.Tree, out)
		case TypeMCPServer:
			r.Tree = append(r.Tree, topMCP(n))
		case TypeDirectory:
			out := n
			var children []Node
			for i, ch := range n.Children {
				if ch.Type != TypeMCPServer {
					continue
				}
				if nch := topMCP(ch); !sameNode(nch, ch) {
					if children == nil {
						children = slices.Clone(n.Children)
					}
					children[i] = nch
				}
			}
			if children != nil {
				out.Children = children
			}
			r.Tree = append(r.Tree, out)
		default:
			r.Tree = append(r.Tree, n)
		}
	}
	return r
}

// withList puts a settled list on n; stale incoming lists go, an empty list
// is omitted.
func withList(n Node, l List) Node {
	if len(l) == 0 {
		l = nil
	}
	if slices.Equal(n.Enablement, l) && (l != nil || n.Enablement == nil) {
		return n
	}
	n.Enablement = slices.Clone(l)
	return n
}

func sameNode(a, b Node) bool {
	return slices.Equal(a.Enablement, b.Enablement) && (a.Enablement == nil) == (b.Enablement == nil)
}
