// Package server is the LSP room: the language server `ahpls` runs over
// stdio. Start at Server.Serve (server.go), then lspServer in lsp.go for the
// handlers. Rules live in package diagnostics; this package only dispatches
// and converts byte spans to positions in the negotiated encoding.
//
// Server keeps the session's lifecycle and the LSP wiring; every other job
// is a part embedded in it (parts.go says each part's job and its lock
// rules) whose methods are the Server's by promotion. The read-only
// features are plain functions over a small document value (docInfo,
// outline.go) or a file's last check (fileState).
//
// File map, by job:
//
//   - Lifecycle and wiring (Server): server.go (New, Serve, the guard
//     handler, $/cancelRequest, exit), stream.go (our Content-Length
//     stream), errors.go, lsp.go (lspServer: the protocol's requests and
//     notifications, initialize and the watcher registration),
//     capabilities.go, settings.go (the `ahpls` section), logging.go
//     (LogHandler, window/logMessage and $/logTrace), documents.go (the
//     open buffers), convert.go (findings to LSP diagnostics).
//   - The funnel (part funnel): funnel.go (file states, generations,
//     debounce and pacing, one check per file in flight, the publish
//     decision), memo.go (part ruleRuns: one rules run per text),
//     external.go (part externals: other sources' findings, Diagnostics),
//     pull.go (part pulling: pull diagnostics), textsum.go, index.go (the
//     workspace/symbol index the funnel keeps).
//   - The workspace (part workspace): workspace.go (folders, where a URI
//     sits, reads, excludes and folder config), scan.go (the folder scan).
//   - Watching (part watching): fswatch.go and fswatch_<os>.go (the
//     server's own fsnotify watcher and its budget), watched.go (what the
//     editor watches, and the gate both watchers' events pass).
//   - Read-only features (functions): features.go (code actions, hover,
//     completion), completion.go, jsonpos.go, fields.go, fixall.go,
//     links.go (links and definition), references.go, symbols.go,
//     outline.go (docInfo, Markdown outline), folding.go.
//   - Other parts: outbound.go (part outbound: messages, showDocument,
//     progress, the publisher), rename.go and rename_refs.go (part renamer),
//     confine.go (which edits stay in the workspace), view.go (part
//     folderViews: what each agent sees).
package server
