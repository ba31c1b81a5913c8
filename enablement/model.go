// Package enablement decides whether a plugin, MCP server or leaf customization
// is on, and explains why.
//
// Enablement is a scoped list of decisions (session > workspace > global >
// default on), never a boolean. The package has two halves:
//
//   - the client half used by the language server: ClientStore (the Global
//     decisions ahpls owns for what it bundles), Publication (what ahpls
//     publishes per wire dialect), RouteToggle (local store or host action)
//     and Rows (the editor view);
//   - the host half used by the in-repo AHP test host: Overlay (host decisions
//     layered over the client's Global), ResolveTree and LaunchSet (the gate
//     every publication and launch path must pass through).
//
// Start with model.go (the pure rules), then key.go (durable identity) and
// overlay.go (the key invariant: host decisions only store differences from
// what they inherit, and the client's Global is an in-memory base). The
// normative spec is docs/enablement.md; scenario numbers in the tests refer to
// its §9. The package imports nothing else of ours.
package enablement

import (
	"slices"
)

// Kind is the scope of a decision. It is a string on purpose: a zero-value
// integer kind would silently mean "session" (pitfall P1).
type Kind string

// The three scopes, most specific first.
const (
	KindSession   Kind = "session"
	KindWorkspace Kind = "workspace"
	KindGlobal    Kind = "global"
)

// Decision is one scoped on/off decision, JSON-identical to AHP's
// CustomizationEnablement.
type Decision struct {
	Kind Kind   `json:"kind"`
	URI  string `json:"uri,omitempty"` // workspace only, required there
	// Enabled is never omitempty: an omitted false would read as "on".
	Enabled bool `json:"enabled"`
}

// List is a scoped decision list, most specific first.
type List []Decision

func rank(k Kind) int {
	switch k {
	case KindSession:
		return 0
	case KindWorkspace:
		return 1
	case KindGlobal:
		return 2
	}
	return 3
}

// Sort returns a copy of l stably ordered session, workspace, global.
func Sort(l List) List {
	out := slices.Clone(l)
	slices.SortStableFunc(out, func(a, b Decision) int { return rank(a.Kind) - rank(b.Kind) })
	return out
}

// Valid reports whether l is a list we may produce: known kinds, at most one
// per kind, workspace entries carry a uri, sorted. Lists read from a host are
// not validated; consumers just take l[0].
func Valid(l List) bool {
	seen := map[Kind]bool{}
	for i, d := range l {
		if rank(d.Kind) > 2 || seen[d.Kind] {
			return false
		}
		if d.Kind == KindWorkspace && d.URI == "" {
			return false
		}
		if i > 0 && rank(l[i-1].Kind) > rank(d.Kind) {
			return false
		}
		seen[d.Kind] = true
	}
	return true
}

// Enabled is the effective value of a list: the first entry decides, an
// empty or nil list inherits the default, which is on.
func Enabled(l List) bool {
	if len(l) == 0 {
		return true
	}
	return l[0].Enabled
}

// With returns l without entries of kind k, plus d (none clears the scope),
// sorted. The result is never nil so that an emptied list still encodes as [].
func With(l List, k Kind, d ...Decision) List {
	out := List{}
	for _, e := range l {
		if e.Kind != k {
			out = append(out, e)
		}
	}
	out = append(out, d...)
	return Sort(out)
}

// find returns the first entry of kind k.
func find(l List, k Kind) (Decision, bool) {
	for _, d := range l {
		if d.Kind == k {
			return d, true
		}
	}
	return Decision{}, false
}

// ScopeValues is what each scope currently yields for an item.
type ScopeValues struct {
	Session   bool `json:"session"`
	Workspace bool `json:"workspace"`
	Global    bool `json:"global"`
}

// Get returns the value for scope k (unknown kinds read as Session).
func (s ScopeValues) Get(k Kind) bool {
	switch k {
	case KindGlobal:
		return s.Global
	case KindWorkspace:
		return s.Workspace
	}
	return s.Session
}

