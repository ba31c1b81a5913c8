package ahpclient

// The state mirror: confirmed state per channel, pending optimistic
// actions on top, reconciliation on echo (docs/ahp.md §3).

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

func (c *Client) ensureChannelLocked(uri string, kind reduce.Kind, session string) *channelState {
	ch := c.channels[uri]
	if ch == nil {
		ch = &channelState{uri: uri, kind: kind, session: session}
		c.channels[uri] = ch
	}
	return ch
}

func (c *Client) installSnapshotLocked(s snapshot) {
	ch := c.channels[s.Resource]
	if ch == nil {
		if s.Resource != RootURI {
			return // not ours to follow
		}
		ch = c.ensureChannelLocked(RootURI, reduce.Root, "")
	}
	st, ok := decodeObject(s.State)
	if !ok {
		st = map[string]any{}
	}
	ch.confirmed, ch.fromSeq, ch.applied, ch.live = st, s.FromSeq, s.FromSeq, true
	c.observeEnablementLocked(ch)
	if s.FromSeq > c.serverSeq {
		c.serverSeq = s.FromSeq
	}
	buf := ch.buffer
	ch.buffer = nil
	for _, env := range buf {
		c.applyEnvelopeLocked(env)
	}
	c.renderLocked(ch, nil)
}

// applyEnvelopeLocked is §3's reconciliation for one envelope.
//
// Each serverSeq is applied at most once per channel: an envelope at or
// below the highest applied one (or the snapshot's fromSeq) is dropped. A
// host that re-sends an envelope — same serverSeq after a write it thought
// lost, or the same action under a new serverSeq — would otherwise apply it
// twice, and a second chat/toolCallStart appends a second entry for the
// same call (issue 15). Re-sent starts under a new serverSeq are caught by
// replayedStart.
func (c *Client) applyEnvelopeLocked(env *actionEnvelope) {
	if env.ServerSeq > c.serverSeq+1 && c.serverSeq > 0 {
		// serverSeq is host-wide, so a jump is a gap only if no channel
		// we do not follow took the numbers in between: debug only.
		c.log.Debug("ahp: serverSeq jumped", "from", c.serverSeq, "to", env.ServerSeq, "channel", env.Channel)
	}
	if env.ServerSeq > c.serverSeq {
		c.serverSeq = env.ServerSeq
	}
	ch := c.channels[env.Channel]
	if ch == nil {
		return // not a channel we follow
	}
	if !ch.live {
		ch.buffer = append(ch.buffer, env)
		return
	}
	if env.ServerSeq <= ch.fromSeq {
		return // already contained in the snapshot
	}
	if env.ServerSeq <= ch.applied {
		if env.ServerSeq == ch.applied {
			c.log.Warn("ahp: duplicate envelope dropped", "channel", ch.uri, "serverSeq", env.ServerSeq)
		} else {
			c.log.Warn("ahp: out-of-order envelope dropped", "channel", ch.uri, "serverSeq", env.ServerSeq, "applied", ch.applied)
		}
		return
	}
	ch.applied = env.ServerSeq
	action, ok := decodeObject(env.Action)
	if !ok {
		c.emitLocked(Event{Kind: EventBadFrame, Channel: ch.uri, Err: errors.New("action is not an object")})
		return
	}
	if what, again := replayedStart(ch.kind, ch.confirmed, action); again && env.RejectionReason == nil {
		c.log.Warn("ahp: re-sent start ignored", "channel", ch.uri, "serverSeq", env.ServerSeq, "start", what)
		return
	}
	var mine *Dispatched
	if env.Origin != nil && env.Origin.ClientID == c.clientID {
		for i, p := range ch.pending {
			if p.ClientSeq == env.Origin.ClientSeq {
				mine = p
				ch.pending = append(ch.pending[:i:i], ch.pending[i+1:]...)
				break
			}
		}
	}
	if env.RejectionReason != nil {
		if env.Origin != nil && env.Origin.ClientID == c.clientID {
			c.log.Warn("ahp: host rejected our action", "channel", ch.uri, "clientSeq", env.Origin.ClientSeq, "reason", *env.RejectionReason)
			c.emitLocked(Event{Kind: EventActionRejected, Channel: ch.uri, ChannelKind: ch.kind, ClientSeq: env.Origin.ClientSeq, Action: action, Reason: *env.RejectionReason})
		}
		if mine != nil {
			mine.resolve(&RejectedError{Channel: ch.uri, ClientSeq: mine.ClientSeq, Reason: *env.RejectionReason})
			c.renderLocked(ch, action)
		}
		return // a rejected action is never applied
	}
	ch.confirmed = c.apply(ch.kind, ch.confirmed, action)
	c.observeEnablementLocked(ch)
	if mine != nil {
		mine.resolve(nil)
	}
	c.renderLocked(ch, action)
}

