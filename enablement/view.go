package enablement

import "fmt"

// ViewInput is one session as the editor shows it.
type ViewInput struct {
	Dialect   Dialect
	Connected bool
	Directory string // session primary working directory, "" if none
	// Host is the session's customization tree from host state, converted;
	// nil while the host has shown nothing.
	Host   []Node
	Store  *ClientStore
	Client ClientTree
}

// RowAction is one toggle the editor offers; feed it to RouteToggle with
// the Item of the row whose ID matches.
type RowAction struct {
	Title   string `json:"title"`
	ID      string `json:"id"`
	Scope   Kind   `json:"scope"`
	Enabled bool   `json:"enabled"`
}

// Row is one plugin, MCP server or leaf for the customizations view, the
// toggle command and code lenses.
type Row struct {
	ID     string      `json:"id"`
	Name   string      `json:"name"`
	Type   string      `json:"type"`
	Owner  string      `json:"owner,omitempty"` // container id
	On     bool        `json:"on"`
	Scopes ScopeValues `json:"scopes"`
	Cause  *Cause      `json:"cause,omitempty"`
	Reason string      `json:"reason,omitempty"`
	// Pending: a local value the host has not confirmed (no host item yet,
	// or an own server left out under 0.8). Display only.
	Pending bool `json:"pending,omitempty"`
	// Overridden: a host Global masks the Global ahpls published.
	Overridden bool        `json:"overridden,omitempty"`
	Actions    []RowAction `json:"actions"`
	Item       ToggleItem  `json:"-"`
}

// Notes shown on rows.
const (
	NoteUnconfirmed = "not confirmed by host"
	NoteOverridden  = "overridden by host"
)

// Rows builds the editor rows of one session: host items first (in tree
// order), then own items the host has not shown yet.
func Rows(in ViewInput) []Row {
	ctx := RouteContext{Dialect: in.Dialect, Connected: in.Connected, Directory: in.Directory}
	own := map[string]ClientPluginSource{}
	for _, p := range in.Client.Plugins {
		own[p.URI] = p
	}
	seen := map[string]bool{}
	var rows []Row
	for _, n := range in.Host {
		src, isOwn := own[n.URI]
		if n.Type == TypePlugin && isOwn {
			seen[n.URI] = true
		}
		if n.Type == TypePlugin || n.Type == TypeMCPServer {
			rows = append(rows, buildRow(in, ctx, n, nil, ownInfo(in, src, isOwn && n.Type == TypePlugin, "")))
		}
		shown := map[string]bool{}
		for _, ch := range n.Children {
			oi := ownInfo(in, src, false, "")
			if isOwn && n.Type == TypePlugin && ch.Type == TypeMCPServer {
				oi = ownInfo(in, src, false, ch.Name)
				shown[ch.Name] = true
			}
			c := n
			rows = append(rows, buildRow(in, ctx, ch, &c, oi))
		}
		if isOwn && n.Type == TypePlugin {
			for _, s := range src.Servers {
				if !shown[s.Name] {
					rows = append(rows, localRow(in, src, &s))
				}
			}
		}
	}
	for _, p := range in.Client.Plugins {
		if !seen[p.URI] {
			rows = append(rows, localRow(in, p, nil))
			for _, s := range p.Servers {
				rows = append(rows, localRow(in, p, &s))
			}
		}
	}
	return rows
}

type owned struct {
	ok    bool
	key   string
	def   bool
	value bool // what ahpls publishes
}

func ownInfo(in ViewInput, src ClientPluginSource, plugin bool, server string) owned {
	if plugin {
		return owned{ok: true, key: src.URI, def: true, value: in.Store.Loaded() && in.Store.Value(src.URI, true) || !in.Store.Loaded()}
	}
	if server == "" {
		return owned{}
	}
	for _, s := range src.Servers {
		if s.Name == server {
			key := MCPKey(src.URI, s.Name)
			v := s.SourceDefault()
			if in.Store.Loaded() {
				v = in.Store.Value(key, v)
			}
			return owned{ok: true, key: key, def: s.SourceDefault(), value: v}
		}
	}
	return owned{} // host-discovered inside our plugin: host-owned
}

func scopeWord(k Kind) string {
	switch k {
	case KindWorkspace:
		return "workspace"
	case KindGlobal:
		return "global"
	}
	return "session"
}

