package ahptest

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// SessionSpec describes a session the host creates.
type SessionSpec struct {
	URI                string // default ahp-session:/s<n>
	Title              string
	Provider           string
	WorkingDirectories []string
}

// CreateSession creates a ready session, announces it with
// root/sessionAdded and returns its URI.
func (part SessionState) CreateSession(spec SessionSpec) string {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.createSessionLocked(spec)
}

func (part SessionState) isoNow() string {
	h := part.h
	return h.opts.Now().UTC().Format("2006-01-02T15:04:05.000Z")
}

func (part SessionState) createSessionLocked(spec SessionSpec) string {
	h := part.h
	if spec.URI == "" {
		spec.URI = fmt.Sprintf("ahp-session:/s%d", len(h.order)+1)
		for h.channels[spec.URI] != nil {
			spec.URI += "x"
		}
	}
	if spec.Title == "" {
		spec.Title = "Session"
	}
	if spec.Provider == "" {
		spec.Provider = "ahptest"
	}
	st := map[string]any{
		"provider": spec.Provider, "title": spec.Title, "status": 1, "lifecycle": "ready",
		"activeClients": []any{}, "chats": []any{},
	}
	if len(spec.WorkingDirectories) > 0 {
		dirs := make([]any, len(spec.WorkingDirectories))
		for i, d := range spec.WorkingDirectories {
			dirs[i] = d
		}
		st["workingDirectories"] = dirs
	}
	state, _ := toObject(st)
	h.channels[spec.URI] = &hostChannel{uri: spec.URI, kind: reduce.Session, state: state}
	h.order = append(h.order, spec.URI)
	h.created[spec.URI] = h.opts.Now()
	h.sessionCreatedLocked(spec.URI)
	h.rootNotifyLocked(wire.MethodSessionAdded, map[string]any{"summary": h.summaryLocked(spec.URI)})
	h.notifyWatchersLocked()
	return spec.URI
}

func (part SessionState) summaryLocked(uri string) map[string]any {
	h := part.h
	st := h.channels[uri].state
	ts := h.created[uri].UTC().Format("2006-01-02T15:04:05.000Z")
	sum := map[string]any{"resource": uri, "provider": st["provider"], "title": st["title"], "status": st["status"], "createdAt": ts, "modifiedAt": ts}
	if d, ok := st["workingDirectories"]; ok {
		sum["workingDirectories"] = d
	}
	return sum
}

// CreateChat adds a chat to a session (session/chatAdded) and returns its
// URI; chat may be empty for a generated one.
func (part SessionState) CreateChat(session, chat, title string) (string, error) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if hc := h.channels[session]; hc == nil || hc.kind != reduce.Session {
		return "", fmt.Errorf("ahptest: no session %s", session)
	}
	if chat == "" {
		chat = fmt.Sprintf("ahp-chat:/c%d", h.serverSeq+1)
		for h.channels[chat] != nil {
			chat += "x"
		}
	}
	if h.channels[chat] != nil {
		return "", fmt.Errorf("ahptest: chat %s exists", chat)
	}
	if title == "" {
		title = "Chat"
	}
	h.createChatLocked(session, chat, title)
	return chat, nil
}

func (part SessionState) createChatLocked(session, chat, title string) {
	h := part.h
	now := h.isoNow()
	state, _ := toObject(map[string]any{"resource": chat, "title": title, "status": 1, "modifiedAt": now, "turns": []any{}})
	h.channels[chat] = &hostChannel{uri: chat, kind: reduce.Chat, session: session, state: state}
	sum, _ := toObject(map[string]any{"resource": chat, "title": title, "status": 1, "modifiedAt": now})
	h.emitLocked(session, map[string]any{"type": "session/chatAdded", "summary": sum}, nil)
}

// DisposeSession removes a session (with its chats; a chat URI works too). Clients that
// reconnect later find it in `missing`.
func (part SessionState) DisposeSession(uri string) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.channels[uri] == nil {
		return fmt.Errorf("ahptest: no channel %s", uri)
	}
	h.disposeLocked(uri)
	return nil
}

func (part SessionState) disposeLocked(uri string) {
	h := part.h
	hc := h.channels[uri]
	switch hc.kind {
	case reduce.Session:
		for u, c := range h.channels {
			if c.session == uri {
				h.dropChannelLocked(u)
			}
		}
		h.dropChannelLocked(uri)
		for i, s := range h.order {
			if s == uri {
				h.order = append(h.order[:i:i], h.order[i+1:]...)
				break
			}
		}
		for _, cr := range h.clients {
			delete(cr.sessions, uri)
		}
		h.sessionDisposedLocked(uri)
		h.rootNotifyLocked(wire.MethodSessionRemoved, map[string]any{"session": uri})
	case reduce.Chat:
		h.dropChannelLocked(uri)
		h.emitLocked(hc.session, map[string]any{"type": "session/chatRemoved", "chat": uri}, nil)
	}
	h.notifyWatchersLocked()
}

