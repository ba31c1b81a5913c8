package ahpclient

// The state mirror: confirmed state per channel, pending optimistic
// actions on top, reconciliation on echo (docs/ahp.md §3), and the
// negotiated dialect the reducers and outgoing actions follow.

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// mirror is the state of every followed channel as the host reports it:
// snapshots and envelopes applied, our echoed actions reconciled, the
// handshake's and reconnect's recoveries installed, and the reads (State,
// Confirmed, HostMeta). This client's own actions are the dispatcher's; it
// puts them on a channel's pending list under mu.
type mirror struct {
	log      *slog.Logger
	clientID string
	now      reduce.Clock
	q        *eventQueue
	j        *joiner // its inbox only: a leaf

	n *negotiated // the version seam: a leaf

	mu sync.Mutex  // taken after joiner.mu, never before it
	st mirrorState // guarded by mu; so is every channelState in it
}

// mirrorState is the mirror's mutable state.
type mirrorState struct {
	serverSeq int64 // the highest seen, host-wide (§2.2)
	channels  map[string]*channelState
}

// ensureChannel follows uri (Subscribe) unless it is followed already.
func (c *mirror) ensureChannel(uri string, kind reduce.Kind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ensureChannelLocked(uri, kind, "")
}

// drop forgets a channel (dropChannelLocked).
func (c *mirror) drop(uri, reason string) (session bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropChannelLocked(uri, reason, nil)
}

func (c *mirror) ensureChannelLocked(uri string, kind reduce.Kind, session string) *channelState {
	ch := c.st.channels[uri]
	if ch == nil {
		ch = &channelState{uri: uri, kind: kind, session: session}
		c.st.channels[uri] = ch
	}
	return ch
}