func buildRow(in ViewInput, ctx RouteContext, n Node, container *Node, o owned) Row {
	r := Row{ID: n.ID, Name: n.Name, Type: n.Type, Actions: []RowAction{}}
	if container != nil {
		r.Owner = container.ID
		r.On = ChildOn(*container, n)
	} else if n.Type == TypeMCPServer {
		r.On = listOn(n)
	} else {
		r.On = ContainerOn(n)
	}
	var list List
	if scoped(n) {
		if in.Dialect == DialectEnablement || n.Enablement != nil {
			list = n.Enablement
			r.Scopes = Scopes(list)
		} else {
			v := listOn(n)
			r.Scopes = ScopeValues{Session: v, Workspace: v, Global: v}
		}
	} else {
		v := own(n)
		r.Scopes = ScopeValues{Session: v, Workspace: v, Global: v}
	}
	r.Item = ToggleItem{ID: n.ID, Type: n.Type, Owned: o.ok, Key: o.key, SourceDefault: o.def, OnHost: true, HostList: list}
	if r.Item.HostList == nil {
		r.Item.HostList = List{}
	}
	if o.ok {
		if in.Dialect == DialectEnablement {
			if g, ok := find(list, KindGlobal); ok && g.Enabled != o.value {
				r.Overridden = true
			}
		} else if !listOn(n) && o.value && (container == nil) {
			r.Overridden = true // a host enabled:false above ours
		}
	}
	r.Cause = Reason(n, container)
	if r.Cause != nil {
		r.Reason = reasonText(*r.Cause, o, r.Overridden)
		if r.Cause.Kind == ReasonScope && r.Cause.Scope == KindWorkspace && list[0].URI != "" {
			r.Reason += " " + list[0].URI
		}
	}
	if r.Cause != nil && (r.Cause.Kind == ReasonPlugin || r.Cause.Kind == ReasonDirectory) {
		// The child cannot act until its container is back: offer only that.
		ref := r.Cause.Plugin
		scope := KindSession
		if len(ref.Enablement) > 0 {
			scope = ref.Enablement[0].Kind
		}
		r.Actions = append(r.Actions, RowAction{
			Title: fmt.Sprintf("Enable %s %s (%s)", r.Cause.Kind, ref.Name, scopeWord(scope)),
			ID:    ref.ID, Scope: scope, Enabled: true,
		})
		return r
	}
	for _, k := range OfferedScopes(ctx, r.Item) {
		cur := r.Scopes.Get(k)
		title := ""
		if k == KindGlobal && o.ok {
			cur = o.value // the Global ahpls owns is the local one
		}
		if cur {
			title = "Disable (" + scopeWord(k) + ")"
		} else {
			title = "Enable (" + scopeWord(k) + ")"
		}
		if k == KindGlobal && o.ok && r.Overridden {
			title += " — " + NoteOverridden
		}
		r.Actions = append(r.Actions, RowAction{Title: title, ID: n.ID, Scope: k, Enabled: !cur})
	}
	return r
}

func reasonText(c Cause, o owned, overridden bool) string {
	switch c.Kind {
	case ReasonPlugin:
		if len(c.Plugin.Enablement) > 0 {
			return fmt.Sprintf("Disabled because plugin %s is disabled (%s)", c.Plugin.Name, scopeWord(c.Plugin.Enablement[0].Kind))
		}
		return fmt.Sprintf("Disabled because plugin %s is disabled", c.Plugin.Name)
	case ReasonDirectory:
		return fmt.Sprintf("Disabled because directory %s is disabled", c.Plugin.Name)
	case ReasonScope:
		switch c.Scope {
		case KindWorkspace:
			return "Disabled in workspace"
		case KindGlobal:
			if o.ok && !overridden {
				return "Disabled globally (this editor)"
			}
			return "Disabled globally (host)"
		}
		return "Disabled for this session"
	case ReasonSelf:
		if overridden {
			return "Disabled globally (host)"
		}
		return "Disabled for this session"
	}
	return ""
}

// localRow shows an own plugin or server the host has not confirmed.
func localRow(in ViewInput, p ClientPluginSource, s *BundledServer) Row {
	o := ownInfo(in, p, s == nil, "")
	id, name, typ, owner := p.ID, p.Name, TypePlugin, ""
	on := o.value
	if s != nil {
		o = ownInfo(in, p, false, s.Name)
		// The host has not minted an id for it: the durable key stands in.
		id, name, typ, owner = o.key, s.Name, TypeMCPServer, p.ID
		on = ownInfo(in, p, true, "").value && o.value
	}
	r := Row{ID: id, Name: name, Type: typ, Owner: owner, On: on, Pending: true,
		Scopes: ScopeValues{Session: on, Workspace: on, Global: o.value},
		Reason: NoteUnconfirmed,
		Item:   ToggleItem{ID: id, Type: typ, Owned: true, Key: o.key, SourceDefault: o.def, HostList: List{}}}
	verb := "Disable"
	if !o.value {
		verb = "Enable"
	}
	r.Actions = []RowAction{{Title: verb + " (global)", ID: id, Scope: KindGlobal, Enabled: !o.value}}
	return r
}