func (part SessionState) dropChannelLocked(uri string) {
	h := part.h
	delete(h.channels, uri)
	for c := range h.conns {
		delete(c.subs, uri)
	}
}

// removeActiveClientLocked ends a client's role in a session (§4.8): its
// running tool calls fail, its plugins go, its entry is removed.
func (part SessionState) removeActiveClientLocked(session, clientID, why string) {
	h := part.h
	if cr := h.clients[clientID]; cr != nil {
		delete(cr.sessions, session)
	}
	hc := h.channels[session]
	if hc == nil {
		return
	}
	for _, chat := range h.channels {
		if chat.session != session {
			continue
		}
		turn, _ := chat.state["activeTurn"].(map[string]any)
		turnID, _ := turn["id"].(string)
		for _, tc := range toolCalls(chat.state) {
			if tc["status"] != "running" || ownerOf(tc) != clientID {
				continue
			}
			id, _ := tc["toolCallId"].(string)
			h.emitLocked(chat.uri, map[string]any{"type": "chat/toolCallComplete", "turnId": turnID, "toolCallId": id,
				"result": map[string]any{"success": false, "pastTenseMessage": why, "error": map[string]any{"message": why + " before completing " + fmt.Sprint(tc["toolName"])}}}, nil)
			h.clearInputNeededLocked(session, chat.uri, id)
		}
	}
	if l, ok := hc.state["customizations"].([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && m["clientId"] == clientID {
				h.emitLocked(session, map[string]any{"type": "session/customizationRemoved", "id": m["id"]}, nil)
			}
		}
	}
	if l, ok := h.channels[session].state["activeClients"].([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && m["clientId"] == clientID {
				h.emitLocked(session, map[string]any{"type": "session/activeClientRemoved", "clientId": clientID}, nil)
				break
			}
		}
	}
}

func inputNeededID(chat, toolCallID string) string { return chat + "#" + toolCallID }

func (part SessionState) clearInputNeededLocked(session, chat, toolCallID string) {
	h := part.h
	hc := h.channels[session]
	if hc == nil {
		return
	}
	id := inputNeededID(chat, toolCallID)
	if l, ok := hc.state["inputNeeded"].([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && m["id"] == id {
				h.emitLocked(session, map[string]any{"type": "session/inputNeededRemoved", "id": id}, nil)
				return
			}
		}
	}
}

// toolCalls lists the tool-call states of a chat's active turn.
func toolCalls(chat map[string]any) []map[string]any {
	turn, _ := chat["activeTurn"].(map[string]any)
	parts, _ := turn["responseParts"].([]any)
	var out []map[string]any
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		if pm["kind"] != "toolCall" {
			continue
		}
		if tc, ok := pm["toolCall"].(map[string]any); ok {
			out = append(out, tc)
		}
	}
	return out
}

func findToolCall(chat map[string]any, turnID, id string) map[string]any {
	turn, _ := chat["activeTurn"].(map[string]any)
	if turn == nil || turn["id"] != turnID {
		return nil
	}
	for _, tc := range toolCalls(chat) {
		if tc["toolCallId"] == id {
			return tc
		}
	}
	return nil
}

func ownerOf(tc map[string]any) string {
	c, _ := tc["contributor"].(map[string]any)
	if c["kind"] != "client" {
		return ""
	}
	id, _ := c["clientId"].(string)
	return id
}

// clientDispatchable is IS_CLIENT_DISPATCHABLE at 0.8.0 (§3), restricted to
// the channels this host implements.
var clientDispatchable = map[string]bool{
	"root/configChanged":              true,
	"session/titleChanged":            true,
	"session/activeClientSet":         true,
	"session/activeClientRemoved":     true,
	"session/workingDirectorySet":     true,
	"session/workingDirectoryRemoved": true,
	"session/customizationToggled":    true,
	"session/mcpServerStartRequested": true,
	"session/mcpServerStopRequested":  true,
	"session/isReadChanged":           true,
	"session/isArchivedChanged":       true,
	"session/configChanged":           true,
	"chat/turnStarted":                true,
	"chat/toolCallConfirmed":          true,
	"chat/toolCallComplete":           true,
	"chat/toolCallResultConfirmed":    true,
	"chat/toolCallContentChanged":     true,
	"chat/turnCancelled":              true,
	"chat/workingDirectorySet":        true,
	"chat/workingDirectoryRemoved":    true,
	"chat/pendingMessageSet":          true,
	"chat/pendingMessageRemoved":      true,
	"chat/queuedMessagesReordered":    true,
	"chat/draftChanged":               true,
	"chat/inputAnswerChanged":         true,
	"chat/inputCompleted":             true,
	"chat/truncated":                  true,
	// 1.1: a running call's progress (accepted on 1.1 connections only).
	"chat/toolCallProgress": true,
}

