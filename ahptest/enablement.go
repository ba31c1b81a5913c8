package ahptest

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/enablement"
)

// The host's half of scoped enablement (docs/enablement.md §2, §3, §8): an
// enablement.Overlay holds host decisions over each client's Global, and
// every publication of a plugin or MCP server passes ResolveTree, with the
// client maps rebuilt from every client's latest activeClientSet each time.
//
// Canonical host state carries both spellings on plugins and MCP servers:
// `enabled` (the effective value) and `enablement` (the resolved list,
// omitted when empty). Each connection sees only its dialect's spelling
// (dialect.go).
//
// Which entries are gated: every plugin a client published, and any entry
// a toggle or SetDecision touched. Entries a test emitted by hand and never
// toggled keep exactly what was emitted.
//
// A 0.8-snapshot client publishes `enabled` and no list; the host reads
// that boolean as the client's Global (what ahpls projects it from), so the
// gate has a base for it too.

// hostSessions is the overlay's view of the host's sessions. It has its own
// lock (a leaf): the overlay calls it while the host lock is held.
type hostSessions struct {
	mu sync.Mutex
	m  map[string]enablement.SessionInfo
}

func (s *hostSessions) Session(id string) enablement.SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

func (s *hostSessions) set(id string, info enablement.SessionInfo, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !known {
		delete(s.m, id)
		return
	}
	s.m[id] = info
}

func (part EnablementState) initEnablement() {
	h := part.h
	x := &h.x
	store := enablement.OpenStore(h.opts.EnablementStore, h.log)
	var data enablement.SessionData
	if h.opts.EnablementStore != "" {
		dir := h.opts.EnablementStore + ".sessions"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			h.log.Warn("ahptest: cannot create the session decisions directory; keeping them in memory", "dir", dir, "err", err)
		} else {
			data = enablement.SessionFiles{Dir: filepath.Clean(dir)}
		}
	}
	x.store = store
	x.sessions = &hostSessions{m: map[string]enablement.SessionInfo{}}
	x.overlay = enablement.NewOverlay(store, x.sessions, data, h.log)
	x.decided = map[string]map[string]bool{}
	x.dirty = map[string]bool{}
	x.wake = make(chan struct{}, 1)
	x.overlay.OnChange(func(sessions []string) {
		// Runs inside overlay calls, often with h.mu held: only note the
		// sessions; the republisher takes the host lock itself.
		x.dirtyMu.Lock()
		for _, s := range sessions {
			x.dirty[s] = true
		}
		x.dirtyMu.Unlock()
		select {
		case x.wake <- struct{}{}:
		default:
		}
	})
	x.wg.Add(1)
	go h.republisher()
}

// republisher republishes sessions whose resolutions an overlay event may
// have changed.
func (part EnablementState) republisher() {
	h := part.h
	defer h.x.wg.Done()
	for {
		select {
		case <-h.x.ctx.Done():
			return
		case <-h.x.wake:
		}
		h.x.dirtyMu.Lock()
		dirty := h.x.dirty
		h.x.dirty = map[string]bool{}
		h.x.dirtyMu.Unlock()
		h.mu.Lock()
		if !h.closed {
			for _, s := range slices.Sorted(maps.Keys(dirty)) {
				if hc := h.channels[s]; hc != nil && hc.kind == reduce.Session {
					h.republishLocked(s)
				}
			}
			h.notifyWatchersLocked()
		}
		h.mu.Unlock()
	}
}