// Scopes derives what each scope would inherit from l: Global is the global
// entry or on, Workspace the workspace entry or Global, Session the effective
// value. Toggling a scope to !Scopes(l).Get(scope) is a real change; writing
// the inherited value clears the scope.
func Scopes(l List) ScopeValues {
	var s ScopeValues
	s.Global = true
	if g, ok := find(l, KindGlobal); ok {
		s.Global = g.Enabled
	}
	s.Workspace = s.Global
	if w, ok := find(l, KindWorkspace); ok {
		s.Workspace = w.Enabled
	}
	s.Session = Enabled(l)
	return s
}

// Customization types the rules care about; leaves are every other type.
const (
	TypePlugin    = "plugin"
	TypeDirectory = "directory"
	TypeMCPServer = "mcpServer"
)

// Node is the small customization tree the gate and the view work on. Callers
// convert AHP wire objects into it (both dialects: Enabled and/or Enablement).
type Node struct {
	Type     string
	ID       string
	URI      string
	Name     string
	ClientID string
	// Enabled: required on directories, optional on leaves, the 0.8 dialect's
	// boolean on plugins and MCP servers.
	Enabled *bool
	// Enablement: the scoped list on plugins and MCP servers (nil = absent).
	Enablement List
	// DiscoveryDefault is what a backend's own configuration says about a
	// server it found (false when its config disables it); nil = none. Never
	// on the wire.
	DiscoveryDefault *bool
	Children         []Node
}

func scoped(n Node) bool { return n.Type == TypePlugin || n.Type == TypeMCPServer }

// listOn is the value of a plugin or MCP server in either dialect.
func listOn(n Node) bool {
	if n.Enablement != nil || n.Enabled == nil {
		return Enabled(n.Enablement)
	}
	return *n.Enabled
}

// ContainerOn is whether a plugin or directory lets its children act.
func ContainerOn(c Node) bool {
	if c.Type == TypeDirectory {
		return c.Enabled == nil || *c.Enabled
	}
	return listOn(c)
}

// own is a child's own value, ignoring its container.
func own(ch Node) bool {
	if ch.Type == TypeMCPServer {
		return listOn(ch)
	}
	return ch.Enabled == nil || *ch.Enabled
}

// ChildOn is whether a child of container c is on.
func ChildOn(c, ch Node) bool { return ContainerOn(c) && own(ch) }

// ReasonKind says which rule turned an item off.
type ReasonKind string

// Reason kinds, in precedence order.
const (
	ReasonPlugin    ReasonKind = "plugin"    // its plugin is off
	ReasonDirectory ReasonKind = "directory" // its directory is off
	ReasonScope     ReasonKind = "scope"     // l[0] is false; Scope says which
	ReasonSelf      ReasonKind = "self"      // a boolean enabled:false
)

// PluginRef identifies the container that disabled a child.
type PluginRef struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	URI        string `json:"uri"`
	ClientID   string `json:"clientId,omitempty"`
	Enablement List   `json:"enablement,omitempty"`
}

// Cause explains why an item is off.
type Cause struct {
	Kind ReasonKind `json:"kind"`
	// Plugin is the disabling plugin (ReasonPlugin) or directory
	// (ReasonDirectory, Enablement unset).
	Plugin *PluginRef `json:"plugin,omitempty"`
	Scope  Kind       `json:"scope,omitempty"` // ReasonScope only
}

// Reason explains why x is off, or returns nil when it is on. container is
// x's parent, nil for top-level items. A disabled plugin wins over the
// child's own decision: the child cannot act until its plugin is back.
func Reason(x Node, container *Node) *Cause {
	if container != nil && !ContainerOn(*container) {
		ref := &PluginRef{ID: container.ID, Name: container.Name, URI: container.URI, ClientID: container.ClientID}
		if container.Type == TypeDirectory {
			return &Cause{Kind: ReasonDirectory, Plugin: ref}
		}
		ref.Enablement = container.Enablement
		return &Cause{Kind: ReasonPlugin, Plugin: ref}
	}
	if scoped(x) && len(x.Enablement) > 0 && !x.Enablement[0].Enabled {
		return &Cause{Kind: ReasonScope, Scope: x.Enablement[0].Kind}
	}
	if x.Enabled != nil && !*x.Enabled && (len(x.Enablement) == 0 || !scoped(x)) {
		return &Cause{Kind: ReasonSelf}
	}
	return nil
}
