package ahpclient

// The connection part of Client: dial, handshake (initialize or reconnect),
// keepalive, and what a new or resumed connection re-establishes. It owns
// c.conn, c.ready and the negotiated version under c.mu.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// Run connects and keeps the connection alive until ctx ends, Close is
// called, or the host refuses the handshake (an *UnsupportedVersionError or
// *InitializeError, returned without retrying).
func (c *Client) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	attempt := 0
	for {
		handshook, err := c.connectOnce(ctx)
		var uv *UnsupportedVersionError
		var ie *InitializeError
		if errors.As(err, &uv) || errors.As(err, &ie) {
			c.log.Error("ahp: handshake refused; not reconnecting", "err", err)
			return err
		}
		if ctx.Err() != nil {
			select {
			case <-c.stop:
				return ErrClosed
			default:
				return ctx.Err()
			}
		}
		if handshook {
			attempt = 0
		}
		d := c.opts.Backoff.Delay(attempt, rand.Float64)
		attempt++
		c.log.Info("ahp: disconnected; reconnecting", "err", err, "in", d)
		// Listeners (the editor's status) hear why and for how long: a
		// host that never answers otherwise looks like "connecting" for ever.
		c.q.push(Event{Kind: EventRetrying, RetryIn: d, Err: err})
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
}

func (c *Client) connectOnce(ctx context.Context) (handshook bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	ws, _, err := websocket.Dial(dctx, c.opts.URL, &websocket.DialOptions{HTTPHeader: c.opts.Header})
	cancel()
	if err != nil {
		return false, fmt.Errorf("ahpclient: dial: %w", err)
	}
	ws.SetReadLimit(c.opts.ReadLimit)
	conn := newRPCConn(ctx, ws, c.log, c.opts.Trace, c.opts.WriteBudget)
	conn.writeTimeout = c.opts.WriteTimeout
	conn.onNotify = func(m string, p json.RawMessage) { c.onNotify(conn, m, p) }
	conn.onRequest = func(id json.RawMessage, m string, p json.RawMessage) { c.onRequest(conn, id, m, p) }
	conn.onBadFrame = func(err error) {
		c.mu.Lock()
		c.emitLocked(Event{Kind: EventBadFrame, Err: err})
		c.mu.Unlock()
	}
	readErr := make(chan error, 1)
	go func() { readErr <- conn.readLoop(ctx) }()

	if err := c.handshake(ctx, conn); err != nil {
		conn.Close(websocket.StatusNormalClosure, "handshake failed")
		ws.CloseNow()
		<-readErr
		return false, err
	}
	go c.keepAlive(conn)
	go c.afterHandshake(conn)

	err = <-readErr
	// The read loop ended (host gone, read error, ping timeout): release
	// the socket now, whatever closed it from the other side (issue 16).
	ws.CloseNow()
	c.mu.Lock()
	if c.conn == conn {
		c.conn = nil
		c.ready = make(chan struct{})
	}
	c.emitLocked(Event{Kind: EventDisconnected, Err: err})
	c.unlock()
	return true, err
}

func (c *Client) handshake(ctx context.Context, conn *rpcConn) error {
	c.mu.Lock()
	resume := c.everConnected
	var subs []string
	if resume {
		subs = c.liveURIsLocked()
	}
	seq := c.serverSeq
	c.mu.Unlock()

	hctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	if resume {
		params := map[string]any{"channel": RootURI, "clientId": c.clientID, "lastSeenServerSeq": seq, "subscriptions": subs}
		_, err := conn.Call(hctx, wire.MethodReconnect, params, func(res json.RawMessage, err error) {
			if err == nil {
				c.onReconnected(conn, res)
			}
		})
		if err == nil {
			c.setConnected(conn, true)
			return nil
		}
		var re *RPCError
		if !errors.As(err, &re) {
			return err
		}
		c.log.Info("ahp: reconnect refused; initializing afresh", "err", err)
	}
	params := map[string]any{
		"channel":              RootURI,
		"protocolVersions":     c.opts.ProtocolVersions,
		"clientId":             c.clientID,
		"clientInfo":           c.opts.ClientInfo,
		"initialSubscriptions": []string{RootURI},
		"capabilities":         map[string]any{},
	}
	if c.opts.Locale != "" {
		params["locale"] = c.opts.Locale
	}
	// The hook runs on the read loop before any later frame is handled, so
	// the dialect is chosen before the first action is reduced.
	var selErr error
	_, err := conn.Call(hctx, wire.MethodInitialize, params, func(res json.RawMessage, err error) {
		if err == nil {
			selErr = c.onInitialized(conn, res)
		}
	})
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) {
			if re.Code == CodeUnsupportedProtocolVersion {
				return newRefusal(c.opts.ProtocolVersions, re)
			}
			return &InitializeError{Err: re}
		}
		return err
	}
	if selErr != nil {
		return selErr
	}
	c.setConnected(conn, false)
	return nil
}

func (c *Client) setConnected(conn *rpcConn, resumed bool) {
	c.mu.Lock()
	c.conn = conn
	c.everConnected = true
	close(c.ready)
	c.emitLocked(Event{Kind: EventConnected, Resumed: resumed})
	c.unlock()
}

// liveURIsLocked: every channel with a snapshot, root first (reconnect's
// subscription list must name root, every session and every chat).
func (c *Client) liveURIsLocked() []string {
	out := []string{RootURI}
	for uri, ch := range c.channels {
		if ch.live && uri != RootURI {
			out = append(out, uri)
		}
	}
	sort.Strings(out[1:])
	return out
}

