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
//     assertion (SetActiveClient), state access (State, Confirmed), and
//     learning the host's enablement shape from session state.
//
// Protocol versions (docs/ahp.md §2.1, §4.7, §9). ahpls offers every
// version package wire speaks, 1.0.0 and 0.9.0 first, and accepts the
// host's choice: Dialect returns the wire.Dialect for it (refined, on a 0.x
// host, by the enablement shape its state shows) and the mirror reduces with
// that version's reducers. A host that speaks none of the offer answers
// -32005; Run then returns an *UnsupportedVersionError whose message names
// both lists, and never reconnects.
//   - join.go: session joining (explicit and Auto by working directories,
//     file: URI normalisation and coverage), chat following, Subscribe.
//   - events.go: ordered delivery to OnEvent listeners.
//   - clientid.go: the per-workspace stable clientId.
//
// Reducers come from package ahpclient/reduce; states and actions are
// generic JSON values (map[string]any with json.Number) shared with the
// mirror, so callers must treat them as read-only.
package ahpclient