// sessionInfoLocked derives the overlay's facts from host state. A session
// the host created without working directories is workspaceless (the host
// made it so), not pending.
func (part EnablementState) refreshSessionInfoLocked(session string) {
	h := part.h
	hc := h.channels[session]
	if hc == nil || hc.kind != reduce.Session {
		h.x.sessions.set(session, enablement.SessionInfo{}, false)
		return
	}
	info := enablement.SessionInfo{Known: true}
	if l, ok := hc.state["workingDirectories"].([]any); ok {
		for _, d := range l {
			if s, ok := d.(string); ok {
				info.WorkingDirectories = append(info.WorkingDirectories, s)
			}
		}
	}
	info.Workspaceless = len(info.WorkingDirectories) == 0
	for _, c := range h.channels {
		if c.session == session && c.state["activeTurn"] != nil {
			info.TurnActive = true
		}
	}
	h.x.sessions.set(session, info, true)
}

// afterEmitLocked keeps the overlay's session facts current after a change
// of host state (called by emitLocked and session creation/disposal).
func (part EnablementState) afterEmitLocked(hc *hostChannel, before map[string]any) {
	h := part.h
	if hc == nil {
		return
	}
	switch hc.kind {
	case reduce.Session:
		h.refreshSessionInfoLocked(hc.uri)
		b, _ := json.Marshal(before["workingDirectories"])
		a, _ := json.Marshal(hc.state["workingDirectories"])
		if string(a) != string(b) {
			h.x.overlay.NotifyWorkingDirectories(hc.uri)
		}
	case reduce.Chat:
		if (before["activeTurn"] != nil) == (hc.state["activeTurn"] != nil) {
			return
		}
		h.refreshSessionInfoLocked(hc.session)
		if hc.state["activeTurn"] == nil {
			h.x.overlay.NotifyTurnEnded(hc.session)
		}
	}
}

func (part EnablementState) sessionCreatedLocked(session string) {
	h := part.h
	h.refreshSessionInfoLocked(session)
	h.x.overlay.InitSession(session)
}

func (part EnablementState) sessionDisposedLocked(session string) {
	h := part.h
	h.x.sessions.set(session, enablement.SessionInfo{}, false)
	h.x.overlay.CloseSession(session)
	delete(h.x.shown, session)
	delete(h.x.decided, session)
	delete(h.x.mcpErrors, session)
	delete(h.x.launched, session)
}

// ---- wire <-> enablement.Node ----

func listOf(v any) (enablement.List, bool) {
	raw, ok := v.([]any)
	if !ok {
		return nil, false
	}
	l := enablement.List{}
	for _, e := range raw {
		m, _ := e.(map[string]any)
		if m == nil {
			continue
		}
		d := enablement.Decision{Kind: enablement.Kind(str(m["kind"]))}
		d.URI, _ = m["uri"].(string)
		d.Enabled, _ = m["enabled"].(bool)
		l = append(l, d)
	}
	return l, true
}

func listToWire(l enablement.List) []any {
	out := make([]any, len(l))
	for i, d := range l {
		m := map[string]any{"kind": string(d.Kind), "enabled": d.Enabled}
		if d.URI != "" {
			m["uri"] = d.URI
		}
		out[i] = m
	}
	return out
}

func nodeOf(m map[string]any) enablement.Node {
	n := enablement.Node{Type: str(m["type"]), ID: str(m["id"]), URI: str(m["uri"]), Name: str(m["name"]), ClientID: str(m["clientId"])}
	if b, ok := m["enabled"].(bool); ok {
		n.Enabled = &b
	}
	if l, ok := listOf(m["enablement"]); ok {
		n.Enablement = l
	}
	children, _ := m["children"].([]any)
	for _, c := range children {
		if cm, ok := c.(map[string]any); ok {
			n.Children = append(n.Children, nodeOf(cm))
		}
	}
	return n
}

func scopedType(t any) bool { return t == "plugin" || t == "mcpServer" }

