package hostlink

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// historyPerPlugin is how many published versions of one plugin are kept
// for mapping a host's late load report back to files.
const historyPerPlugin = 8

// pubPlugin is one published virtual plugin version.
type pubPlugin struct {
	id     string
	folder *folder
	// source is the plugin as built (real files, their Source paths);
	// served is what the host reads (a filtered .mcp.json when the dialect
	// cannot carry a client-disabled server).
	source *virtualplugin.Plugin
	served *virtualplugin.Plugin
	nonce  string // the nonce published for served
}

// pluginID is the stable customization id of a virtual plugin: it never
// changes with content, only the nonce does.
func pluginID(clientID, folderKey, name string) string {
	return clientID + ":" + folderKey + "/" + name
}

// SumEditor is an Editor that also takes, with a file's diagnostics, the
// SHA-256 of the text they were computed from, so it shows them only with
// that text: a set computed from an older buffer never decorates a newer
// one (the link republishes once it has looked at the new text). The link
// uses PublishDiagnosticsFor instead of PublishDiagnostics when its Editor
// has it.
type SumEditor interface {
	PublishDiagnosticsFor(absPath string, sum [32]byte, diags []model.Diagnostic)
}

// firstLine spans the first line of text (without its line break).
func firstLine(text []byte) model.Span {
	end := bytes.IndexAny(text, "\r\n")
	if end < 0 {
		end = len(text)
	}
	return model.Span{Start: 0, End: end}
}

// publisher computes the full SessionActiveClient entry from the folders'
// snapshots, the enablement stores and the host's dialect, hands it to
// ahpclient when its JSON changed, installs the trees it promises in the
// served set, and remembers what it published (for load reports, rows and
// hints).
type publisher struct {
	client  *ahpclient.Client
	host    hostView
	served  *virtualplugin.Server
	folders []*folder // fixed by New
	log     *slog.Logger

	// pubMu serialises publish, so a slower, older computation can never
	// overwrite a newer entry; it is taken before mu.
	pubMu sync.Mutex
	mu    sync.Mutex // guards st; held briefly, may call into ahpclient, never the Editor
	st    pubState   // guarded by mu
}

// pubState is the publisher's mutable state.
type pubState struct {
	ready      bool // stores loaded and first scan done
	closed     bool // Run ended: publish nothing more
	snaps      map[string]*virtualplugin.Snapshot
	pubs       map[string]*pubPlugin // current, by customization id
	history    map[string]*pubPlugin // by served nonce, bounded per plugin
	histOrder  map[string][]string   // plugin id → nonces, oldest first
	dialect    enablement.Dialect
	lastEntry  []byte
	collisions []tools.Collision
}

func newPublisher(c *ahpclient.Client, host hostView, folders []*folder, log *slog.Logger) *publisher {
	return &publisher{client: c, host: host, served: virtualplugin.NewServer(), folders: folders, log: log, st: pubState{
		snaps:     map[string]*virtualplugin.Snapshot{},
		pubs:      map[string]*pubPlugin{},
		history:   map[string]*pubPlugin{},
		histOrder: map[string][]string{},
		dialect:   enablement.DialectUnknown,
	}}
}

// setSnapshot records a folder's new build.
func (p *publisher) setSnapshot(key string, snap *virtualplugin.Snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.snaps[key] = snap
}

// markReady lets publication start (enablement C11: not before the stores
// are loaded and the first scan is done).
func (p *publisher) markReady() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.ready = true
}

func (p *publisher) ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.ready
}

// close stops publication for good.
func (p *publisher) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.closed = true
}

func (p *publisher) closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.closed
}

// live: ready and not closed.
func (p *publisher) live() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.ready && !p.st.closed
}

// forgetDialect: a fresh initialize may reach a different host build, whose
// enablement dialect is learnt again.
func (p *publisher) forgetDialect() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.dialect = enablement.DialectUnknown
}

