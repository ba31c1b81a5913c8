package server

// The Server's jobs that do not touch the funnel live in parts embedded in
// it, each in its own files, so a reader of one job reads only its methods.
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
