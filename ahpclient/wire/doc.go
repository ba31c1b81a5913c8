// Package wire holds the typed AHP wire structs for what ahpls sends and the
// fields it reads, plus the version seam (Dialect) through which every
// version-specific shape is encoded and decoded.
//
// Where to start: types.go (status bitset, tool definitions, plugins,
// customizations, tool-call read views), actions.go (the actions ahpls
// dispatches, ActionEnvelope, StateAction), jsonrpc.go (frames), dialect.go
// (the seam).
//
// Typed vs raw. Structs drop unknown keys on re-encode, which is right for
// what ahpls builds itself (docs/ahp.md §8.2, group B). Values ahpls only
// passes along or reads a few fields from keep their exact wire form:
// StateAction (any action, unknown variants included), Customization (a read
// view over the raw entry), ToolResultContent other than text, snapshot
// states. The state mirror itself works on generic JSON (package reduce).
//
// Nullable vs absent. Optional fields use pointers, omitempty, or omitzero
// for slices where `[]` and absent mean different things (children: [] =
// parsed and empty, absent = not parsed yet). A decoded JSON null becomes
// absent; ahpls never sends null.
//
// The version seam. Everything that differs between protocol versions goes
// through the Dialect interface: the offered version list, plugin enablement
// encoding (0.8.0 snapshot `enabled` vs the enablement lists), the
// customizationToggled payload, working directories (`workingDirectory`
// before 0.7.0), the lifecycle spelling (`creationFailed` vs 1.x `failed`) and
// the chat/error shape. Two implementations are registered in dialect.go,
// newest first: V1 (v1.go) for 1.x, 0.10.x and 0.9.x, V08 for 0.5.1 through
// 0.8.x. ProtocolVersions (the initialize offer, "1.1.0" … "0.5.1") and DialectFor
// read that registry.
//
// Negotiation (negotiate.go). ahpls offers ProtocolVersions() and accepts
// the host's initialize.protocolVersion with SelectDialect. A refusal
// (-32005) is turned into a user-facing message by UnsupportedVersionMessage
// and is final for that offer: never reconnect in a loop. Negotiate models
// the host's side (highest offered version caret-compatible with one it
// supports) for tests and the in-repo test host. A host announcing 0.8.0 may
// still send enablement lists: DetectEnablement on its state, then
// V08.WithEnablement, gives exactly V1's publication.
//
// AHP 1.1 (reconnect.go, meta.go, actions.go): both reconnect shapes
// (per-channel cursors and recoveries; connection-wide) decoded into
// per-channel recoveries, the host's _meta, chat/toolCallProgress.
//
// Verified vs inferred. docs/ahp.md §9 marks each 1.x change as verified
// (read in upstream sources) or inferred. Every inferred translation here
// carries a comment starting "inferred (ahp.md §9):".
package wire