// publish recomputes the full entry and hands it to ahpclient when its
// JSON changed (ahpclient dispatches it to every joined session now, on
// join, and after a reconnect when the host's copy differs). then (the
// diagnostics the rebuild made dirty) runs before the next publish may
// start; nothing runs before the link is ready or after it closed.
func (p *publisher) publish(then func()) {
	p.pubMu.Lock()
	defer p.pubMu.Unlock()
	p.mu.Lock()
	if !p.st.ready || p.st.closed {
		p.mu.Unlock()
		return
	}
	p.updateDialectLocked()
	entry, ok := p.entryLocked()
	var b []byte
	changed := false
	// Before the first handshake the dialect is unknown: an entry handed
	// over now would carry both spellings and be replaced at once, so it is
	// held back; the link republishes when it connects.
	if ok && p.client.ProtocolVersion() != "" {
		b, _ = json.Marshal(entry)
		changed = !bytes.Equal(b, p.st.lastEntry)
		if changed {
			p.st.lastEntry = b
		}
	}
	p.mu.Unlock()
	if changed {
		if err := p.client.SetActiveClient(json.RawMessage(b)); err != nil {
			p.log.Error("active client entry not set", "err", err)
		}
	}
	then()
}

// updateDialectLocked takes the host's enablement dialect from the client.
// Once known it sticks for the connection: an unknown answer changes
// nothing.
func (p *publisher) updateDialectLocked() {
	// ahpclient learns the shape from the negotiated version and, on a 0.x
	// host, from the customizations it mirrors (ahp.md §4.7): one source of
	// truth for what the host speaks.
	d := p.client.Dialect()
	if d == nil {
		return
	}
	switch d.Enablement() {
	case wire.EnablementScoped:
		p.st.dialect = enablement.DialectEnablement
	case wire.EnablementBoolean:
		p.st.dialect = enablement.DialectSnapshot08
	}
}

// clientTreeLocked is what Publication needs to know about one folder.
func (p *publisher) clientTreeLocked(f *folder) enablement.ClientTree {
	snap := p.st.snaps[f.key]
	tree := enablement.ClientTree{Resolved: p.st.ready && snap != nil}
	if snap == nil {
		return tree
	}
	me := p.client.ClientID()
	for _, pl := range snap.Plugins {
		src := enablement.ClientPluginSource{ID: pluginID(me, f.key, pl.Name), URI: pl.URI, Name: pl.Name, Nonce: pl.Nonce}
		src.Servers = append(src.Servers, bundledServers(pl)...)
		tree.Plugins = append(tree.Plugins, src)
	}
	return tree
}

// view is what the rows of every folder need, read together: the dialect
// and each folder's tree, in folder order.
func (p *publisher) view() (enablement.Dialect, []enablement.ClientTree) {
	p.mu.Lock()
	defer p.mu.Unlock()
	trees := make([]enablement.ClientTree, len(p.folders))
	for i, f := range p.folders {
		trees[i] = p.clientTreeLocked(f)
	}
	return p.st.dialect, trees
}

