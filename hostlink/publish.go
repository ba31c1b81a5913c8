package hostlink

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
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

// buildFolder rebuilds one folder's snapshot and its exclusion
// diagnostics. It runs under buildMu, not mu: building reads open buffers
// through the Editor, which must never wait on a lock the server's own
// calls into this link (Rows, Toggle) could be holding up.
func (l *Link) buildFolder(f *folder) {
	l.buildMu.Lock()
	defer l.buildMu.Unlock()
	snap, err := f.builder.Build()
	if err != nil {
		l.log.Warn("workspace folder not scanned", "folder", f.abs, "err", err)
		snap = &virtualplugin.Snapshot{Folder: f.builder.Folder(), Key: f.key}
	}
	excl := map[string][]model.Diagnostic{}
	sums := map[string][32]byte{}
	for _, x := range snap.Exclusions {
		abs := filepath.Join(f.abs, filepath.FromSlash(x.Path))
		// The text the verdict was made on, not whatever the buffer holds
		// by now: the finding is tagged with its hash (SumEditor).
		text, ok := l.verdicts[abs]
		if !ok {
			text, _ = l.readText(abs)
		}
		sums[abs] = sha256.Sum256(text)
		excl[abs] = append(excl[abs], model.Diagnostic{
			Rule:     RuleExcluded,
			Severity: model.SeverityWarning,
			Message:  "Not published to agent sessions: " + x.Reason,
			Span:     firstLine(text),
		})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snaps[f.key] = snap
	prefix := f.abs + string(filepath.Separator)
	for p := range l.excl {
		if strings.HasPrefix(p, prefix) {
			delete(l.excl, p)
			delete(l.exclSum, p)
			l.markDirtyLocked(p)
		}
	}
	for p, ds := range excl {
		l.excl[p] = ds
		l.exclSum[p] = sums[p]
		l.markDirtyLocked(p)
	}
}

func (l *Link) markDirtyLocked(p string) {
	if l.dirty == nil {
		l.dirty = map[string]bool{}
	}
	l.dirty[p] = true
}

func (l *Link) drainDirtyLocked() []string {
	out := make([]string, 0, len(l.dirty))
	for p := range l.dirty {
		out = append(out, p)
	}
	l.dirty = nil
	sort.Strings(out)
	return out
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

// diagSums are the hashes the given files' diagnostics are tagged with,
// and the exclusions they tag: the text an exclusion's verdict was made on,
// else the file's text now (the other sources read it as they compute, and
// every change of it brings a recomputation). An exclusion and its hash
// are read together: a build that lands between reading one and the other
// would pair an older text's exclusion with a newer text's hash, and the
// editor would show it on the newer text. Called without l.mu: it reads
// buffers.
func (l *Link) diagSums(files []string) (map[string][32]byte, map[string][]model.Diagnostic) {
	sums := make(map[string][32]byte, len(files))
	excl := make(map[string][]model.Diagnostic, len(files))
	var untagged []string
	l.mu.Lock()
	for _, p := range files {
		if sum, ok := l.exclSum[p]; ok {
			sums[p], excl[p] = sum, l.excl[p]
		} else {
			untagged = append(untagged, p)
		}
	}
	l.mu.Unlock()
	for _, p := range untagged {
		text, _ := l.readText(p)
		sums[p] = sha256.Sum256(text)
	}
	return sums, excl
}

// firstLine spans the first line of text (without its line break).
func firstLine(text []byte) model.Span {
	end := bytes.IndexAny(text, "\r\n")
	if end < 0 {
		end = len(text)
	}
	return model.Span{Start: 0, End: end}
}

// republish recomputes the full entry and hands it to ahpclient when its
// JSON changed (ahpclient dispatches it to every joined session now, on
// join, and after a reconnect when the host's copy differs). It also
// publishes exclusion diagnostics that changed. Serialised by pubMu so a
// slower, older computation can never overwrite a newer entry.
func (l *Link) republish() {
	// Every input of the editor state (host state, store, files, trust)
	// comes through here; it is refreshed once pubMu is released, since it
	// reads open buffers through the Editor.
	defer l.refreshEditorState()
	l.pubMu.Lock()
	defer l.pubMu.Unlock()
	l.mu.Lock()
	if !l.ready || l.closed {
		l.mu.Unlock()
		return
	}
	l.updateDialectLocked()
	entry, ok := l.entryLocked()
	var b []byte
	changed := false
	// Before the first handshake the dialect is unknown: an entry handed
	// over now would carry both spellings and be replaced at once, so it is
	// held back; the link republishes when it connects.
	if ok && l.client.ProtocolVersion() != "" {
		b, _ = json.Marshal(entry)
		changed = !bytes.Equal(b, l.lastEntry)
		if changed {
			l.lastEntry = b
		}
	}
	dirty := l.drainDirtyLocked()
	l.mu.Unlock()
	if changed {
		if err := l.client.SetActiveClient(json.RawMessage(b)); err != nil {
			l.log.Error("active client entry not set", "err", err)
		}
	}
	l.publishDiagnostics(dirty)
}

// updateDialectLocked takes the host's enablement dialect from the client.
// Once known it sticks for the connection: an unknown answer changes
// nothing.
func (l *Link) updateDialectLocked() {
	// ahpclient learns the shape from the negotiated version and, on a 0.x
	// host, from the customizations it mirrors (ahp.md §4.7): one source of
	// truth for what the host speaks.
	d := l.client.Dialect()
	if d == nil {
		return
	}
	switch d.Enablement() {
	case wire.EnablementScoped:
		l.dialect = enablement.DialectEnablement
	case wire.EnablementBoolean:
		l.dialect = enablement.DialectSnapshot08
	}
}

// sessionCustomizations reads a joined session's customization list.
func (l *Link) sessionCustomizations(session string) []wire.Customization {
	st, ok := l.client.State(session)
	if !ok {
		return nil
	}
	raw, ok := st["customizations"]
	if !ok {
		return nil
	}
	var out []wire.Customization
	if err := wire.FromGeneric(raw, &out); err != nil {
		return nil
	}
	return out
}

// otherToolNames are the names of every other tool in the joined sessions:
// server tools and other active clients' tools (never our own entry).
func (l *Link) otherToolNames() []string {
	me := l.client.ClientID()
	set := map[string]bool{}
	add := func(v any) {
		list, _ := v.([]any)
		for _, t := range list {
			if m, ok := t.(map[string]any); ok {
				if n, ok := m["name"].(string); ok {
					set[n] = true
				}
			}
		}
	}
	for _, s := range l.client.Joined() {
		st, ok := l.client.State(s)
		if !ok {
			continue
		}
		add(st["serverTools"])
		clients, _ := st["activeClients"].([]any)
		for _, c := range clients {
			if m, ok := c.(map[string]any); ok && m["clientId"] != me {
				add(m["tools"])
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// clientTree is what Publication needs to know about one folder.
func (l *Link) clientTreeLocked(f *folder) enablement.ClientTree {
	snap := l.snaps[f.key]
	tree := enablement.ClientTree{Resolved: l.ready && snap != nil}
	if snap == nil {
		return tree
	}
	me := l.client.ClientID()
	for _, p := range snap.Plugins {
		src := enablement.ClientPluginSource{ID: pluginID(me, f.key, p.Name), URI: p.URI, Name: p.Name, Nonce: p.Nonce}
		src.Servers = append(src.Servers, bundledServers(p)...)
		tree.Plugins = append(tree.Plugins, src)
	}
	return tree
}

// entryLocked builds the full SessionActiveClient entry and installs the
// trees it promises in the served set. ok is false while any folder's
// store is not loaded (publish nothing then).
func (l *Link) entryLocked() (wire.SessionActiveClient, bool) {
	me := l.client.ClientID()
	entry := wire.SessionActiveClient{ClientID: me, DisplayName: "ahpls", Tools: []wire.ToolDefinition{}, Customizations: []wire.ClientPluginCustomization{}}

	taken := l.otherToolNames()
	l.collisions = nil
	for _, f := range l.folders {
		defs, coll := f.tools.Resolve(taken)
		l.collisions = append(l.collisions, coll...)
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
	for _, f := range l.folders {
		tree := l.clientTreeLocked(f)
		plugins, ok := enablement.Publication(f.store, tree, l.dialect)
		if !ok {
			return entry, false
		}
		snap := l.snaps[f.key]
		byName := map[string]*virtualplugin.Plugin{}
		for _, p := range snap.Plugins {
			byName[p.Name] = p
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
		l.served.Publish(served)
	}
	l.pubs = pubs
	for _, p := range pubs {
		if _, ok := l.history[p.nonce]; ok {
			continue
		}
		l.history[p.nonce] = p
		order := append(l.histOrder[p.id], p.nonce)
		if len(order) > historyPerPlugin {
			delete(l.history, order[0])
			order = order[1:]
		}
		l.histOrder[p.id] = order
	}
	return entry, true
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
		files = append(files, &virtualplugin.File{VPath: f.VPath, Data: data, Sum: sha256.Sum256(data), Size: int64(len(data))})
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
