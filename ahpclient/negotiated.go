package ahpclient

// The version seam of one client: the negotiated protocol version, its
// wire.Dialect, and the enablement shape learnt from the host's state.

import (
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// negotiated holds what the handshake agreed. Its lock is a leaf.
type negotiated struct {
	log *slog.Logger
	q   *eventQueue

	mu sync.Mutex
	st negotiation // guarded by mu; changed by negotiate and learn only
}

// negotiation is the version state.
type negotiation struct {
	protocolVersion string
	dialect         wire.Dialect         // from protocolVersion; nil before the first handshake
	observed        wire.EnablementShape // enablement shape seen in session state since initialize
	initResult      json.RawMessage
}

// ProtocolVersion is the negotiated dialect ("" before the first handshake).
func (n *negotiated) ProtocolVersion() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.st.protocolVersion
}

// Dialect is the version seam for the current connection: the dialect of
// the negotiated protocol version (wire.SelectDialect), refined by what the
// host's state shows. For a 0.x host the enablement shape is learnt from the
// customizations of the sessions this client follows (wire.DetectEnablement,
// docs/ahp.md §4.7): a 0.8.0 host that sends `enablement` lists is treated
// like a 1.x host for enablement (EnablementScoped), one that sends only
// `enabled` booleans as the 0.8.0 snapshot (EnablementBoolean), and while no
// plugin or MCP server has been seen the shape stays EnablementUnknown
// (publish both shapes). Once learnt the shape sticks until the next fresh
// initialize (a resumed reconnect keeps it); scoped wins over boolean, as
// any list means the host speaks lists. A 1.x dialect is always scoped.
// EventDialectChanged reports every change.
//
// It is nil before the first successful handshake. The value is immutable;
// call Dialect again after EventDialectChanged.
func (n *negotiated) Dialect() wire.Dialect {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dialectLocked()
}

func (n *negotiated) dialectLocked() wire.Dialect {
	if n.st.dialect == nil || n.st.observed == wire.EnablementUnknown {
		return n.st.dialect
	}
	return n.st.dialect.WithEnablement(n.st.observed)
}

// InitializeResult is the raw result of the last successful initialize.
func (n *negotiated) InitializeResult() json.RawMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.st.initResult
}

// negotiate installs a fresh initialize's version. It may reach another
// host build: the enablement shape is learnt again.
func (n *negotiated) negotiate(version string, d wire.Dialect, res json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	before := n.dialectLocked()
	n.st = negotiation{protocolVersion: version, dialect: d, observed: wire.EnablementUnknown, initResult: res}
	n.emitChangeLocked(before)
}

// learning reports whether the enablement shape is still to be learnt
// (a 0.x dialect that has not shown lists yet).
func (n *negotiated) learning() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.st.dialect != nil && n.st.observed != wire.EnablementScoped && n.st.dialect.Enablement() != wire.EnablementScoped
}

// learn grows the observed shape (unknown, boolean, scoped: it never
// shrinks, so one session without plugins cannot undo what another showed).
func (n *negotiated) learn(shape wire.EnablementShape) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if shape <= n.st.observed {
		return
	}
	before := n.dialectLocked()
	n.st.observed = shape
	n.log.Info("ahp: learnt the host's enablement shape", "shape", shape.String(), "version", n.st.protocolVersion)
	n.emitChangeLocked(before)
}

// emitChangeLocked reports a change of Dialect() since before.
func (n *negotiated) emitChangeLocked(before wire.Dialect) {
	after := n.dialectLocked()
	if after == nil || (before != nil && before.Version() == after.Version() && before.Enablement() == after.Enablement()) {
		return
	}
	n.q.push(Event{Kind: EventDialectChanged, Reason: after.Version() + " " + after.Enablement().String()})
}

// outgoing shapes an action for the negotiated version (fields the
// version's schema requires; wire.Dialect.Outgoing). Whatever enablement
// shape was learnt, a 0.x action always carries `enabled`.
func (n *negotiated) outgoing(action map[string]any) map[string]any {
	n.mu.Lock()
	d := n.st.dialect
	n.mu.Unlock()
	if d == nil {
		return action
	}
	return d.Outgoing(action)
}
