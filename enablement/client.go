package enablement

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// hashName is the first n hex digits of sha256(s).
func hashName(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// DefaultStateDir is where client stores live: $XDG_STATE_HOME/ahpls/
// enablement, falling back to ~/.local/state (os.UserConfigDir on macOS and
// Windows).
func DefaultStateDir() (string, error) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "ahpls", "enablement"), nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "ahpls", "enablement"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "state", "ahpls", "enablement"), nil
}

// ClientStorePath is the store file of one workspace folder in dir.
func ClientStorePath(dir, folderURI string) string {
	return filepath.Join(dir, hashName(folderURI, 16)+".json")
}

// PluginURI is the durable source URI ahpls publishes for a virtual plugin:
// stable across restarts, unique per workspace folder, free of client id,
// nonce, session id and pid (it is the host's storage key).
func PluginURI(folderURI, name string) string {
	return "virtual://ahpls/" + hashName(folderURI, 8) + "/" + name
}

// ClientStore holds ahpls's own Global decisions for one workspace folder:
// the virtual plugins it publishes and the MCP servers it bundles in them.
// Nothing host-owned is stored here. A nil *ClientStore is "not loaded".
type ClientStore struct {
	s      *Store
	folder string
}

// OpenClientStore opens (or starts) the folder's store in dir, which tests
// point at a temp directory. Corruption is handled as in OpenStore.
func OpenClientStore(dir, folderURI string, log *slog.Logger) *ClientStore {
	return &ClientStore{s: openStore(ClientStorePath(dir, folderURI), folderURI, log), folder: folderURI}
}

// Loaded reports whether the store may be published from.
func (c *ClientStore) Loaded() bool { return c != nil && c.s != nil }

// Value is the Global decision for key: stored, else the source default
// (true, or false for a server its own config disables).
func (c *ClientStore) Value(key string, sourceDefault bool) bool {
	if v, ok := c.s.Global(key); ok {
		return v
	}
	return sourceDefault
}

// SetGlobal records a decision, storing it only when it differs from the
// source default, so "nothing stored" never turns into an explicit enable.
// changed reports whether the effective value changed.
func (c *ClientStore) SetGlobal(key string, enabled, sourceDefault bool) (changed bool, err error) {
	before := c.Value(key, sourceDefault)
	if enabled == sourceDefault {
		_, err = c.s.DeleteGlobal(key)
	} else {
		err = c.s.SetGlobal(key, enabled)
	}
	return before != enabled, err
}

// Decisions copies the stored decisions (the file's "global" map).
func (c *ClientStore) Decisions() map[string]bool { return c.s.Snapshot().Global }

// Len is the number of stored decisions.
func (c *ClientStore) Len() int { return c.s.Len() }

// Dialect is how the connected host speaks enablement.
type Dialect string

// Dialects.
const (
	// DialectUnknown: not known yet; publish both shapes from one value,
	// treat bundled servers as in 0.8 (fail closed).
	DialectUnknown Dialect = "unknown"
	// DialectSnapshot08: the 0.8 snapshot's booleans (enabled, {id, enabled}).
	DialectSnapshot08 Dialect = "0.8"
	// DialectEnablement: released 0.8.0 and 1.x (enablement, childEnablement,
	// {id, enablement}).
	DialectEnablement Dialect = "enablement"
)

// DetectDialect reads the dialect from observed host state: any plugin or
// MCP server with an enablement list or without enabled means the
// enablement dialect; otherwise booleans mean 0.8; nothing seen is unknown.
// Callers convert an absent wire enablement to a nil List and a present
// (even empty) one to non-nil.
func DetectDialect(tree []Node) Dialect {
	d := DialectUnknown
	var walk func([]Node)
	walk = func(ns []Node) {
		for _, n := range ns {
			if scoped(n) {
				if n.Enablement != nil || n.Enabled == nil {
					d = DialectEnablement
					return
				}
				d = DialectSnapshot08
			}
			walk(n.Children)
			if d == DialectEnablement {
				return
			}
		}
	}
	walk(tree)
	return d
}