func (c *mirror) installSnapshotLocked(s snapshot) {
	ch := c.st.channels[s.Resource]
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
	scrubState(st)
	ch.confirmed, ch.fromSeq, ch.applied, ch.live = st, s.FromSeq, s.FromSeq, true
	c.observeEnablementLocked(ch)
	if s.FromSeq > c.st.serverSeq {
		c.st.serverSeq = s.FromSeq
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
func (c *mirror) applyEnvelopeLocked(env *actionEnvelope) {
	if env.ServerSeq > c.st.serverSeq+1 && c.st.serverSeq > 0 {
		// serverSeq is host-wide, so a jump is a gap only if no channel
		// we do not follow took the numbers in between: debug only.
		c.log.Debug("ahp: serverSeq jumped", "from", c.st.serverSeq, "to", env.ServerSeq, "channel", env.Channel)
	}
	if env.ServerSeq > c.st.serverSeq {
		c.st.serverSeq = env.ServerSeq
	}
	ch := c.st.channels[env.Channel]
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
		c.q.push(Event{Kind: EventBadFrame, Channel: ch.uri, Err: errors.New("action is not an object")})
		return
	}
	action = scrubAction(action)
	if what, again := replayedStart(ch.kind, ch.confirmed, action); again && env.RejectionReason == nil {
		c.log.Warn("ahp: re-sent start ignored", "channel", ch.uri, "serverSeq", env.ServerSeq, "start", what)
		return
	}
	var mine *Dispatched
	var before []map[string]any // the pending actions sent before mine
	if env.Origin != nil && env.Origin.ClientID == c.clientID {
		for i, p := range ch.pending {
			if p.ClientSeq == env.Origin.ClientSeq {
				mine = p
				before = pendingActions(ch.pending[:i])
				ch.pending = append(ch.pending[:i:i], ch.pending[i+1:]...)
				break
			}
		}
	}
	if env.RejectionReason != nil {
		if env.Origin != nil && env.Origin.ClientID == c.clientID {
			c.log.Warn("ahp: host rejected our action", "channel", ch.uri, "clientSeq", env.Origin.ClientSeq, "reason", *env.RejectionReason)
			c.q.push(Event{Kind: EventActionRejected, Channel: ch.uri, ChannelKind: ch.kind, ClientSeq: env.Origin.ClientSeq, Action: action, Reason: *env.RejectionReason})
		}
		if mine != nil {
			mine.resolve(&RejectedError{Channel: ch.uri, ClientSeq: mine.ClientSeq, Reason: *env.RejectionReason})
			c.renderLocked(ch, action)
		}
		return // a rejected action is never applied
	}
	prev := ch.confirmed
	ch.confirmed = c.apply(ch.kind, ch.confirmed, action)
	c.observeEnablementLocked(ch)
	if mine != nil {
		mine.resolve(nil)
	}
	// Replaying every pending action on each envelope made n calls in
	// flight cost O(n) reductions of an O(n) chat per envelope (issue 28:
	// 1,000 concurrent tool calls). Two cases keep the rendered state
	// instead; reduce.Commutes says when that is exact.
	switch {
	case mine != nil && reflect.DeepEqual(action, mine.Action) && reduce.Commutes(ch.kind, prev, action, before):
		// The echo of our own action, as sent, independent of the ones
		// sent before it: confirmed plus the rest of pending is the state
		// already rendered (always so for the oldest pending action).
		c.emitLocked(ch, ch.rendered, action)
	case mine == nil && len(ch.pending) > 0 && reduce.Commutes(ch.kind, prev, action, pendingActions(ch.pending)):
		// A host action on another tool call than any pending action
		// touches: it may go on top of what is rendered.
		c.emitLocked(ch, c.apply(ch.kind, ch.rendered, action), action)
	default:
		c.renderLocked(ch, action)
	}
}

func pendingActions(ps []*Dispatched) []map[string]any {
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		out[i] = p.Action
	}
	return out
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
func (c *mirror) apply(kind reduce.Kind, st, action map[string]any) (out map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ahp: reducer panic; action skipped", "type", action["type"], "panic", r)
			out = st
		}
	}()
	// The negotiated version picks the reducers (1.x from 0.9.0 on). A
	// resumed reconnect keeps the version of the initialize it resumes.
	out = reduce.ApplyWith(kind, st, action, reduce.Options{Now: c.now, Dialect: c.n.ProtocolVersion()})
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
func (c *mirror) observeEnablementLocked(ch *channelState) {
	if ch.kind != reduce.Session || !c.n.learning() {
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
	c.n.learn(wire.DetectEnablement(hostAuthored(decodeCustomizations(list), c.clientID)))
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

// renderLocked recomputes confirmed + pending, emits the change and tells
// the joiner a live session's state changed (its chats and directories).
func (c *mirror) renderLocked(ch *channelState, cause map[string]any) {
	r := ch.confirmed
	for _, p := range ch.pending {
		r = c.apply(ch.kind, r, p.Action)
	}
	c.emitLocked(ch, r, cause)
}

// emitLocked sets the rendered state, emits the change and tells the
// joiner of a session's.
func (c *mirror) emitLocked(ch *channelState, r, cause map[string]any) {
	ch.rendered = r
	c.q.push(Event{Kind: EventStateChanged, Channel: ch.uri, ChannelKind: ch.kind, State: r, Action: cause})
	if ch.kind == reduce.Session && ch.live {
		c.j.note(joinNote{session: ch.uri})
	}
}

// dropChannelLocked forgets a channel (and a session's chats). It reports
// whether a session went: the caller tells the joiner (joiner.droppedLocked
// when it holds joiner.mu, else a note).
func (c *mirror) dropChannelLocked(uri, reason string, cause error) (session bool) {
	ch := c.st.channels[uri]
	if ch == nil {
		return false
	}
	delete(c.st.channels, uri)
	ch.failPending(ErrConnectionLost)
	c.q.push(Event{Kind: EventChannelDropped, Channel: uri, ChannelKind: ch.kind, Reason: reason, Err: cause})
	if ch.kind == reduce.Session {
		for curi, cch := range c.st.channels {
			if cch.session == uri {
				c.dropChannelLocked(curi, reason, cause)
			}
		}
		return true
	}
	return false
}

// ---- the host's _meta ----

// HostMeta is what the host's `_meta` says (wire.HostMeta): initialize's,
// refined by the root state's, which may change while connected.
func (c *mirror) HostMeta() wire.HostMeta {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hostMetaLocked()
}

func (c *mirror) hostMetaLocked() wire.HostMeta {
	var init struct {
		Meta map[string]any `json:"_meta"`
	}
	if raw := c.n.InitializeResult(); len(raw) > 0 {
		_ = json.Unmarshal(raw, &init) // a bad result has no _meta to read
	}
	h := wire.ReadHostMeta(init.Meta)
	if root := c.st.channels[RootURI]; root != nil {
		if m, ok := root.confirmed["_meta"].(map[string]any); ok {
			h = h.Over(wire.ReadHostMeta(m))
		}
	}
	return h
}

// ---- state access ----

// State is the rendered state of a followed channel (confirmed plus pending
// optimistic actions). Read-only: it shares structure with the mirror.
func (c *mirror) State(uri string) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.st.channels[uri]
	if ch == nil || !ch.live {
		return nil, false
	}
	return ch.rendered, true
}

// Confirmed is the host-confirmed state of a followed channel (read-only).
func (c *mirror) Confirmed(uri string) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.st.channels[uri]
	if ch == nil || !ch.live {
		return nil, false
	}
	return ch.confirmed, true
}

