// Package server is the LSP room: the language server `ahpls` runs over
// stdio. It owns the connection wiring (our own Content-Length stream and
// codec on go.lsp.dev/jsonrpc2, ordered dispatch, a guard that keeps handler
// errors and panics from closing the connection), the document store, the
// one funnel every file change goes through (funnel.go: debounce, cancel,
// bounded workers, stale-result drop, publish-on-change), the workspace scan
// and watchers (workspace.go), settings (settings.go), and the editing help
// built on the rules: quick fixes, hover and completion (features.go).
//
// Start at Server.Serve (server.go), then lspServer in lsp.go for the
// handlers. Rules live in package diagnostics; this package only dispatches
// and converts byte spans to positions in the negotiated encoding.
package server