// ClientTree is what the workspace scan found, per published virtual plugin.
type ClientTree struct {
	// Resolved is false until the scan finished; nothing is published before.
	Resolved bool
	Plugins  []ClientPluginSource
}

// ClientPluginSource is one virtual plugin ahpls publishes.
type ClientPluginSource struct {
	ID    string
	URI   string // PluginURI(folder, name)
	Name  string
	Nonce string // nonce of the complete tree (every bundled server served)
	// Servers are the MCP servers in the plugin's .mcp.json.
	Servers []BundledServer
}

// BundledServer is an MCP server ahpls bundles.
type BundledServer struct {
	Name string
	// ConfigDisabled: .mcp.json disables it, so its source default is off.
	ConfigDisabled bool
}

// SourceDefault is the value when nothing is stored.
func (s BundledServer) SourceDefault() bool { return !s.ConfigDisabled }

// PluginEntry is a ClientPluginCustomization ready for activeClientSet.
type PluginEntry struct {
	Type            string          `json:"type"`
	ID              string          `json:"id"`
	URI             string          `json:"uri"`
	Name            string          `json:"name"`
	Enabled         *bool           `json:"enabled,omitempty"`
	Nonce           string          `json:"nonce,omitempty"`
	Enablement      List            `json:"enablement,omitempty"`
	ChildEnablement map[string]List `json:"childEnablement,omitempty"`
	// Omitted lists bundled servers to leave out of the served .mcp.json
	// (0.8 and unknown dialects have no field for them); Nonce then differs
	// from the source nonce because the served tree differs.
	Omitted []string `json:"-"`
}

// Publication builds the plugins to publish, for every path (join, content
// change, reconnect, store change, dialect change). It reads the store on
// each call and caches nothing. ok is false while the store is not loaded
// or the scan unresolved: publish nothing then.
func Publication(store *ClientStore, tree ClientTree, d Dialect) (plugins []PluginEntry, ok bool) {
	if !store.Loaded() || !tree.Resolved {
		return nil, false
	}
	plugins = []PluginEntry{}
	for _, p := range tree.Plugins {
		v := store.Value(p.URI, true)
		e := PluginEntry{Type: TypePlugin, ID: p.ID, URI: p.URI, Name: p.Name, Nonce: p.Nonce}
		global := func(b bool) List { return List{{Kind: KindGlobal, Enabled: b}} }
		switch d {
		case DialectEnablement:
			e.Enablement = global(v)
			if len(p.Servers) > 0 {
				e.ChildEnablement = map[string]List{}
				for _, s := range p.Servers {
					e.ChildEnablement[s.Name] = global(store.Value(MCPKey(p.URI, s.Name), s.SourceDefault()))
				}
			}
		default:
			if d != DialectSnapshot08 {
				e.Enablement = global(v) // a projection of the same value
			}
			e.Enabled = &v
			for _, s := range p.Servers {
				if !store.Value(MCPKey(p.URI, s.Name), s.SourceDefault()) {
					e.Omitted = append(e.Omitted, s.Name)
				}
			}
			if len(e.Omitted) > 0 {
				slices.Sort(e.Omitted)
				e.Nonce = p.Nonce + "~" + hashName(strings.Join(e.Omitted, "\x00"), 8)
			}
		}
		plugins = append(plugins, e)
	}
	return plugins, true
}

// Routing errors.
var (
	ErrNotConnected     = errors.New("not connected to the agent host")
	ErrNoHostItem       = errors.New("the agent host has not reported this item yet")
	ErrScopeUnsupported = errors.New("this scope cannot be toggled here")
	ErrNoDirectory      = errors.New("the session has no working directory")
)

// Toggle is a user's request to change one item at one scope.
type Toggle struct {
	Session string
	ID      string
	Scope   Kind
	Enabled bool
}

// ToggleItem is what routing needs to know about the toggled item.
type ToggleItem struct {
	ID   string
	Type string
	// Owned: ahpls's own plugin, or a server it bundles in one (a key of the
	// published childEnablement); Key and SourceDefault are then set.
	Owned         bool
	Key           string
	SourceDefault bool
	// OnHost: the host's session state has the item; HostList is its
	// enablement there ([] if absent).
	OnHost   bool
	HostList List
}