// Pending counts actions awaiting their echo on a channel.
func (c *mirror) Pending(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch := c.st.channels[uri]; ch != nil {
		return len(ch.pending)
	}
	return 0
}

// Channels lists followed channels with a snapshot, sorted.
func (c *mirror) Channels() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.liveURIsLocked()
}

// ---- the connection's side: handshake and resume ----

// ServerSeq is the highest serverSeq seen (host-wide, §2.2).
func (c *mirror) ServerSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.serverSeq
}

// resumePoint is what a reconnect names: every live channel, root first,
// with the serverSeq last applied to it (its own cursor, never another
// channel's), and the highest serverSeq seen (the connection-wide shape's
// lastSeenServerSeq).
func (c *mirror) resumePoint() ([]wire.ChannelReplayCursor, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	uris := c.liveURIsLocked()
	out := make([]wire.ChannelReplayCursor, 0, len(uris))
	for _, u := range uris {
		var seq int64
		if ch := c.st.channels[u]; ch != nil {
			seq = ch.applied
		}
		out = append(out, wire.ChannelReplayCursor{Channel: u, LastSeenServerSeq: seq})
	}
	return out, c.st.serverSeq
}

// liveURIsLocked: every channel with a snapshot, root first (reconnect's
// subscription list must name root, every session and every chat).
func (c *mirror) liveURIsLocked() []string {
	out := []string{RootURI}
	for uri, ch := range c.st.channels {
		if ch.live && uri != RootURI {
			out = append(out, uri)
		}
	}
	sort.Strings(out[1:])
	return out
}

// notLive lists the followed channels without a snapshot (root aside):
// the ones to subscribe again after a handshake.
func (c *mirror) notLive() []*channelState {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*channelState
	for _, ch := range c.st.channels {
		if !ch.live && ch.uri != RootURI {
			out = append(out, &channelState{uri: ch.uri, kind: ch.kind})
		}
	}
	return out
}