// replayedStart reports a chat start the state already holds: a
// chat/toolCallStart whose toolCallId is in the active turn, or a
// chat/turnStarted whose turnId is the active or a completed turn. Applied
// again, the first would add a second entry for one call and the second
// would wipe the running turn; a host re-sending them under a new
// serverSeq means the same call and turn, so the mirror ignores them. (The
// official reducer fixtures never start a known id twice, so the reducers
// stay as they are.)
func replayedStart(kind reduce.Kind, st, action map[string]any) (string, bool) {
	if kind != reduce.Chat {
		return "", false
	}
	turn, _ := st["activeTurn"].(map[string]any)
	switch action["type"] {
	case "chat/toolCallStart":
		id, _ := action["toolCallId"].(string)
		if turn == nil || turn["id"] != action["turnId"] || id == "" {
			return "", false
		}
		parts, _ := turn["responseParts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			tc, _ := pm["toolCall"].(map[string]any)
			if pm["kind"] == "toolCall" && tc["toolCallId"] == id {
				return "toolCall " + id, true
			}
		}
	case "chat/turnStarted":
		id, _ := action["turnId"].(string)
		if id == "" {
			return "", false
		}
		if turn != nil && turn["id"] == id {
			return "turn " + id, true
		}
		turns, _ := st["turns"].([]any)
		for _, t := range turns {
			if tm, _ := t.(map[string]any); tm["id"] == id {
				return "turn " + id, true
			}
		}
	}
	return "", false
}

// apply runs the reducer; a reducer bug must not kill the connection.
func (c *Client) apply(kind reduce.Kind, st, action map[string]any) (out map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ahp: reducer panic; action skipped", "type", action["type"], "panic", r)
			out = st
		}
	}()
	// The negotiated version picks the reducers (1.x from 0.9.0 on). A
	// resumed reconnect keeps the version of the initialize it resumes.
	out = reduce.ApplyWith(kind, st, action, reduce.Options{Now: c.now, Dialect: c.protocolVersion})
	if out == nil {
		out = st
	}
	return out
}

// observeEnablementLocked learns the host's enablement shape from a
// session's confirmed customizations (host-reported state, not our own
// optimistic actions), and only from what the host authored: an entry this
// client published comes back as we sent it — a 0.8.0 host stores a
// customization as sent, extra `enablement` key included — so reading it
// would only teach us our own shape (issue 15). The children the host
// discovered inside our plugins are its own and do count. The shape only grows — unknown, boolean, scoped — so
// one session without plugins, or a later boolean-only entry, cannot undo
// what another showed. 1.x dialects fix the shape, so nothing is read then.
func (c *Client) observeEnablementLocked(ch *channelState) {
	if ch.kind != reduce.Session || c.dialect == nil || c.observed == wire.EnablementScoped ||
		c.dialect.Enablement() == wire.EnablementScoped {
		return
	}
	list, _ := ch.confirmed["customizations"].([]any)
	if len(list) == 0 || sameList(list, ch.seenCustomizations) {
		return
	}
	// Reducers copy what they change, so an unchanged backing array means
	// an unchanged list: skip the decode for the many session actions that
	// do not touch customizations.
	ch.seenCustomizations = list
	shape := wire.DetectEnablement(hostAuthored(decodeCustomizations(list), c.clientID))
	if shape > c.observed {
		before := c.dialectLocked()
		c.observed = shape
		c.log.Info("ahp: learnt the host's enablement shape", "shape", shape.String(), "version", c.protocolVersion)
		c.emitDialectChangeLocked(before)
	}
}

