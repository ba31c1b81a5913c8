package ahptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/enablement"
)

// Loading client plugins (docs/ahp.md §4.4): when a client's accepted
// session/activeClientSet publishes ClientPluginCustomizations, the host
// reads each plugin it has not loaded at that (uri, nonce) through reverse
// resource* requests to that client (§6), off the read loop, and publishes
// it with session/customizationUpdated: clientId set, load "loading" first,
// then "loaded", "degraded" or "error" with the parsed children. Like VS
// Code it keeps the published id, uri and name and ignores client-sent
// load, children and clientId.
//
// Caching: a successful read (loaded, degraded, or an error the content
// itself causes, such as an invalid manifest) is kept per (uri, nonce), so
// republishing the same nonce — in this session or another — reads
// nothing. A failed reverse read is not cached: the client may answer once
// it is back. A plugin published without a nonce is read on every
// publication (the host cannot tell whether it changed).

// Limits on a tree read from a client, so a broken or hostile client cannot
// make the host walk forever.
const (
	maxPluginFiles = 2000
	maxPluginDepth = 16
	maxPluginBytes = 32 << 20
	loadTimeout    = 60 * time.Second
)

type loadKey struct{ uri, nonce string }

// loadWaiter is one (session, plugin) waiting for a load.
type loadWaiter struct {
	session, clientID, id string
}

type loadResult struct {
	parsed *parsedPlugin
	state  map[string]any
}

// pluginState is the host's bookkeeping for client plugins and enablement;
// it lives in Host (field x) and is guarded by Host.mu unless noted.
type pluginState struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	cache     map[loadKey]*loadResult
	inflight  map[loadKey][]loadWaiter
	shown     map[string]map[string]loadKey // session → plugin id → what its entry shows
	reads     map[string]int                // plugin uri → reverse requests sent
	overrides map[string]map[string]any     // plugin uri → forced next load state
	mcpErrors map[string]map[string]string  // session → MCP child id → config error
	launched  map[string]map[string]bool    // session → MCP id → last launch verdict
	failed    map[string]map[string]bool    // session → plugin id whose reverse read failed

	// enablement (enablement.go)
	store    *enablement.Store
	overlay  *enablement.Overlay
	sessions *hostSessions
	decided  map[string]map[string]bool // session → ids a toggle or host decision touched
	dirtyMu  sync.Mutex
	dirty    map[string]bool
	wake     chan struct{}
}

func (part PluginStore) initPlugins() {
	h := part.h
	x := &h.x
	x.ctx, x.cancel = context.WithCancel(context.Background())
	x.cache = map[loadKey]*loadResult{}
	x.inflight = map[loadKey][]loadWaiter{}
	x.shown = map[string]map[string]loadKey{}
	x.reads = map[string]int{}
	x.overrides = map[string]map[string]any{}
	x.mcpErrors = map[string]map[string]string{}
	x.launched = map[string]map[string]bool{}
	x.failed = map[string]map[string]bool{}
	h.initEnablement()
}

// closePlugins stops loaders and the republisher and waits for them. Call
// without h.mu held.
func (part PluginStore) closePlugins() {
	h := part.h
	h.x.cancel()
	h.x.wg.Wait()
}

func (part PluginStore) loadEnabled() bool {
	h := part.h
	return h.opts.LoadClientPlugins == nil || *h.opts.LoadClientPlugins
}

// clientPlugin is one ClientPluginCustomization as published.
type clientPlugin struct {
	id, uri, name, nonce string
	hasNonce             bool
}

