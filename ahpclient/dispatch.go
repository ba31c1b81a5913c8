package ahpclient

// This client's own actions: write-ahead dispatch (docs/ahp.md §3), the
// order they leave in, and giving up on the ones never echoed.

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// dispatcher sends this client's actions. Each gets the next clientSeq, goes
// on its channel's pending list and into the rendered state (the mirror's,
// under mirror.mu: the mirror takes it off again when the host echoes or
// rejects it), and is written through the outbox in clientSeq order. It
// refuses what a read-only client must not send, asserts the active-client
// entry, and rolls back actions never echoed within pendingTimeout.
//
// It has no lock of its own besides the outbox's: the pending lists are
// channel state, guarded by mirror.mu like the rest of it.
type dispatcher struct {
	log            *slog.Logger
	clientID       string
	pendingTimeout time.Duration
	conn           *connection // live() only: a leaf
	n              *negotiated // outgoing(): a leaf
	m              *mirror     // its channels, under m.mu

	out outbox // dispatches in clientSeq order; filled under mirror.mu, written after it
}

// outbox keeps dispatched actions in the order their clientSeq was given
// (under mirror.mu) while the frames are written without that lock. Sent
// out of order, the host echoes our actions out of order, and each echo
// that is not the oldest pending one costs a replay of every pending
// action (issue 28).
type outbox struct {
	mu      sync.Mutex // a leaf
	items   []func()   // guarded by mu
	writeMu sync.Mutex // one writer at a time, so items leave in order
}

func (o *outbox) add(f func()) {
	o.mu.Lock()
	o.items = append(o.items, f)
	o.mu.Unlock()
}

// flush writes every queued item; when it returns, all items added before
// the call have been written (by this caller or another).
func (o *outbox) flush() {
	o.writeMu.Lock()
	defer o.writeMu.Unlock()
	for {
		o.mu.Lock()
		items := o.items
		o.items = nil
		o.mu.Unlock()
		if len(items) == 0 {
			return
		}
		for _, f := range items {
			f()
		}
	}
}

// publishes reports the actions a read-only client must not send: its
// active-client entry and toggles.
func publishes(actionType string) bool {
	return actionType == wire.TypeActiveClientSet || actionType == wire.TypeCustomizationToggled
}

// Dispatch sends an action (any value marshalling to an AHP action object)
// on a channel with the next clientSeq. On a followed channel it is applied
// optimistically and reconciled when the host echoes it; the returned
// handle reports the outcome. On other channels there is no echo to wait
// for (§3): the handle is already done. While disconnected it fails with
// ErrNotConnected (actions are not queued across outages).
func (c *dispatcher) Dispatch(channel string, action any) (*Dispatched, error) {
	m, err := toObject(action)
	if err != nil {
		return nil, err
	}
	t, ok := m["type"].(string)
	if !ok {
		return nil, errors.New("ahpclient: action has no string type")
	}
	var out deferred
	defer func() { out.run() }()
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if publishes(t) && c.m.hostMetaLocked().ReadOnly {
		return nil, ErrReadOnly
	}
	conn := c.conn.live()
	if conn == nil {
		return nil, ErrNotConnected
	}
	return c.dispatchLocked(conn, channel, m, &out), nil
}

func (c *dispatcher) dispatchLocked(conn *rpcConn, channel string, action map[string]any, out *deferred) *Dispatched {
	action = c.n.outgoing(action)
	d := &Dispatched{Channel: channel, ClientSeq: clientSeq.Add(1), Action: action, sent: time.Now(), done: make(chan struct{})}
	ch := c.m.st.channels[channel]
	if ch != nil && ch.live {
		ch.pending = append(ch.pending, d)
		// A new action goes last: apply it to what is rendered rather
		// than replaying every pending action again.
		c.m.emitLocked(ch, c.m.apply(ch.kind, ch.rendered, action), action)
	} else {
		d.resolve(nil)
	}
	params := map[string]any{"channel": channel, "clientSeq": d.ClientSeq, "action": action}
	c.out.add(func() {
		if err := conn.Notify(conn.ctx, wire.MethodDispatchAction, params); err != nil {
			c.log.Warn("ahp: dispatch not sent", "channel", channel, "err", err)
		}
	})
	out.add(c.out.flush)
	return d
}

// assertActiveClient dispatches session/activeClientSet with entry in a
// live session unless the session already shows exactly that entry.
func (c *dispatcher) assertActiveClient(conn *rpcConn, session string, entry map[string]any, out *deferred) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	ch := c.m.st.channels[session]
	if entry == nil || ch == nil || !ch.live || c.m.hostMetaLocked().ReadOnly {
		return
	}
	action := c.n.outgoing(map[string]any{"type": wire.TypeActiveClientSet, "activeClient": entry})
	if l, ok := ch.rendered["activeClients"].([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && m["clientId"] == c.clientID && sameJSON(m, action["activeClient"]) {
				return
			}
		}
	}
	c.dispatchLocked(conn, session, action, out)
}

// sweep gives up on actions never echoed within pendingTimeout, until stop.
func (c *dispatcher) sweep(stop <-chan struct{}) {
	tick := c.pendingTimeout / 5
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		c.expire(time.Now())
	}
}

func (c *dispatcher) expire(now time.Time) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	for _, ch := range c.m.st.channels {
		kept := ch.pending[:0:0]
		var expired []*Dispatched
		for _, p := range ch.pending {
			if now.Sub(p.sent) >= c.pendingTimeout {
				expired = append(expired, p)
			} else {
				kept = append(kept, p)
			}
		}
		if len(expired) == 0 {
			continue
		}
		ch.pending = kept
		for _, p := range expired {
			c.log.Warn("ahp: action never echoed; rolled back", "channel", ch.uri, "clientSeq", p.ClientSeq)
			p.resolve(ErrActionTimeout)
			c.m.q.push(Event{Kind: EventActionTimedOut, Channel: ch.uri, ChannelKind: ch.kind, ClientSeq: p.ClientSeq, Action: p.Action})
		}
		c.m.renderLocked(ch, nil)
	}
}