// onInitialized accepts the host's protocolVersion and installs the
// snapshots. A version ahpls does not speak (a host that ignored the offer)
// installs nothing and fails the handshake for good.
func (c *Client) onInitialized(conn *rpcConn, res json.RawMessage) error {
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
		return &UnsupportedVersionError{
			Offered: append([]string(nil), c.opts.ProtocolVersions...),
			Chosen:  r.ProtocolVersion,
			chose:   true,
		}
	}
	c.mu.Lock()
	before := c.dialectLocked()
	c.protocolVersion = r.ProtocolVersion
	// A fresh initialize may reach another host build: learn its
	// enablement shape again from the snapshots that follow.
	c.dialect, c.observed = d, wire.EnablementUnknown
	c.emitDialectChangeLocked(before)
	c.initResult = res
	if r.ServerSeq > c.serverSeq {
		c.serverSeq = r.ServerSeq
	}
	// A fresh initialize resumes nothing: every followed channel must be
	// subscribed again (afterHandshake does it) and pending work is lost.
	for _, ch := range c.channels {
		ch.live = false
		ch.buffer = nil
		ch.seenCustomizations = nil
		c.failPendingLocked(ch, ErrConnectionLost)
	}
	root := c.ensureChannelLocked(RootURI, reduce.Root, "")
	root.live, root.confirmed, root.fromSeq = true, map[string]any{}, r.ServerSeq
	for _, s := range r.Snapshots {
		c.installSnapshotLocked(s)
	}
	c.renderLocked(root, nil)
	c.unlock()
	return nil
}

func (c *Client) onReconnected(conn *rpcConn, res json.RawMessage) {
	var r struct {
		Type      string            `json:"type"`
		Actions   []*actionEnvelope `json:"actions"`
		Missing   []string          `json:"missing"`
		Snapshots []snapshot        `json:"snapshots"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		c.log.Warn("ahp: bad reconnect result", "err", err)
	}
	c.mu.Lock()
	switch r.Type {
	case "snapshot":
		seen := map[string]bool{}
		for _, s := range r.Snapshots {
			if ch := c.channels[s.Resource]; ch != nil && ch.live {
				seen[s.Resource] = true
				c.installSnapshotLocked(s)
			}
		}
		for uri, ch := range c.channels {
			if ch.live && !seen[uri] {
				r.Missing = append(r.Missing, uri)
			}
		}
	default: // "replay"
		for _, env := range r.Actions {
			c.applyEnvelopeLocked(env)
		}
	}
	for _, uri := range r.Missing {
		c.dropChannelLocked(uri, "missing", nil)
	}
	// §2.4: rebuild confirmed state and clear pending — dispatches that were
	// not replayed were lost with the socket.
	for _, ch := range c.channels {
		if len(ch.pending) > 0 {
			c.failPendingLocked(ch, ErrConnectionLost)
			c.renderLocked(ch, nil)
		} else if r.Type == "snapshot" && ch.live {
			c.renderLocked(ch, nil)
		}
	}
	c.unlock()
}

// afterHandshake re-subscribes channels that lost their state, refreshes the
// session list (root notifications are not replayed) and re-asserts the
// active-client entry.
func (c *Client) afterHandshake(conn *rpcConn) {
	c.mu.Lock()
	var resub []*channelState
	for _, ch := range c.channels {
		if !ch.live && ch.uri != RootURI {
			resub = append(resub, ch)
		}
	}
	c.mu.Unlock()
	for _, ch := range resub {
		go c.subscribeOn(conn, ch.uri, ch.kind)
	}
	if err := c.refreshSessions(conn); err != nil {
		c.log.Warn("ahp: listSessions failed", "err", err)
	}
	c.mu.Lock()
	for s := range c.joined {
		if ch := c.channels[s]; ch != nil && ch.live {
			c.followChatsLocked(ch)
		}
		c.assertActiveClientLocked(s)
	}
	c.unlock()
}

func (c *Client) keepAlive(conn *rpcConn) {
	if c.opts.PingInterval < 0 {
		return
	}
	tick := c.opts.PingInterval / 4
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-conn.done:
			return
		case <-t.C:
		}
		if conn.idle() < c.opts.PingInterval {
			continue
		}
		ctx, cancel := context.WithTimeout(conn.ctx, c.opts.PingTimeout)
		_, err := conn.Call(ctx, wire.MethodPing, map[string]any{"channel": RootURI}, nil)
		cancel()
		if err != nil && !errors.Is(err, ErrConnectionLost) {
			c.log.Warn("ahp: ping failed; dropping the socket", "err", err)
			conn.ws.CloseNow()
			return
		}
	}
}

// sweep gives up on actions never echoed within PendingTimeout.
func (c *Client) sweep() {
	tick := c.opts.PendingTimeout / 5
	if tick < 10*time.Millisecond {
		tick = 10 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		c.mu.Lock()
		for _, ch := range c.channels {
			kept := ch.pending[:0:0]
			var expired []*Dispatched
			for _, p := range ch.pending {
				if now.Sub(p.sent) >= c.opts.PendingTimeout {
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
				c.emitLocked(Event{Kind: EventActionTimedOut, Channel: ch.uri, ChannelKind: ch.kind, ClientSeq: p.ClientSeq, Action: p.Action})
			}
			c.renderLocked(ch, nil)
		}
		c.unlock()
	}
}