// validateLocked is §3's host validation; "" accepts.
func (part SessionState) validateLocked(clientID string, hc *hostChannel, a map[string]any) string {
	h := part.h
	t, _ := a["type"].(string)
	if !clientDispatchable[t] {
		return t + " is not client-dispatchable"
	}
	prefix, _, _ := strings.Cut(t, "/")
	if prefix != string(hc.kind) {
		return t + " does not apply to " + hc.uri
	}
	switch t {
	case "session/activeClientSet":
		ac, _ := a["activeClient"].(map[string]any)
		if ac["clientId"] != clientID {
			return "activeClient.clientId must be the sender's clientId"
		}
	case "session/activeClientRemoved":
		if a["clientId"] != clientID {
			return "a client may only remove itself"
		}
	case "chat/turnStarted":
		msg, _ := a["message"].(map[string]any)
		origin, _ := msg["origin"].(map[string]any)
		if origin["kind"] != "user" {
			return "clients may start turns with user messages only"
		}
	case "chat/turnCancelled":
		turn, _ := hc.state["activeTurn"].(map[string]any)
		if turn == nil || turn["id"] != a["turnId"] {
			return "no active turn " + fmt.Sprint(a["turnId"])
		}
	case "chat/toolCallProgress":
		if !wire.Since11(h.versionOfLocked(clientID)) {
			return t + " needs protocol 1.1"
		}
		fallthrough
	case "chat/toolCallConfirmed", "chat/toolCallComplete", "chat/toolCallContentChanged", "chat/toolCallResultConfirmed":
		turnID, _ := a["turnId"].(string)
		id, _ := a["toolCallId"].(string)
		tc := findToolCall(hc.state, turnID, id)
		if tc == nil {
			return "no tool call " + id + " in the active turn " + turnID
		}
		st, _ := tc["status"].(string)
		switch t {
		case "chat/toolCallConfirmed":
			if st != "pending-confirmation" {
				return "tool call " + id + " is " + st + ", not pending-confirmation"
			}
		case "chat/toolCallResultConfirmed":
			if st != "pending-result-confirmation" {
				return "tool call " + id + " is " + st + ", not pending-result-confirmation"
			}
		case "chat/toolCallComplete", "chat/toolCallContentChanged", "chat/toolCallProgress":
			if owner := ownerOf(tc); owner != clientID {
				return "tool call " + id + " is not owned by " + clientID
			}
			if st != "running" && !(t == "chat/toolCallComplete" && st == "pending-confirmation") {
				return "tool call " + id + " is " + st + ", not running"
			}
		}
	case "chat/workingDirectorySet":
		dir, _ := a["directory"].(string)
		sess := h.channels[hc.session]
		ok := false
		if sess != nil {
			if l, _ := sess.state["workingDirectories"].([]any); l != nil {
				for _, d := range l {
					ok = ok || d == dir
				}
			}
		}
		if !ok {
			return dir + " is outside the session's working directories"
		}
	}
	return ""
}

// dispatchLocked validates a client action and echoes it (accepted: applied
// with origin; refused: with rejectionReason, not applied).
func (part SessionState) dispatchLocked(c *hconn, p map[string]any) {
	h := part.h
	channel, _ := p["channel"].(string)
	action, _ := p["action"].(map[string]any)
	hc := h.channels[channel]
	if hc == nil || action == nil {
		return // unknown channels get no echo (§3)
	}
	origin := map[string]any{"clientId": c.clientID, "clientSeq": p["clientSeq"]}
	reason := h.validateLocked(c.clientID, hc, action)
	if reason == "" && h.reject != nil {
		reason = h.reject(c.clientID, channel, action)
	}
	if reason != "" {
		h.serverSeq++
		env := map[string]any{"channel": channel, "serverSeq": h.serverSeq, "origin": origin, "rejectionReason": reason, "action": action}
		h.recordLocked(channel, env)
		h.broadcastLocked(channel, env)
		h.notifyWatchersLocked()
		return
	}
	t, _ := action["type"].(string)
	if t == "chat/toolCallProgress" {
		id, _ := action["toolCallId"].(string)
		step, _ := action["step"].(string)
		if h.progress == nil {
			h.progress = map[string][]ProgressReport{}
		}
		if l := h.progress[id]; len(l) < maxProgressKept {
			h.progress[id] = append(l, ProgressReport{At: time.Now(), Step: step})
		}
	}
	var done map[string]any
	if t == "chat/toolCallComplete" {
		done = action
	}
	h.emitLocked(channel, action, origin)
	switch t {
	case "session/activeClientSet":
		h.clientLocked(c.clientID).sessions[channel] = true
		ac, _ := action["activeClient"].(map[string]any)
		h.onActiveClientSetLocked(channel, c.clientID, ac)
	case "session/customizationToggled":
		h.onToggleLocked(channel, action)
	case "session/activeClientRemoved":
		delete(h.clientLocked(c.clientID).sessions, channel)
		h.onActiveClientSetLocked(channel, c.clientID, nil) // its plugins go (§4.8)
	}
	if done != nil {
		id, _ := done["toolCallId"].(string)
		h.clearInputNeededLocked(hc.session, channel, id)
	}
}