// emitDialectChangeLocked reports a change of Dialect() since before.
func (c *Client) emitDialectChangeLocked(before wire.Dialect) {
	after := c.dialectLocked()
	if after == nil || (before != nil && before.Version() == after.Version() && before.Enablement() == after.Enablement()) {
		return
	}
	c.emitLocked(Event{Kind: EventDialectChanged, Reason: after.Version() + " " + after.Enablement().String()})
}

func sameList(a, b []any) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// hostAuthored drops the entries this client published, keeping their
// host-discovered children in their place.
func hostAuthored(list []wire.Customization, clientID string) []wire.Customization {
	out := make([]wire.Customization, 0, len(list))
	for _, c := range list {
		if c.ClientID != "" && c.ClientID == clientID {
			out = append(out, hostAuthored(c.Children, clientID)...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// decodeCustomizations reads the generic list into wire's read view,
// skipping entries that do not decode (one odd entry must not hide the
// shape of the others).
func decodeCustomizations(list []any) []wire.Customization {
	b, err := json.Marshal(list)
	if err != nil {
		return nil
	}
	var out []wire.Customization
	if json.Unmarshal(b, &out) == nil {
		return out
	}
	var raws []json.RawMessage
	if json.Unmarshal(b, &raws) != nil {
		return nil
	}
	out = out[:0]
	for _, r := range raws {
		var cz wire.Customization
		if json.Unmarshal(r, &cz) == nil {
			out = append(out, cz)
		}
	}
	return out
}

// renderLocked recomputes confirmed + pending, emits the change and lets the
// join logic react to session state.
func (c *Client) renderLocked(ch *channelState, cause map[string]any) {
	r := ch.confirmed
	for _, p := range ch.pending {
		r = c.apply(ch.kind, r, p.Action)
	}
	ch.rendered = r
	c.emitLocked(Event{Kind: EventStateChanged, Channel: ch.uri, ChannelKind: ch.kind, State: r, Action: cause})
	if ch.kind == reduce.Session && ch.live {
		c.followChatsLocked(ch)
		c.evaluateJoinsLocked()
	}
}

func (c *Client) failPendingLocked(ch *channelState, err error) {
	for _, p := range ch.pending {
		p.resolve(err)
	}
	ch.pending = nil
}

// dropChannelLocked forgets a channel (and a session's chats).
func (c *Client) dropChannelLocked(uri, reason string, cause error) {
	ch := c.channels[uri]
	if ch == nil {
		return
	}
	delete(c.channels, uri)
	c.failPendingLocked(ch, ErrConnectionLost)
	c.emitLocked(Event{Kind: EventChannelDropped, Channel: uri, ChannelKind: ch.kind, Reason: reason, Err: cause})
	if ch.kind == reduce.Session {
		for curi, cch := range c.channels {
			if cch.session == uri {
				c.dropChannelLocked(curi, reason, cause)
			}
		}
		if c.joined[uri] {
			delete(c.joined, uri)
			c.emitLocked(Event{Kind: EventSessionLeft, Channel: uri, Reason: reason, Err: cause})
		}
		c.failed[uri] = true
		c.lostSessionLocked(uri)
	}
}

// ---- state access ----

// State is the rendered state of a followed channel (confirmed plus pending
// optimistic actions). Read-only: it shares structure with the mirror.
func (c *Client) State(uri string) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.channels[uri]
	if ch == nil || !ch.live {
		return nil, false
	}
	return ch.rendered, true
}

// Confirmed is the host-confirmed state of a followed channel (read-only).
func (c *Client) Confirmed(uri string) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.channels[uri]
	if ch == nil || !ch.live {
		return nil, false
	}
	return ch.confirmed, true
}

// Pending counts actions awaiting their echo on a channel.
func (c *Client) Pending(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch := c.channels[uri]; ch != nil {
		return len(ch.pending)
	}
	return 0
}

// Channels lists followed channels with a snapshot, sorted.
func (c *Client) Channels() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.liveURIsLocked()
}

// Sessions returns the host's session summaries (listSessions kept current
// by root notifications). Read-only.
func (c *Client) Sessions() map[string]map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]map[string]any, len(c.summaries))
	for k, v := range c.summaries {
		out[k] = v
	}
	return out
}