// initialized accepts the host's protocolVersion and installs the
// snapshots. A version ahpls does not speak (a host that ignored the offer)
// installs nothing and fails the handshake for good.
func (c *mirror) initialized(res json.RawMessage, offered []string) error {
	var r struct {
		ProtocolVersion string     `json:"protocolVersion"`
		ServerSeq       int64      `json:"serverSeq"`
		Snapshots       []snapshot `json:"snapshots"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		c.log.Warn("ahp: bad initialize result", "err", err)
	}
	d, err := wire.SelectDialect(r.ProtocolVersion)
	if err != nil {
		c.log.Error("ahp: unusable protocol version", "err", err)
		return &UnsupportedVersionError{Offered: append([]string(nil), offered...), Chosen: r.ProtocolVersion, chose: true}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n.negotiate(r.ProtocolVersion, d, res)
	if r.ServerSeq > c.st.serverSeq {
		c.st.serverSeq = r.ServerSeq
	}
	// A fresh initialize resumes nothing: every followed channel must be
	// subscribed again (afterHandshake does it) and pending work is lost.
	for _, ch := range c.st.channels {
		ch.live = false
		ch.buffer = nil
		ch.seenCustomizations = nil
		ch.failPending(ErrConnectionLost)
	}
	root := c.ensureChannelLocked(RootURI, reduce.Root, "")
	root.live, root.confirmed, root.fromSeq, root.applied = true, map[string]any{}, r.ServerSeq, r.ServerSeq
	for _, s := range r.Snapshots {
		c.installSnapshotLocked(s)
	}
	c.renderLocked(root, nil)
	return nil
}

// reconnected applies a reconnect's per-channel recoveries (either result
// shape, wire.DecodeReconnectResult): replay applies the channel's missed
// envelopes, snapshot replaces its state, missing drops it (the joiner
// rejoins a session still listed). A channel the host did not answer for,
// or answered with a kind this client does not know (an open enum), loses
// its state and is subscribed again by afterHandshake.
func (c *mirror) reconnected(res json.RawMessage, requested []string) {
	out, err := wire.DecodeReconnectResult(res, requested)
	if err != nil {
		c.log.Warn("ahp: bad reconnect result; resubscribing", "err", err)
		out = wire.ReconnectOutcome{Unanswered: requested}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n.setReconnectShape(out.PerChannel)
	resubscribe := append([]string(nil), out.Unanswered...)
	for _, r := range out.Channels {
		ch := c.st.channels[r.Channel]
		if ch == nil || !ch.live {
			continue
		}
		switch r.Kind {
		case wire.RecoveryReplay:
			for _, raw := range r.Actions {
				var env actionEnvelope
				if json.Unmarshal(raw, &env) != nil || env.Channel != r.Channel {
					continue // one channel's recovery carries only its own actions
				}
				c.applyEnvelopeLocked(&env)
			}
		case wire.RecoverySnapshot:
			c.installSnapshotLocked(snapshot{Resource: r.Snapshot.Resource, State: r.Snapshot.State, FromSeq: r.Snapshot.FromSeq})
		case wire.RecoveryMissing:
			if c.dropChannelLocked(r.Channel, "missing", nil) {
				c.j.note(joinNote{session: r.Channel, dropped: true, reason: "missing"})
			}
		default:
			c.log.Info("ahp: unknown reconnect recovery; resubscribing", "channel", r.Channel, "kind", r.Kind)
			resubscribe = append(resubscribe, r.Channel)
		}
	}
	for _, uri := range resubscribe {
		if ch := c.st.channels[uri]; ch != nil && uri != RootURI {
			ch.live, ch.buffer, ch.seenCustomizations = false, nil, nil
			ch.failPending(ErrConnectionLost)
		}
	}
	// §2.4: rebuild confirmed state and clear pending — dispatches that were
	// not replayed were lost with the socket.
	for _, ch := range c.st.channels {
		if len(ch.pending) > 0 {
			ch.failPending(ErrConnectionLost)
			c.renderLocked(ch, nil)
		}
	}
}

// onAction applies one action envelope from the host.
func (c *mirror) onAction(conn *rpcConn, params json.RawMessage) {
	var env actionEnvelope
	if err := json.Unmarshal(params, &env); err != nil || env.Channel == "" {
		conn.bad(fmt.Errorf("bad action envelope: %v", err))
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.applyEnvelopeLocked(&env)
}