func publishedPlugins(ac map[string]any) []clientPlugin {
	var out []clientPlugin
	l, _ := ac["customizations"].([]any)
	for _, e := range l {
		m, _ := e.(map[string]any)
		if m == nil || m["type"] != "plugin" {
			continue
		}
		p := clientPlugin{}
		p.id, _ = m["id"].(string)
		p.uri, _ = m["uri"].(string)
		p.name, _ = m["name"].(string)
		p.nonce, p.hasNonce = m["nonce"].(string)
		if p.id == "" || p.uri == "" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// onActiveClientSetLocked reacts to an accepted activeClientSet: plugins the
// client no longer publishes go, new or changed ones are (re)loaded, and the
// session's enablement is republished (the client's Global may have moved).
func (part PluginStore) onActiveClientSetLocked(session, clientID string, ac map[string]any) {
	h := part.h
	hc := h.channels[session]
	if hc == nil {
		return
	}
	plugins := publishedPlugins(ac)
	want := map[string]bool{}
	for _, p := range plugins {
		want[p.id] = true
	}
	shown := h.x.shown[session]
	if shown == nil {
		shown = map[string]loadKey{}
		h.x.shown[session] = shown
	}
	// Removed from the client's entry: the host drops what it published.
	for _, e := range customizationsOf(hc.state) {
		if e["clientId"] == clientID && e["type"] == "plugin" && !want[str(e["id"])] {
			id := str(e["id"])
			h.emitLocked(session, map[string]any{"type": "session/customizationRemoved", "id": id}, nil)
			delete(shown, id)
		}
	}
	if h.loadEnabled() {
		for _, p := range plugins {
			key := loadKey{p.uri, p.nonce}
			entry := findCustomization(hc.state, p.id)
			if entry != nil && p.hasNonce && shown[p.id] == key && entry["clientId"] == clientID {
				continue // same (uri, nonce): nothing to read
			}
			shown[p.id] = key
			h.startLoadLocked(session, clientID, p)
		}
	}
	h.republishLocked(session)
}

func customizationsOf(state map[string]any) []map[string]any {
	l, _ := state["customizations"].([]any)
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func findCustomization(state map[string]any, id string) map[string]any {
	for _, e := range customizationsOf(state) {
		if e["id"] == id {
			return e
		}
	}
	return nil
}

// pluginEntry is the host's customization object for a client plugin.
func pluginEntry(p clientPlugin, clientID string, load map[string]any, res *parsedPlugin) map[string]any {
	e := map[string]any{"type": "plugin", "id": p.id, "uri": p.uri, "name": p.name, "enabled": true, "clientId": clientID, "load": load}
	if res != nil {
		children := make([]any, len(res.children))
		for i, c := range res.children {
			children[i] = maps.Clone(c)
		}
		e["children"] = children
		if res.version != "" {
			e["version"] = res.version
		}
	}
	return e
}

func (part PluginStore) startLoadLocked(session, clientID string, p clientPlugin) {
	h := part.h
	key := loadKey{p.uri, p.nonce}
	w := loadWaiter{session, clientID, p.id}
	if r, ok := h.x.cache[key]; ok && p.hasNonce {
		h.finishLoadLocked(w, p, r)
		return
	}
	h.emitGatedLocked(session, pluginEntry(p, clientID, map[string]any{"kind": "loading"}, nil))
	if waiting, ok := h.x.inflight[key]; ok {
		h.x.inflight[key] = append(waiting, w)
		return
	}
	if h.closed {
		return
	}
	h.x.inflight[key] = []loadWaiter{w}
	var startConn *hconn
	if cr := h.clients[clientID]; cr != nil {
		startConn = cr.conn
	}
	h.x.wg.Add(1)
	go func() {
		defer h.x.wg.Done()
		ctx, cancel := context.WithTimeout(h.x.ctx, loadTimeout)
		defer cancel()
		files, err := h.readPluginTree(ctx, clientID, p.uri)
		var r *loadResult
		if err != nil {
			r = &loadResult{parsed: &parsedPlugin{}, state: map[string]any{"kind": "error", "message": err.Error()}}
		} else {
			parsed := parsePlugin(p.id, p.uri, files)
			r = &loadResult{parsed: parsed, state: parsed.loadState()}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		defer h.notifyWatchersLocked()
		if ov, ok := h.x.overrides[p.uri]; ok {
			delete(h.x.overrides, p.uri)
			r = &loadResult{parsed: r.parsed, state: ov}
			err = nil
		}
		if err == nil {
			h.x.cache[key] = r
		}
		waiters := h.x.inflight[key]
		delete(h.x.inflight, key)
		if h.closed {
			return
		}
		for _, w := range waiters {
			if h.x.failed[w.session] == nil {
				h.x.failed[w.session] = map[string]bool{}
			}
			if err != nil {
				h.x.failed[w.session][w.id] = true
			} else {
				delete(h.x.failed[w.session], w.id)
			}
			h.finishLoadLocked(w, p, r)
		}
		// The socket dropped mid-read and the client is already back: its
		// reconnect may have run before this failure was recorded.
		if cr := h.clients[clientID]; err != nil && cr != nil && cr.conn != nil && cr.conn != startConn {
			h.retryFailedLoadsLocked(clientID)
		}
	}()
}

// retryFailedLoadsLocked reloads, after a client reconnected, its plugins
// whose last read failed (typically because the socket dropped mid-read):
// the client keeps its entry and will not republish, so the host must ask
// again.
func (part PluginStore) retryFailedLoadsLocked(clientID string) {
	h := part.h
	if !h.loadEnabled() {
		return
	}
	for session, ids := range h.x.failed {
		ac := (&View{h: h}).ActiveClient(session, clientID)
		for _, p := range publishedPlugins(ac) {
			if ids[p.id] {
				delete(ids, p.id)
				h.startLoadLocked(session, clientID, p)
			}
		}
	}
}

// finishLoadLocked publishes a load result for one waiter if its session
// still shows that plugin at that (uri, nonce) from that client; a newer
// publication superseded it otherwise.
func (part PluginStore) finishLoadLocked(w loadWaiter, p clientPlugin, r *loadResult) {
	h := part.h
	hc := h.channels[w.session]
	if hc == nil || h.x.shown[w.session][w.id] != (loadKey{p.uri, p.nonce}) {
		return
	}
	ac := (&View{h: h}).ActiveClient(w.session, w.clientID)
	current := false
	for _, q := range publishedPlugins(ac) {
		current = current || (q.id == w.id && q.uri == p.uri && q.nonce == p.nonce)
	}
	if !current {
		return
	}
	// The published name may have changed with the same nonce; take it.
	for _, q := range publishedPlugins(ac) {
		if q.id == w.id {
			p.name = q.name
		}
	}
	var parsed *parsedPlugin
	if r.state["kind"] != "error" {
		parsed = r.parsed
	}
	// A reload starts its servers afresh: forget the old verdicts.
	errs := h.x.mcpErrors[w.session]
	if errs == nil {
		errs = map[string]string{}
		h.x.mcpErrors[w.session] = errs
	}
	maps.DeleteFunc(errs, func(id, _ string) bool { return strings.HasPrefix(id, w.id+"/") })
	maps.DeleteFunc(h.x.launched[w.session], func(id string, _ bool) bool { return strings.HasPrefix(id, w.id+"/") })
	if parsed != nil {
		maps.Copy(errs, parsed.mcpErrors)
	}
	entry := pluginEntry(p, w.clientID, maps.Clone(r.state), parsed)
	h.emitGatedLocked(w.session, entry)
	h.launchLocked(w.session, w.id)
}

// readPluginTree walks a client's plugin through reverse requests:
// resourceResolve the root, resourceList every directory, resourceRead
// every file. Any failure is "cannot read <uri>: <error>".
func (part PluginStore) readPluginTree(ctx context.Context, clientID, root string) (map[string][]byte, error) {
	h := part.h
	root = strings.TrimSuffix(root, "/")
	call := func(method, uri string, params map[string]any) (json.RawMessage, error) {
		h.mu.Lock()
		h.x.reads[root]++
		h.mu.Unlock()
		if h.opts.OnPluginRead != nil {
			h.opts.OnPluginRead(clientID, method, uri)
		}
		p := map[string]any{"uri": uri}
		maps.Copy(p, params)
		res, err := h.Request(ctx, clientID, method, p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", uri, err)
		}
		return res, nil
	}
	res, err := call("resourceResolve", root, nil)
	if err != nil {
		return nil, err
	}
	var st struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(res, &st); err != nil || st.Type != "directory" {
		return nil, fmt.Errorf("cannot read %s: not a directory", root)
	}
	files := map[string][]byte{}
	total := 0
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		if depth > maxPluginDepth {
			return fmt.Errorf("cannot read %s: deeper than %d levels", root+"/"+rel, maxPluginDepth)
		}
		dir := root
		if rel != "" {
			dir += "/" + rel
		}
		res, err := call(wire.MethodResourceList, dir, nil)
		if err != nil {
			return err
		}
		var l struct {
			Entries []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"entries"`
		}
		if err := json.Unmarshal(res, &l); err != nil {
			return fmt.Errorf("cannot read %s: bad resourceList result: %v", dir, err)
		}
		for _, e := range l.Entries {
			if !cleanName(e.Name) {
				return fmt.Errorf("cannot read %s: invalid entry name %q", dir, e.Name)
			}
			child := e.Name
			if rel != "" {
				child = rel + "/" + e.Name
			}
			switch e.Type {
			case "directory":
				if err := walk(child, depth+1); err != nil {
					return err
				}
			case "file":
				if len(files) >= maxPluginFiles {
					return fmt.Errorf("cannot read %s: more than %d files", root, maxPluginFiles)
				}
				data, err := readFile(call, root+"/"+child)
				if err != nil {
					return err
				}
				if total += len(data); total > maxPluginBytes {
					return fmt.Errorf("cannot read %s: larger than %d bytes", root, maxPluginBytes)
				}
				files[child] = data
			}
			// Symlinks and unknown types: a resolved tree lists files and
			// directories; anything else is skipped.
		}
		return nil
	}
	if err := walk("", 0); err != nil {
		return nil, err
	}
	return files, nil
}

func readFile(call func(method, uri string, params map[string]any) (json.RawMessage, error), uri string) ([]byte, error) {
	res, err := call(wire.MethodResourceRead, uri, nil)
	if err != nil {
		return nil, err
	}
	var r struct {
		Data     *string `json:"data"`
		Encoding string  `json:"encoding"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.Data == nil {
		return nil, fmt.Errorf("cannot read %s: bad resourceRead result", uri)
	}
	switch r.Encoding {
	case "base64":
		b, err := decodeBase64(*r.Data)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: bad base64: %v", uri, err)
		}
		return b, nil
	case "utf-8", "":
		return []byte(*r.Data), nil
	}
	return nil, fmt.Errorf("cannot read %s: unknown encoding %q", uri, r.Encoding)
}

// launchLocked gives the MCP servers of one container their state after a
// load or an enablement change: a server whose config has neither command
// nor url fails; an eligible, enabled one becomes ready; one the gate
// keeps off is stopped. Only changes of the verdict are emitted.
func (part PluginStore) launchLocked(session, containerID string) {
	h := part.h
	hc := h.channels[session]
	if hc == nil {
		return
	}
	entry := findCustomization(hc.state, containerID)
	if entry == nil {
		return
	}
	if load, _ := entry["load"].(map[string]any); load["kind"] == "loading" {
		return
	}
	launch := enablement.Resolved{Tree: []enablement.Node{nodeOf(entry)}, PendingIDs: h.pendingIDsLocked(session, entry)}.LaunchSet()
	if h.x.launched[session] == nil {
		h.x.launched[session] = map[string]bool{}
	}
	children, _ := entry["children"].([]any)
	for _, c := range children {
		ch, _ := c.(map[string]any)
		if ch["type"] != "mcpServer" {
			continue
		}
		id := str(ch["id"])
		on := launch[id]
		if prev, seen := h.x.launched[session][id]; seen && prev == on {
			continue
		}
		h.x.launched[session][id] = on
		var state map[string]any
		switch {
		case h.x.mcpErrors[session][id] != "":
			state = map[string]any{"kind": "error", "error": map[string]any{"errorType": "configuration", "message": h.x.mcpErrors[session][id]}}
		case on:
			state = map[string]any{"kind": "ready"}
		default:
			state = map[string]any{"kind": "stopped"}
		}
		if cur, _ := ch["state"].(map[string]any); cur["kind"] == state["kind"] {
			continue
		}
		h.emitLocked(session, mustObject(map[string]any{"type": "session/mcpServerStateChanged", "id": id, "state": state}), nil)
	}
}

// ---- public API ----

// Reads counts the reverse requests (resolve, list, read) the host has sent
// for the plugin rooted at pluginURI, so tests can assert "no re-read".
func (part PluginStore) Reads(pluginURI string) int {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.x.reads[strings.TrimSuffix(pluginURI, "/")]
}

// SetLoadOverride forces the result of the next load of pluginURI: after
// reading the tree the host publishes state (a CustomizationLoadState such
// as {"kind":"error","message":"…"}) instead of what parsing said; the
// parsed children are kept unless the state is an error. The override is
// used once and the result is cached for that (uri, nonce).
func (part PluginStore) SetLoadOverride(pluginURI string, state map[string]any) error {
	h := part.h
	st, err := toObject(state)
	if err != nil {
		return err
	}
	if err := validateLoadState(st); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.x.overrides[strings.TrimSuffix(pluginURI, "/")] = st
	return nil
}

// EmitLoadState sets the load state of a published container (a plugin or
// directory with that id in the session) by hand and republishes it with
// session/customizationUpdated.
func (part PluginStore) EmitLoadState(session, pluginID string, state map[string]any) error {
	h := part.h
	st, err := toObject(state)
	if err != nil {
		return err
	}
	if err := validateLoadState(st); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	hc := h.channels[session]
	if hc == nil {
		return fmt.Errorf("ahptest: no session %s", session)
	}
	e := findCustomization(hc.state, pluginID)
	if e == nil || (e["type"] != "plugin" && e["type"] != "directory") {
		return fmt.Errorf("ahptest: no container %s in %s", pluginID, session)
	}
	e = maps.Clone(e)
	e["load"] = st
	h.emitLocked(session, map[string]any{"type": "session/customizationUpdated", "customization": e}, nil)
	return nil
}

var errBadLoadState = errors.New("ahptest: load state must be loading, loaded, degraded {message} or error {message}")

func validateLoadState(st map[string]any) error {
	switch st["kind"] {
	case "loading", "loaded":
		return nil
	case "degraded", "error":
		if _, ok := st["message"].(string); ok {
			return nil
		}
	}
	return errBadLoadState
}