// applyNode puts a resolved node's lists on a wire object: `enablement` is
// the resolved list (absent when empty) and `enabled` its effective value.
func applyNode(m map[string]any, n enablement.Node, pending map[string]bool) map[string]any {
	out := maps.Clone(m)
	if scopedType(out["type"]) && !pending[n.ID] {
		if len(n.Enablement) == 0 {
			delete(out, "enablement")
		} else {
			out["enablement"] = listToWire(n.Enablement)
		}
		out["enabled"] = enablement.Enabled(n.Enablement)
	}
	children, _ := m["children"].([]any)
	if len(children) == len(n.Children) && len(children) > 0 {
		nc := make([]any, len(children))
		for i, c := range children {
			cm, ok := c.(map[string]any)
			if ok && cm["type"] == "mcpServer" {
				nc[i] = applyNode(cm, n.Children[i], pending)
			} else {
				nc[i] = c
			}
		}
		out["children"] = nc
	}
	return out
}

// clientMapsLocked rebuilds the gate's client maps from every client's
// latest activeClientSet in the session (never appended to).
func (part EnablementState) clientMapsLocked(session string) (map[string]map[string]enablement.List, map[string]enablement.ClientPlugin) {
	h := part.h
	var plugins []enablement.ClientPlugin
	hc := h.channels[session]
	if hc != nil {
		acs, _ := hc.state["activeClients"].([]any)
		for _, a := range acs {
			am, _ := a.(map[string]any)
			l, _ := am["customizations"].([]any)
			for _, e := range l {
				m, _ := e.(map[string]any)
				if m == nil || m["type"] != "plugin" {
					continue
				}
				b, _ := json.Marshal(m)
				var cp enablement.ClientPlugin
				if json.Unmarshal(b, &cp) != nil || cp.URI == "" {
					continue
				}
				if cp.Enablement == nil {
					if on, ok := m["enabled"].(bool); ok {
						cp.Enablement = enablement.List{{Kind: enablement.KindGlobal, Enabled: on}}
					}
				}
				plugins = append(plugins, cp)
			}
		}
	}
	return enablement.ClientMaps(plugins)
}

// resolveEntryLocked runs one top-level customization through the gate.
func (part EnablementState) resolveEntryLocked(session string, m map[string]any) (map[string]any, enablement.Resolved) {
	h := part.h
	cc, cp := h.clientMapsLocked(session)
	res := enablement.ResolveTree(h.x.overlay, session, []enablement.Node{nodeOf(m)}, cc, cp, nil)
	return applyNode(m, res.Tree[0], res.PendingIDs), res
}

func (part EnablementState) pendingIDsLocked(session string, m map[string]any) map[string]bool {
	h := part.h
	_, res := h.resolveEntryLocked(session, m)
	return res.PendingIDs
}

func (part EnablementState) gatedLocked(session string, m map[string]any) bool {
	h := part.h
	if str(m["clientId"]) != "" || h.x.decided[session][str(m["id"])] {
		return true
	}
	children, _ := m["children"].([]any)
	for _, c := range children {
		if cm, ok := c.(map[string]any); ok && h.x.decided[session][str(cm["id"])] {
			return true
		}
	}
	return false
}

// emitGatedLocked publishes a container after the gate.
func (part EnablementState) emitGatedLocked(session string, m map[string]any) {
	h := part.h
	if h.gatedLocked(session, m) {
		m, _ = h.resolveEntryLocked(session, m)
	}
	h.emitLocked(session, map[string]any{"type": "session/customizationUpdated", "customization": mustObject(m)}, nil)
}

// republishLocked runs the session's gated customizations through
// ResolveTree and publishes those whose resolution changed, then brings
// their MCP servers in line with the launch verdicts.
func (part EnablementState) republishLocked(session string) {
	h := part.h
	hc := h.channels[session]
	if hc == nil {
		return
	}
	for _, e := range customizationsOf(hc.state) {
		if !h.gatedLocked(session, e) {
			continue
		}
		out, _ := h.resolveEntryLocked(session, e)
		a, _ := json.Marshal(out)
		b, _ := json.Marshal(e)
		if string(a) != string(b) {
			h.emitLocked(session, map[string]any{"type": "session/customizationUpdated", "customization": mustObject(out)}, nil)
		}
		h.launchLocked(session, str(e["id"]))
	}
}

