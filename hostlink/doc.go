// Package hostlink links the editor's workspace to one agent host: it is the
// only room that knows both the workspace model (virtual plugins, client
// tools, enablement decisions, diagnostics) and AHP (package ahpclient). It
// does not import server and knows nothing of LSP; the language server
// implements the small Editor interface and forwards every file change.
//
// Why it exists: publishing a workspace to a host is a loop with many
// inputs (file edits, open buffers, tool config, enablement toggles, the
// host's dialect and other clients' tools) and one output (the full
// SessionActiveClient entry), and the host's answers (load states, MCP
// server states) must come back as diagnostics on the files that caused
// them. Keeping both halves here keeps server a plain LSP server and
// ahpclient a plain protocol client.
//
// Where to start: New and Run (link.go). Then
//   - publish.go: the entry (tools + one ClientPluginCustomization per
//     virtual plugin, enablement through enablement.Publication), the served
//     trees (a filtered .mcp.json when the 0.8 dialect must leave a
//     client-disabled server out), exclusion diagnostics;
//   - serve.go: the host's reverse resource* requests (read-only);
//   - loaddiag.go: container `load` and MCP server `state` → diagnostics on
//     workspace files, one per failure however many sessions report it;
//   - toggle.go: enablement rows and toggle routing (local store vs host);
//   - editorstate.go: the effective state on the files themselves (a hint
//     on each customization that is off or awaits the host, with why) and
//     untrusted command tools marked on .ahpls/tools.json.
//
// Identity: one ahpclient.Client per Link, whose clientId is
// ahpclient.StableClientID(StateDir, sorted folder URIs): the same
// workspace gets the same id after a restart (so a reconnect within the
// host's grace period keeps the active-client slot, and the host's
// per-client state lines up), a different workspace a different id. Two
// editors open on the same folders at once would share it; the host then
// keeps the newer connection. A folder change means a new Link (the id
// changes with the folder set).
//
// Invariants: nothing is published before the enablement stores are loaded
// and the first scan is done (enablement C11); the entry is handed to
// ahpclient only when its JSON changed, and ahpclient re-asserts it on join
// and after reconnect; plugin ids and URIs never change with content, only
// nonces do.
//
// Lock order (acquire left before right, never the reverse): first one of
// folderSet.buildMu, pubMu, diagMu, es.mu; then shown.mu; then mu; then
// ahpclient.Client's own locks and Editor.Text.
//
//   - buildMu (folders.go), pubMu, diagMu and es.mu each serialise one kind
//     of work (builds, republishes, host-diagnostic refreshes, editor-state
//     refreshes). They are outermost and never held together: republish
//     runs refreshEditorState only after releasing pubMu.
//   - shown.mu (parts.go) serialises publications to the Editor and guards
//     what each file shows; it is taken by publishDiagnostics (and
//     clearAll), under any one serialiser, and the Editor's
//     PublishDiagnostics runs with it held but without mu.
//   - mu guards the publication and diagnostic state; it is held briefly
//     and may call into ahpclient (Dialect, State) and Editor.Text, never
//     the other Editor callbacks.
//   - changes.mu and status.mu (parts.go) are leaves: never held with any
//     other lock.
//   - Placing load reports (loadPlacer) and wording hints (hintWriter)
//     work on snapshots and values and take no lock.
//   - ahpclient never calls back with its own lock held: events arrive on
//     its event goroutine (onEvent takes mu), reverse requests on its
//     workers (serve.go takes no Link lock but the Server's own).
package hostlink
