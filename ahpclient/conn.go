package ahpclient

// The connection: dial, handshake (initialize or reconnect), keepalive,
// and what a new or resumed connection re-establishes. Requests on it are
// in requests.go, host→client traffic in inbound.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// connection owns the socket to the host across reconnects.
type connection struct {
	opts     *Options
	log      *slog.Logger
	clientID string
	q        *eventQueue
	stop     chan struct{}
	m        *mirror
	j        *joiner
	sessions *sessionList

	reqs *hostRequests // the host's requests: queued to its workers

	mu sync.Mutex // a leaf: nothing is called with it held
	st connState  // guarded by mu
}

// connState is the connection's mutable state.
type connState struct {
	conn          *rpcConn      // nil while disconnected
	ready         chan struct{} // closed when conn is set
	everConnected bool          // a handshake succeeded once: the next is a reconnect
	// legacyReconnect: this host refused the per-channel reconnect once, so
	// later reconnects send the connection-wide shape straight away.
	legacyReconnect bool
	closed          bool
}

// Run connects and keeps the connection alive until ctx ends, Close is
// called, or the host refuses the handshake (an *UnsupportedVersionError or
// *InitializeError, returned without retrying).
func (c *connection) Run(ctx context.Context) error {
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

func (c *connection) connectOnce(ctx context.Context) (handshook bool, err error) {
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
	conn.onRequest = func(id json.RawMessage, m string, p json.RawMessage) { c.reqs.onRequest(conn, id, m, p) }
	conn.onBadFrame = func(err error) { c.q.push(Event{Kind: EventBadFrame, Err: err}) }
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
	c.setConn(conn, false, false)
	c.q.push(Event{Kind: EventDisconnected, Err: err})
	return true, err
}

// setConn is the one place connState changes: up installs conn after a
// handshake, !up clears it if it is still the current one.
func (c *connection) setConn(conn *rpcConn, up, resumed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case up:
		c.st.conn, c.st.everConnected = conn, true
		close(c.st.ready)
		c.q.push(Event{Kind: EventConnected, Resumed: resumed})
	case c.st.conn == conn:
		c.st.conn, c.st.ready = nil, make(chan struct{})
	}
}

func (c *connection) handshake(ctx context.Context, conn *rpcConn) error {
	c.mu.Lock()
	resume := c.st.everConnected
	c.mu.Unlock()
	hctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	if resume {
		err := c.resume(hctx, conn)
		if err == nil {
			c.setConn(conn, true, true)
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
			selErr = c.m.initialized(res, c.opts.ProtocolVersions)
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
	c.setConn(conn, true, false)
	return nil
}

// resume sends reconnect. The per-channel shape (wire.ReconnectParams) goes
// first when the negotiated version is 1.1 or later, since a 1.1 host may
// speak it; a host that refuses it with a JSON-RPC error is asked again in
// the connection-wide shape (1.0 and earlier, and 1.1 hosts built from the
// spec commits that kept that shape), which is also sent straight away
// below 1.1. Either answer is accepted (wire.DecodeReconnectResult). The
// version alone cannot pick the shape: a 1.0 host picks 1.1.0 from our
// offer, as 1.1.0 is caret-compatible with its ^1.0.0.
func (c *connection) resume(ctx context.Context, conn *rpcConn) error {
	cursors, seq := c.m.resumePoint()
	subs := make([]string, len(cursors))
	for i, cur := range cursors {
		subs[i] = cur.Channel
	}
	apply := func(res json.RawMessage, err error) {
		if err == nil {
			c.m.reconnected(res, subs)
		}
	}
	c.mu.Lock()
	legacy := c.st.legacyReconnect
	c.mu.Unlock()
	if !legacy && wire.SpeaksPerChannelReconnect(c.m.n.ProtocolVersion()) {
		params := wire.ReconnectParams{Channel: RootURI, ClientID: c.clientID, Subscriptions: cursors}
		_, err := conn.Call(ctx, wire.MethodReconnect, params, apply)
		var re *RPCError
		if err == nil || !errors.As(err, &re) {
			return err
		}
		c.log.Info("ahp: per-channel reconnect refused; trying the connection-wide shape", "err", err)
		c.mu.Lock()
		c.st.legacyReconnect = true
		c.mu.Unlock()
	}
	params := wire.LegacyReconnectParams{Channel: RootURI, ClientID: c.clientID, LastSeenServerSeq: seq, Subscriptions: subs}
	_, err := conn.Call(ctx, wire.MethodReconnect, params, apply)
	return err
}

// afterHandshake re-subscribes channels that lost their state, refreshes the
// session list (root notifications are not replayed) and re-asserts the
// active-client entry.
func (c *connection) afterHandshake(conn *rpcConn) {
	for _, ch := range c.m.notLive() {
		go c.j.subscribeOn(conn, ch.uri, ch.kind)
	}
	if err := c.refreshSessions(conn); err != nil {
		c.log.Warn("ahp: listSessions failed", "err", err)
	}
	c.j.reassert()
}

func (c *connection) keepAlive(conn *rpcConn) {
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

// current is the live connection.
func (c *connection) current() (*rpcConn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.closed {
		return nil, ErrClosed
	}
	if c.st.conn == nil {
		return nil, ErrNotConnected
	}
	return c.st.conn, nil
}

// live is the current connection or nil (closed or disconnected).
func (c *connection) live() *rpcConn {
	conn, _ := c.current()
	return conn
}

// Connected reports whether a handshake has completed on the current socket.
func (c *connection) Connected() bool { return c.live() != nil }

// WaitConnected blocks until a handshake completes or ctx ends.
func (c *connection) WaitConnected(ctx context.Context) error {
	c.mu.Lock()
	ready := c.st.ready
	c.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *connection) close() {
	c.mu.Lock()
	c.st.closed = true
	conn := c.st.conn
	c.mu.Unlock()
	if conn != nil {
		conn.Close(websocket.StatusNormalClosure, "client closing")
	}
}