// RouteContext is the connection state at toggle time.
type RouteContext struct {
	Dialect   Dialect
	Connected bool
	Directory string // the session's primary working directory, "" if none
}

// ToggleAction is a session/customizationToggled payload.
type ToggleAction struct {
	ID         string
	Enabled    *bool // 0.8: {id, enabled}
	Enablement List  // enablement dialect: {id, enablement}, [] clears all
}

// MarshalJSON encodes exactly one of the two shapes; an empty enablement
// list is sent as [] (clear all), never omitted.
func (a ToggleAction) MarshalJSON() ([]byte, error) {
	if a.Enabled != nil {
		return json.Marshal(struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Enabled bool   `json:"enabled"`
		}{"session/customizationToggled", a.ID, *a.Enabled})
	}
	l := a.Enablement
	if l == nil {
		l = List{}
	}
	return json.Marshal(struct {
		Type       string `json:"type"`
		ID         string `json:"id"`
		Enablement List   `json:"enablement"`
	}{"session/customizationToggled", a.ID, l})
}

// Route is where a toggle went. Local: the client store was written
// (Changed says whether the value moved); republish Publication as a full
// activeClientSet to every joined session, no toggle action. Otherwise
// Action goes to the host.
type Route struct {
	Local   bool
	Changed bool
	Action  *ToggleAction
}

// OfferedScopes lists the scopes a toggle can target for the item.
func OfferedScopes(ctx RouteContext, it ToggleItem) []Kind {
	var out []Kind
	if it.Owned {
		out = append(out, KindGlobal)
	}
	if !it.OnHost {
		return out // host-routed actions need the host's item
	}
	out = append(out, KindSession)
	if ctx.Dialect == DialectEnablement && scoped(Node{Type: it.Type}) {
		if ctx.Directory != "" {
			out = append(out, KindWorkspace)
		}
		if !it.Owned {
			out = append(out, KindGlobal)
		}
	}
	return sortKinds(out)
}

func sortKinds(ks []Kind) []Kind {
	slices.SortStableFunc(ks, func(a, b Kind) int { return rank(a) - rank(b) })
	return ks
}

// RouteToggle sends a toggle where it belongs. A change of a Global that
// ahpls owns is a local store write (works offline) and never goes to the
// host; everything else becomes a host action computed against the host's
// current list, carrying the other scopes back unchanged. Host-routed
// toggles fail when disconnected and are never queued: a replayed full list
// would revert other clients' changes.
func RouteToggle(store *ClientStore, ctx RouteContext, it ToggleItem, t Toggle) (Route, error) {
	if it.Owned && t.Scope == KindGlobal {
		if !store.Loaded() {
			return Route{}, errors.New("enablement store not loaded")
		}
		changed, err := store.SetGlobal(it.Key, t.Enabled, it.SourceDefault)
		return Route{Local: true, Changed: changed}, err
	}
	if !ctx.Connected {
		return Route{}, ErrNotConnected
	}
	if !it.OnHost {
		return Route{}, ErrNoHostItem
	}
	if !slices.Contains(OfferedScopes(ctx, it), t.Scope) {
		if t.Scope == KindWorkspace && ctx.Directory == "" {
			return Route{}, ErrNoDirectory
		}
		return Route{}, fmt.Errorf("%w: %s toggle of %s under dialect %s", ErrScopeUnsupported, t.Scope, it.Type, ctx.Dialect)
	}
	if ctx.Dialect != DialectEnablement {
		v := t.Enabled
		return Route{Action: &ToggleAction{ID: it.ID, Enabled: &v}}, nil
	}
	entry := Decision{Kind: t.Scope, Enabled: t.Enabled}
	if t.Scope == KindWorkspace {
		entry.URI = ctx.Directory
	}
	var l List
	if scoped(Node{Type: it.Type}) {
		l = With(it.HostList, t.Scope, entry)
	} else {
		l = List{entry} // leaves and directories: a session-wide boolean
	}
	return Route{Action: &ToggleAction{ID: it.ID, Enablement: l}}, nil
}