// entryLocked builds the full SessionActiveClient entry and installs the
// trees it promises in the served set. ok is false while any folder's
// store is not loaded (publish nothing then).
func (p *publisher) entryLocked() (wire.SessionActiveClient, bool) {
	me := p.client.ClientID()
	entry := wire.SessionActiveClient{ClientID: me, DisplayName: "ahpls", Tools: []wire.ToolDefinition{}, Customizations: []wire.ClientPluginCustomization{}}

	taken := p.host.otherToolNames()
	p.st.collisions = nil
	for _, f := range p.folders {
		defs, coll := f.tools.Resolve(taken)
		p.st.collisions = append(p.st.collisions, coll...)
		for _, d := range defs {
			var w wire.ToolDefinition
			if err := wire.FromGeneric(d, &w); err != nil {
				continue
			}
			entry.Tools = append(entry.Tools, w)
			taken = append(taken, d.Name)
		}
	}

	pubs := map[string]*pubPlugin{}
	for _, f := range p.folders {
		tree := p.clientTreeLocked(f)
		plugins, ok := enablement.Publication(f.store, tree, p.st.dialect)
		if !ok {
			return entry, false
		}
		snap := p.st.snaps[f.key]
		byName := map[string]*virtualplugin.Plugin{}
		for _, pl := range snap.Plugins {
			byName[pl.Name] = pl
		}
		served := &virtualplugin.Snapshot{Folder: snap.Folder, Key: snap.Key, Exclusions: snap.Exclusions}
		for _, pe := range plugins {
			src := byName[pe.Name]
			if src == nil {
				continue
			}
			sp := src
			if len(pe.Omitted) > 0 {
				sp = withoutServers(src, pe.Omitted, pe.Nonce)
			}
			served.Plugins = append(served.Plugins, sp)
			pubs[pe.ID] = &pubPlugin{id: pe.ID, folder: f, source: src, served: sp, nonce: pe.Nonce}
			entry.Customizations = append(entry.Customizations, toWire(pe))
		}
		// Trust first: a version this publication supersedes is kept
		// only under the folder's current trust (withdrawal wins).
		p.served.SetTrusted(f.key, f.tools.Trusted())
		p.served.Publish(served)
	}
	p.st.pubs = pubs
	for _, pp := range pubs {
		if _, ok := p.st.history[pp.nonce]; ok {
			continue
		}
		p.st.history[pp.nonce] = pp
		order := append(p.st.histOrder[pp.id], pp.nonce)
		if len(order) > historyPerPlugin {
			delete(p.st.history, order[0])
			order = order[1:]
		}
		p.st.histOrder[pp.id] = order
	}
	return entry, true
}

// published is a copy of the current publication by customization id and
// of the kept versions by nonce (pubPlugin values never change).
func (p *publisher) published() (pubs, history map[string]*pubPlugin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.st.pubs), maps.Clone(p.st.history)
}

// fileAt finds the published plugin carrying a workspace file, and the
// file's path inside it; nil when none does.
func (p *publisher) fileAt(absPath string) (*pubPlugin, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var pp *pubPlugin
	vpath := ""
	for _, pl := range p.st.pubs {
		for _, f := range pl.source.Files {
			if f.Source != "" && editorPath(pl.folder, f.Source) == absPath {
				pp, vpath = pl, f.VPath
			}
		}
	}
	return pp, vpath
}

// status is the published plugins (sorted by id), the tool collisions and
// the dialect, for Link.Status.
func (p *publisher) status() ([]PublishedPlugin, []string, enablement.Dialect) {
	p.mu.Lock()
	var plugins []PublishedPlugin
	for id, pl := range p.st.pubs {
		pp := PublishedPlugin{ID: id, URI: pl.source.URI, Name: pl.source.Name, Nonce: pl.nonce, Folder: pl.folder.abs}
		for _, n := range pl.source.MCPServers {
			if !slices.Contains(pl.served.MCPServers, n) {
				pp.Omitted = append(pp.Omitted, n)
			}
		}
		plugins = append(plugins, pp)
	}
	var coll []string
	for _, c := range p.st.collisions {
		coll = append(coll, c.Message)
	}
	d := p.st.dialect
	p.mu.Unlock()
	sort.Slice(plugins, func(i, j int) bool { return plugins[i].ID < plugins[j].ID })
	return plugins, coll, d
}

