package ahptest

import (
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpschema"
)

// Drop closes a client's socket abruptly (no close handshake), as a network
// failure would. The client keeps its slot for the grace period.
func (part Faults) Drop(clientID string) error {
	h := part.h
	h.mu.Lock()
	cr := h.clients[clientID]
	var c *hconn
	if cr != nil {
		c = cr.conn
	}
	h.mu.Unlock()
	if c == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	c.close()
	return nil
}

// SetFrameDelay delays every frame the host sends to that client from now on
// (0 restores immediate delivery); frames keep their order.
func (part Faults) SetFrameDelay(clientID string, d time.Duration) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	cr.conn.qmu.Lock()
	cr.conn.delay = d
	cr.conn.qmu.Unlock()
	return nil
}

// ForceReplayGap forgets the replay buffer, so every client that reconnects
// from a serverSeq seen so far gets a snapshot instead of a replay, as after
// an outage longer than the buffer.
func (part Faults) ForceReplayGap() {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.floor = h.serverSeq + 1
	h.replay = nil
}

// ForceSnapshot makes the next per-channel reconnect answer a snapshot for
// channel whatever its cursor (a one-shot, as after that channel's replay
// buffer overflowed), so one reconnect can mix replay, snapshot and missing.
func (part Faults) ForceSnapshot(channel string) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.forceSnapshot == nil {
		h.forceSnapshot = map[string]bool{}
	}
	h.forceSnapshot[channel] = true
}

// UnknownRecovery makes the next per-channel reconnect answer channel with
// a recovery kind no client knows (the kinds are an open enum).
func (part Faults) UnknownRecovery(channel string) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.unknownRecovery == nil {
		h.unknownRecovery = map[string]bool{}
	}
	h.unknownRecovery[channel] = true
}

// PerChannelReconnectOnly makes a 1.1 host refuse the connection-wide
// reconnect shape with -32602, as a host built from the per-channel spec
// commits would.
func (part Faults) PerChannelReconnectOnly(on bool) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.perChannelOnly = on
}

// ReconnectRecord is one accepted reconnect: the client, the shape it used
// and each channel's cursor (the connection-wide shape repeats its one
// lastSeenServerSeq for every channel).
type ReconnectRecord struct {
	ClientID   string
	PerChannel bool
	Cursors    map[string]int64
}

// Reconnects returns every accepted reconnect, oldest first.
func (part Recorder) Reconnects() []ReconnectRecord {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ReconnectRecord(nil), h.reconnects...)
}

// SendRaw sends a frame to a client without validation (garbage, binary or
// oversize frames, unknown methods or actions), in order with other frames.
func (part Faults) SendRaw(clientID string, binary bool, data []byte) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	typ := websocket.MessageText
	if binary {
		typ = websocket.MessageBinary
	} else if f, err := ahpschema.ParseFrame(data); err == nil && f.IsRequest() {
		// Pair the client's answer to this unvalidated request.
		cr.conn.pairing.Expect(ahpschema.HostToClient, *f.ID, f.Method)
	}
	cr.conn.enqueue(outFrame{data: data, typ: typ})
	return nil
}

// NextServerSeq reserves a serverSeq for a hand-made envelope sent with
// SendRaw (so the client's sequence tracking stays consistent).
func (part Recorder) NextServerSeq() int64 {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.serverSeq++
	return h.serverSeq
}

// SwallowActions makes the host silently drop a client's dispatchAction
// notifications (no echo ever arrives), or stop doing so.
func (part Faults) SwallowActions(clientID string, on bool) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	cr.conn.swallow = on
	return nil
}

// RefuseConnections makes the host answer new WebSocket upgrades with 503
// (a host that is down) until called with false. Established connections are
// not touched; combine with Drop for an outage of controlled length.
func (part Faults) RefuseConnections(on bool) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refuse = on
}

// RefuseReconnect makes the host answer reconnect with -32602 (as a host that
// lost its memory of the client would), so clients fall back to initialize.
func (part Faults) RefuseReconnect(on bool) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refuseReconnect = on
}

// EchoClientExtras makes the host echo a client's own plugin entries in
// session state as the client published them, extra keys included, on a
// 0.x connection: a 0.8.0 host stores a customization as sent, so a
// client that publishes `enabled` and `enablement` side by side sees its
// own `enablement` list come back (issue 15). Entries of other clients and
// host-discovered children keep the connection's shape.
func (part Faults) EchoClientExtras(clientID string, on bool) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	cr.conn.echoExtras = on
	return nil
}

// DuplicateMode is how the host re-sends action envelopes to a client.
type DuplicateMode int

const (
	// NoDuplicates sends each envelope once.
	NoDuplicates DuplicateMode = iota
	// DuplicateSameSeq sends each envelope twice with the same serverSeq,
	// as a host retrying a write it thought lost.
	DuplicateSameSeq
	// DuplicateNewSeq sends each envelope again with a fresh serverSeq, as
	// a host re-emitting an action it already applied (issue 15).
	DuplicateNewSeq
)

// DuplicateEnvelopes makes the host send every action envelope to that
// client twice (mode); host state is reduced once. The copy follows the
// next envelope sent to the client, as from a host retrying late: a
// re-sent chat/toolCallStart arrives after the call is running. (The last
// envelope's copy waits for one more.) NoDuplicates restores normal
// delivery.
func (part Faults) DuplicateEnvelopes(clientID string, mode DuplicateMode) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	cr.conn.dup = mode
	cr.conn.dupHeld = nil
	return nil
}

// StopReading makes the host stop reading that client's socket (on) or
// read again (off): the client's writes then fill the socket buffers and
// block, as against a host that is hung or hostile. Frames the host sends
// still go out.
func (part Faults) StopReading(clientID string, on bool) error {
	h := part.h
	h.mu.Lock()
	cr := h.clients[clientID]
	var c *hconn
	if cr != nil {
		c = cr.conn
	}
	h.mu.Unlock()
	if c == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	c.pauseMu.Lock()
	defer c.pauseMu.Unlock()
	switch {
	case on && c.resume == nil:
		c.resume = make(chan struct{})
	case !on && c.resume != nil:
		close(c.resume)
		c.resume = nil
	}
	return nil
}

// Flood sends n requests of one method to a connected client without
// waiting for any answer (a pipelining or hostile host); answers are
// validated and dropped.
func (part Faults) Flood(clientID, method string, params map[string]any, n int) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	cr := h.clients[clientID]
	if cr == nil || cr.conn == nil {
		return fmt.Errorf("ahptest: client %s is not connected", clientID)
	}
	c := cr.conn
	p := map[string]any{"channel": RootURI}
	for k, v := range params {
		p[k] = v
	}
	for range n {
		c.nextID++
		c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": p})
	}
	return nil
}
