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
// encoding (0.8.0 snapshot `enabled` vs the released enablement lists),
// the customizationToggled payload, working directories (`workingDirectory`
// before 0.7.0), the lifecycle spelling (`creationFailed` vs 1.x `failed`) and
// the chat/error shape. One implementation exists today, V08, covering 0.5.1
// through 0.8.0. To add AHP 1.0, write one new Dialect (say V10) in its own
// file and add it to the `dialects` registry in dialect.go, newest first:
// ProtocolVersions and DialectFor pick it up from there, and callers already
// hold a Dialect, so no call site changes.
package wire
