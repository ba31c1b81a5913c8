// Package ahpclient is ahpls's Agent Host Protocol client: one JSON-RPC 2.0
// connection over WebSocket to an agent host (docs/ahp.md), kept alive across
// socket loss, mirroring the state of the channels it follows and joining the
// sessions that concern the workspace. It knows nothing of LSP.
//
// Where to start: New and Options in client.go, then Run. The pieces:
//
//   - rpc.go: the JSON-RPC engine (requests with deadlines, notifications,
//     reverse requests answered by Handle'd handlers, survival of bad frames).
//   - client.go: options, handshake (initialize offering
//     DefaultProtocolVersions; reconnect with lastSeenServerSeq, replay or
//     snapshot, fallback to a fresh initialize), backoff with jitter, ping
//     keep-alive, requests (Call, ListSessions, ResourceRead), inbound
//     notifications and reverse requests.
//   - mirror.go: per-channel confirmed state plus pending optimistic actions,
//     reconciliation on echo/rejection/timeout (Dispatch), active-client
//     assertion (SetActiveClient), state access (State, Confirmed).
//   - join.go: session joining (explicit and Auto by working directories,
//     file: URI normalisation and coverage), chat following, Subscribe.
//   - events.go: ordered delivery to OnEvent listeners.
//   - clientid.go: the per-workspace stable clientId.
//
// Reducers come from package ahpclient/reduce; states and actions are
// generic JSON values (map[string]any with json.Number) shared with the
// mirror, so callers must treat them as read-only.
package ahpclient
