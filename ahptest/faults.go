package ahptest

import (
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/ahpls-dev/ahpls/ahpschema"
)

// Drop closes a client's socket abruptly (no close handshake), as a network
// failure would. The client keeps its slot for the grace period.
func (h *Host) Drop(clientID string) error {
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
func (h *Host) SetFrameDelay(clientID string, d time.Duration) error {
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
func (h *Host) ForceReplayGap() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.floor = h.serverSeq + 1
	h.replay = nil
}

// SendRaw sends a frame to a client without validation (garbage, binary or
// oversize frames, unknown methods or actions), in order with other frames.
func (h *Host) SendRaw(clientID string, binary bool, data []byte) error {
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
func (h *Host) NextServerSeq() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.serverSeq++
	return h.serverSeq
}

// SwallowActions makes the host silently drop a client's dispatchAction
// notifications (no echo ever arrives), or stop doing so.
func (h *Host) SwallowActions(clientID string, on bool) error {
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
func (h *Host) RefuseConnections(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refuse = on
}

// RefuseReconnect makes the host answer reconnect with -32602 (as a host that
// lost its memory of the client would), so clients fall back to initialize.
func (h *Host) RefuseReconnect(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.refuseReconnect = on
}