// toWire converts Publication's entry to the wire struct (same JSON).
func toWire(pe enablement.PluginEntry) wire.ClientPluginCustomization {
	c := wire.ClientPluginCustomization{Type: "plugin", ID: pe.ID, URI: pe.URI, Name: pe.Name, Nonce: pe.Nonce, Enabled: pe.Enabled}
	conv := func(l enablement.List) []wire.CustomizationEnablement {
		out := make([]wire.CustomizationEnablement, len(l))
		for i, d := range l {
			out[i] = wire.CustomizationEnablement{Kind: string(d.Kind), URI: d.URI, Enabled: d.Enabled}
		}
		return out
	}
	if pe.Enablement != nil {
		c.Enablement = conv(pe.Enablement)
	}
	if pe.ChildEnablement != nil {
		c.ChildEnablement = map[string][]wire.CustomizationEnablement{}
		for k, v := range pe.ChildEnablement {
			c.ChildEnablement[k] = conv(v)
		}
	}
	return c
}

// fileData is a published file's bytes.
func fileData(f *virtualplugin.File) []byte {
	if f.Data != nil {
		return f.Data
	}
	b, err := virtualplugin.ReadSource(f)
	if err != nil {
		return nil
	}
	return b
}

// mcpDoc splits an MCP config into its server map and a function that
// writes the document back with a new server map.
func mcpDoc(data []byte) (servers map[string]json.RawMessage, rebuild func(map[string]json.RawMessage) []byte, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, nil, false
	}
	for _, w := range []string{"mcpServers", "servers"} {
		if raw, has := top[w]; has {
			if json.Unmarshal(raw, &servers) != nil {
				return nil, nil, false
			}
			return servers, func(s map[string]json.RawMessage) []byte {
				b, _ := json.Marshal(s)
				top[w] = b
				out, _ := json.MarshalIndent(top, "", "  ")
				return out
			}, true
		}
	}
	return top, func(s map[string]json.RawMessage) []byte {
		out, _ := json.MarshalIndent(s, "", "  ")
		return out
	}, true
}

// bundledServers lists the MCP servers of a plugin's .mcp.json, with the
// source default its own config gives ("disabled": true → off).
func bundledServers(p *virtualplugin.Plugin) []enablement.BundledServer {
	f, ok := p.File(".mcp.json")
	if !ok {
		return nil
	}
	servers, _, ok := mcpDoc(fileData(f))
	if !ok {
		return nil
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]enablement.BundledServer, 0, len(names))
	for _, n := range names {
		var cfg struct {
			Disabled bool `json:"disabled"`
		}
		_ = json.Unmarshal(servers[n], &cfg)
		out = append(out, enablement.BundledServer{Name: n, ConfigDisabled: cfg.Disabled})
	}
	return out
}

// withoutServers is the plugin as served when the dialect has no field for
// a client-disabled bundled server: its .mcp.json without those servers,
// under the nonce Publication computed for that tree.
func withoutServers(p *virtualplugin.Plugin, omitted []string, nonce string) *virtualplugin.Plugin {
	files := make([]*virtualplugin.File, 0, len(p.Files))
	for _, f := range p.Files {
		if f.VPath != ".mcp.json" {
			files = append(files, f)
			continue
		}
		servers, rebuild, ok := mcpDoc(fileData(f))
		if !ok {
			files = append(files, f)
			continue
		}
		for _, n := range omitted {
			delete(servers, n)
		}
		data := rebuild(servers)
		// Made from the workspace's .mcp.json: a kept version carrying it
		// is withdrawn with that file (virtualplugin/keep.go).
		from := append([]string(nil), f.From...)
		if f.Source != "" {
			from = append(from, f.Source)
		}
		files = append(files, &virtualplugin.File{VPath: f.VPath, Data: data, Sum: sha256.Sum256(data), Size: int64(len(data)), From: from})
	}
	var names []string
	for _, n := range p.MCPServers {
		keep := true
		for _, o := range omitted {
			keep = keep && o != n
		}
		if keep {
			names = append(names, n)
		}
	}
	return &virtualplugin.Plugin{Name: p.Name, URI: p.URI, Root: p.Root, Synth: p.Synth, Files: files, Nonce: nonce, MCPServers: names}
}
