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
//     client-disabled server out), exclusion diagnostics, and each
//     folder's trust handed to the served set before every publication
//     (an untrusted folder keeps no superseded version carrying hooks or
//     MCP servers: virtualplugin/keep.go);
//   - serve.go: the host's reverse resource* requests (read-only; a
//     request naming a nonce in _meta["x-ahpls/nonce"] reads that kept
//     version);
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
// Parts: Link (link.go) runs the lifecycle and wires the parts, each with
// one job, its mutable state in one struct and the guard named at the
// field: folderSet (folders.go), publisher (publish.go), board (board.go),
// loadReporter (loaddiag.go), editorState (editorstate.go), toggler
// (toggle.go), resources (serve.go), hostView (hostview.go), and the small
// changeQueue, statusBox and shownSets (parts.go).
//
// Lock order (acquire left before right, never the reverse): first one of
// the serialisers folderSet.buildMu, publisher.pubMu, loadReporter.mu,
// editorState.mu; then board.shown.mu; then one of the state locks
// publisher.mu and board.mu; then ahpclient.Client's own locks and
// Editor.Text.
//
//   - The serialisers each serialise one kind of work (builds, entry
//     publications, host-diagnostic refreshes, editor-state refreshes) and
//     are held across it. They are never held together: republish runs
//     editorState.refresh only after publisher.publish released pubMu, and
//     clearAll takes loadReporter.mu alone.
//   - board.shown.mu serialises sends to the Editor and guards what each
//     file shows; board.publish takes it (under at most one serialiser) and
//     calls the Editor's PublishDiagnostics with it held but without
//     board.mu.
//   - publisher.mu guards the publication (pubState) and board.mu the
//     diagnostics (boardState). Both are held briefly and never together:
//     the publisher never calls the board, and the board never calls the
//     publisher. publisher.mu may call into ahpclient (Dialect, State) and
//     the enablement stores; board.mu calls nothing.
//   - Link.mu (the executor), changes.mu and status.mu (parts.go) are
//     leaves: never held with any other lock.
//   - Placing load reports (loadPlacer), wording hints (hintWriter),
//     reading the host (hostView), rows and toggles (toggler) and the
//     resource* answers (resources) work on snapshots and values and take
//     no lock of their own.
//   - ahpclient never calls back with its own lock held: events arrive on
//     its event goroutine (onEvent), reverse requests on its workers
//     (resources takes no link lock, only the virtualplugin.Server's own).
//   - Closing: clearAll closes the publisher first (no entry after it),
//     then, holding loadReporter.mu, the board (no diagnostic after it);
//     each refuses work once closed, checked under its own lock.
package hostlink
