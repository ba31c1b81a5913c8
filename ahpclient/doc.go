// Package ahpclient is ahpls's Agent Host Protocol client: one JSON-RPC 2.0
// connection over WebSocket to an agent host (docs/ahp.md), kept alive across
// socket loss, mirroring the state of the channels it follows and joining the
// sessions that concern the workspace. It knows nothing of LSP.
//
// Where to start: New and Options in client.go, then Run. A Client is four
// parts, one job and one lock each (see Client):
//
//   - rpc.go: the JSON-RPC engine (requests with deadlines, notifications,
//     reverse requests answered by Handle'd handlers, survival of bad frames).
//   - conn.go, requests.go, inbound.go: the connection — handshake
//     (initialize offering DefaultProtocolVersions; reconnect with one
//     cursor per channel on 1.1, the connection-wide lastSeenServerSeq when
//     the host refuses that or negotiated less; per-channel replay, snapshot
//     or missing; fallback to a fresh initialize),
//     backoff with jitter, ping keep-alive, requests (Call, ListSessions,
//     ResourceRead), host requests under the request budget (hostRequests),
//     and the one table that routes host notifications (notifyRoutes).
//   - mirror.go: per-channel confirmed state plus pending optimistic
//     actions, reconciliation on echo and rejection, state access (State,
//     Confirmed), learning the host's enablement shape, the host's _meta
//     (HostMeta: build, read-only role).
//   - dispatch.go: this client's own actions (Dispatch): the next clientSeq,
//     applied optimistically, written in clientSeq order, rolled back when
//     never echoed; a read-only client never publishes or toggles
//     (ErrReadOnly).
//   - negotiated.go: the negotiated version and its wire.Dialect.
//   - sessions.go: the host's session list, typed (wire.SessionSummary).
//   - join.go: session joining (explicit and Auto by working directories,
//     file: URI normalisation and coverage), chat following, Subscribe,
//     the active-client assertion (SetActiveClient).
//   - events.go: ordered delivery to OnEvent listeners.
//   - clientid.go: the per-workspace stable clientId.
//
// Protocol versions (docs/ahp.md §2.1, §4.7, §9). ahpls offers every
// version package wire speaks, 1.1.0, 1.0.0, 0.10.0 and 0.9.0 first (a 1.0
// host takes 1.1.0: caret-compatible with its ^1.0.0), and accepts the
// host's choice: Dialect returns the wire.Dialect for it (refined, on a 0.x
// host, by the enablement shape its state shows) and the mirror reduces with
// that version's reducers. A host that speaks none of the offer answers
// -32005; Run then returns an *UnsupportedVersionError whose message names
// both lists, and never reconnects.
//
// Lock order. A goroutine takes at most these, in this order:
//
//  1. joiner.mu (the outermost).
//  2. mirror.mu. It guards the channels, their pending lists included: the
//     dispatcher takes it to dispatch and to roll back, the joiner (after
//     its own) to follow and drop channels.
//  3. One leaf: connection.mu, negotiated.mu, sessionList.mu,
//     hostRequests.handlersMu, joiner.inboxMu, outbox.mu, eventQueue.mu
//     (which may take a sink's mu under it) or the rpcConn's locks.
//
// outbox.writeMu is taken with no lock held (the outbox is flushed after
// mirror.mu is released); under it, outbox.mu and the rpcConn's write locks.
// No lock is held while a frame is written (sends are queued in a deferred
// list and run after unlock) nor while a listener runs (events go through
// the queue's own goroutine).
//
// Reducers come from package ahpclient/reduce; states and actions are
// generic JSON values (map[string]any with json.Number) shared with the
// mirror, so callers must treat them as read-only.
package ahpclient