// ---- observing ----

// State returns a channel's current host state (read-only).
func (part Recorder) State(uri string) (map[string]any, bool) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	hc := h.channels[uri]
	if hc == nil {
		return nil, false
	}
	return hc.state, true
}

// ProgressReport is one chat/toolCallProgress the host accepted: when it
// arrived and its step.
type ProgressReport struct {
	At   time.Time
	Step string
}

// maxProgressKept bounds the reports kept per call.
const maxProgressKept = 10000

// ToolCallProgress returns the progress reports accepted for a call, in
// arrival order.
func (part ToolCalls) ToolCallProgress(toolCallID string) []ProgressReport {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ProgressReport(nil), h.progress[toolCallID]...)
}

// versionOfLocked is the protocol version a client negotiated.
func (part Recorder) versionOfLocked(clientID string) string {
	h := part.h
	if cr := h.clients[clientID]; cr != nil {
		return cr.version
	}
	return ""
}

// ToolCall returns a tool call's state in a chat's active turn.
func (part ToolCalls) ToolCall(chat, toolCallID string) (map[string]any, bool) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	hc := h.channels[chat]
	if hc == nil {
		return nil, false
	}
	for _, tc := range toolCalls(hc.state) {
		if tc["toolCallId"] == toolCallID {
			return tc, true
		}
	}
	return nil, false
}

// Wait blocks until cond holds or ctx ends. cond runs with the host lock
// held (so it must only read through the View) and is re-checked after every
// change of host state or of a connection.
func (part Recorder) Wait(ctx context.Context, cond func(h *View) bool) error {
	h := part.h
	h.mu.Lock()
	v := &View{h: h}
	if cond(v) {
		h.mu.Unlock()
		return nil
	}
	w := &watcher{pred: func() bool { return cond(v) }, ch: make(chan struct{})}
	h.watchers = append(h.watchers, w)
	h.mu.Unlock()
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		h.mu.Lock()
		for i, x := range h.watchers {
			if x == w {
				h.watchers = append(h.watchers[:i:i], h.watchers[i+1:]...)
				break
			}
		}
		h.mu.Unlock()
		return ctx.Err()
	}
}

// View is the host state as seen by a Wait condition.
type View struct{ h *Host }

// State of a channel (nil when absent).
func (v *View) State(uri string) map[string]any {
	if hc := v.h.channels[uri]; hc != nil {
		return hc.state
	}
	return nil
}

// Connected reports whether a client with that id has a live connection.
func (v *View) Connected(clientID string) bool {
	cr := v.h.clients[clientID]
	return cr != nil && cr.conn != nil && cr.conn.initialized
}

// Subscribed reports whether the connected client is subscribed to uri.
func (v *View) Subscribed(clientID, uri string) bool {
	cr := v.h.clients[clientID]
	return cr != nil && cr.conn != nil && cr.conn.subs[uri]
}

// ToolCall finds a tool call in a chat's active turn.
func (v *View) ToolCall(chat, id string) map[string]any {
	for _, tc := range toolCalls(v.State(chat)) {
		if tc["toolCallId"] == id {
			return tc
		}
	}
	return nil
}

// ActiveClient returns a client's entry in a session's activeClients.
func (v *View) ActiveClient(session, clientID string) map[string]any {
	l, _ := v.State(session)["activeClients"].([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok && m["clientId"] == clientID {
			return m
		}
	}
	return nil
}

func (part Recorder) notifyWatchersLocked() {
	h := part.h
	kept := h.watchers[:0]
	for _, w := range h.watchers {
		if w.pred() {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	h.watchers = kept
}

func decodeBase64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// DisposeChat removes a chat (session/chatRemoved on its session).
func (part SessionState) DisposeChat(uri string) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	hc := h.channels[uri]
	if hc == nil || hc.kind != reduce.Chat {
		return fmt.Errorf("ahptest: no chat %s", uri)
	}
	h.disposeLocked(uri)
	return nil
}