// targetLocked finds a plugin or MCP server by id (top level or a child)
// and builds its enablement target the way ResolveTree does.
func (part EnablementState) targetLocked(session, id string) (enablement.Target, bool) {
	h := part.h
	hc := h.channels[session]
	if hc == nil {
		return enablement.Target{}, false
	}
	cc, cp := h.clientMapsLocked(session)
	for _, e := range customizationsOf(hc.state) {
		n := nodeOf(e)
		if n.ID == id {
			switch n.Type {
			case enablement.TypePlugin:
				_, bundled := cp[n.URI]
				return enablement.PluginTarget(n, bundled), true
			case enablement.TypeMCPServer:
				return enablement.MCPTarget(n, "", false), true
			}
			return enablement.Target{}, false
		}
		for _, ch := range n.Children {
			if ch.ID != id {
				continue
			}
			if ch.Type != enablement.TypeMCPServer {
				return enablement.Target{}, false
			}
			owner := ""
			if n.Type == enablement.TypePlugin {
				owner = n.URI
			}
			_, bundled := cc[owner][ch.Name]
			return enablement.MCPTarget(ch, owner, bundled), true
		}
	}
	return enablement.Target{}, false
}

// onToggleLocked is the host's customizationToggled handler (the reducer
// has already applied the echoed action): a plugin or MCP server goes
// through Overlay.Toggle — an enablement-dialect list as the full
// replacement, a 0.8 boolean as the Session scope — and the session is
// republished through the gate. Leaves and directories keep what the
// reducer did (their `enabled` is per-session host state).
func (part EnablementState) onToggleLocked(session string, a map[string]any) {
	h := part.h
	id := str(a["id"])
	t, ok := h.targetLocked(session, id)
	if !ok {
		return
	}
	var l enablement.List
	if list, ok := listOf(a["enablement"]); ok {
		l = enablement.Sort(list)
	} else if on, ok := a["enabled"].(bool); ok {
		l = enablement.With(h.x.overlay.Resolve(session, t).List, enablement.KindSession,
			enablement.Decision{Kind: enablement.KindSession, Enabled: on})
	} else {
		return
	}
	if _, err := h.x.overlay.Toggle(session, t, l); err != nil {
		h.log.Warn("ahptest: toggle not applied", "session", session, "id", id, "err", err)
	}
	h.markDecidedLocked(session, id)
	h.republishLocked(session)
}

func (part EnablementState) markDecidedLocked(session, id string) {
	h := part.h
	if h.x.decided[session] == nil {
		h.x.decided[session] = map[string]bool{}
	}
	h.x.decided[session][id] = true
}

// ---- public API ----

// ErrNotScoped: only plugins and MCP servers carry scoped decisions.
var ErrNotScoped = errors.New("ahptest: no plugin or MCP server with that id in the session")

// SetDecision makes l the host's complete set of decisions for a plugin or
// MCP server in a session (Overlay.Replace: a host-side decision, which —
// unlike a client's toggle — may set Global, masking the client's base),
// then republishes the session.
func (part EnablementState) SetDecision(session, id string, l enablement.List) (enablement.Resolution, error) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	defer h.notifyWatchersLocked()
	t, ok := h.targetLocked(session, id)
	if !ok {
		return enablement.Resolution{}, ErrNotScoped
	}
	res, err := h.x.overlay.Replace(session, t, l)
	if err != nil {
		return res, err
	}
	h.markDecidedLocked(session, id)
	h.republishLocked(session)
	return res, nil
}

// Overlay is the host's enablement overlay (read it, or write through it;
// its change events republish the affected sessions).
func (part EnablementState) Overlay() *enablement.Overlay {
	h := part.h
	return h.x.overlay
}

// DurableDecisions copies the host's stored Global and Workspace decisions.
func (part EnablementState) DurableDecisions() enablement.Durable {
	h := part.h
	return h.x.store.Snapshot()
}
