package server

// The Server's jobs live in parts embedded in it, each in its own files, so
// a reader of one job reads only its methods; the Server itself keeps the
// session's lifecycle and the LSP wiring (server.go, lsp.go, settings.go).
// A part holds the Server back (the jobs share its lock, folders and
// documents); its methods are the Server's by promotion, so callers write
// s.LogMessage or s.listView as before.

// outbound sends what the server tells the editor outside diagnostics:
// log and show messages, notifications, showDocument, progress
// (outbound.go).
type outbound struct{ s *Server }

// renamer answers rename for skill names and moves the references to a
// renamed skill (rename.go, rename_refs.go).
type renamer struct{ s *Server }

// folderViews answers what each agent sees per folder: the list view
// command and the hover's first lines (view.go).
type folderViews struct{ s *Server }

// workspace knows the workspace folders on disk: where a URI sits, reads
// below a folder, each folder's excludes and config, and the folder scans
// (workspace.go, scan.go). The scan's check of one file (scanCheck) stays
// with the Server: it feeds the funnel.
type workspace struct{ s *Server }

// watching (declared in fswatch.go) runs the server's own file watcher
// and the gate that both it and the editor's watcher pass (fswatch.go,
// watched.go).

// funnel is the one path every file change takes to the editor
// (funnel.go): each URI's fileState and its generation, the debounce and
// pacing of checks, at most one check per file in flight, the drop of a
// stale result, and the publish decision (a set is sent only when it
// differs from what the editor has). Its state (s.files, s.docs'
// openness, s.rulesGen, the recheck timer) is under s.mu; a check runs
// the rules outside s.mu on a worker slot (s.sem) and takes s.mu only to
// store and publish its result. Methods named ...Locked expect s.mu held.
// The scan's check of one file (scanCheck, scan.go), the symbol index's
// update (indexLocked, index.go) and currentCheck (features.go) are its
// too.
type funnel struct{ s *Server }

// ruleRuns runs the rules over one file's text, once per text, kind,
// settings generation and folder config, whoever asks first: the funnel's
// check or the agent-host publisher (Findings) (memo.go). The memo lives
// in the file's fileState under s.mu; the rules run outside it, and a
// second asker waits for the run under way.
type ruleRuns struct{ s *Server }

// externals takes the findings other sources add to a file (the agent
// host's load failures and notes) and gives every file's merged findings
// back (the diagnostics client tool) (external.go). It changes fileState
// under s.mu and publishes through the funnel's decision.
type externals struct{ s *Server }

// pulling answers a client that pulls diagnostics (LSP 3.17): which
// URIs are owed in full, the held workspace/diagnostic requests and the
// refresh request (pull.go). Its fields (s.owed, s.wsWake,
// s.refreshTimer) are under s.mu.
type pulling struct{ s *Server }