// ---- dispatch ----

// Dispatch sends an action (any value marshalling to an AHP action object)
// on a channel with the next clientSeq. On a followed channel it is applied
// optimistically and reconciled when the host echoes it; the returned
// handle reports the outcome. On other channels there is no echo to wait
// for (§3): the handle is already done. While disconnected it fails with
// ErrNotConnected (actions are not queued across outages).
func (c *Client) Dispatch(channel string, action any) (*Dispatched, error) {
	m, err := toObject(action)
	if err != nil {
		return nil, err
	}
	if _, ok := m["type"].(string); !ok {
		return nil, errors.New("ahpclient: action has no string type")
	}
	c.mu.Lock()
	if c.conn == nil {
		c.mu.Unlock()
		return nil, ErrNotConnected
	}
	d := c.dispatchLocked(channel, m)
	c.unlock()
	return d, nil
}

func (c *Client) dispatchLocked(channel string, action map[string]any) *Dispatched {
	action = c.outgoingLocked(action)
	d := &Dispatched{Channel: channel, ClientSeq: clientSeq.Add(1), Action: action, sent: time.Now(), done: make(chan struct{})}
	ch := c.channels[channel]
	if ch != nil && ch.live {
		ch.pending = append(ch.pending, d)
		c.renderLocked(ch, action)
	} else {
		d.resolve(nil)
	}
	conn := c.conn
	if conn == nil {
		d.resolve(ErrNotConnected)
		return d
	}
	params := map[string]any{"channel": channel, "clientSeq": d.ClientSeq, "action": action}
	c.later(func() {
		if err := conn.Notify(conn.ctx, wire.MethodDispatchAction, params); err != nil {
			c.log.Warn("ahp: dispatch not sent", "channel", channel, "err", err)
		}
	})
	return d
}

// SetActiveClient sets the SessionActiveClient entry this client asserts in
// every joined session (tools, customizations; clientId is filled in). It
// is dispatched as session/activeClientSet now, on every join, and after a
// reconnect whenever the session's entry differs from it. nil stops
// asserting (the entry is not removed).
func (c *Client) SetActiveClient(entry any) error {
	var m map[string]any
	if entry != nil {
		var err error
		if m, err = toObject(entry); err != nil {
			return err
		}
		m["clientId"] = c.clientID
		if _, ok := m["tools"]; !ok {
			m["tools"] = []any{}
		}
	}
	c.mu.Lock()
	c.activeClient = m
	if c.conn != nil {
		for s := range c.joined {
			c.assertActiveClientLocked(s)
		}
	}
	c.unlock()
	return nil
}

func (c *Client) assertActiveClientLocked(session string) {
	ch := c.channels[session]
	if c.activeClient == nil || ch == nil || !ch.live || c.conn == nil {
		return
	}
	action := c.outgoingLocked(map[string]any{"type": "session/activeClientSet", "activeClient": c.activeClient})
	if l, ok := ch.rendered["activeClients"].([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && m["clientId"] == c.clientID && sameJSON(m, action["activeClient"]) {
				return
			}
		}
	}
	c.dispatchLocked(session, action)
}

// outgoingLocked shapes an action for the negotiated version (fields the
// version's schema requires; wire.Dialect.Outgoing). Whatever enablement
// shape was learnt, a 0.x action always carries `enabled`.
func (c *Client) outgoingLocked(action map[string]any) map[string]any {
	if c.dialect == nil {
		return action
	}
	return c.dialect.Outgoing(action)
}
