package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
)

// What the server asks the editor to watch: the contents of the files it
// reads (watchGlobs, from the kind table), and the creation and deletion
// of anything, because a folder that moves or disappears takes its files
// with it and editors report only the folder (VS Code's and Neovim's
// watchers both do).
const presenceGlob = "**/*"

// watchers is the registration for workspace/didChangeWatchedFiles.
func watchers() []protocol.FileSystemWatcher {
	ws := []protocol.FileSystemWatcher{{GlobPattern: protocol.Pattern(presenceGlob), Kind: protocol.WatchKindCreate | protocol.WatchKindDelete}}
	for _, g := range watchGlobs() {
		ws = append(ws, protocol.FileSystemWatcher{GlobPattern: protocol.Pattern(g), Kind: protocol.WatchKindChange})
	}
	return ws
}

// checkedFile reports whether a path may be a file ahpls checks, by its
// name alone (the kind needs the workspace; this only filters events).
func checkedFile(p string) bool { return model.MaybeCustomization(filepath.ToSlash(p)) }

// pathCreated handles a file or folder that appeared: a folder is scanned
// (its files are new to the server, and the editor reports only the
// folder), a file ahpls may check goes through the funnel, anything else
// only tells the host link.
func (s *Server) pathCreated(u uri.URI) {
	p, ok := uriPath(u)
	if !ok {
		return
	}
	if st, err := os.Lstat(p); err == nil && st.IsDir() {
		s.notifyPath(u)
		if loc, ok := s.locate(u); ok && loc.root != "" {
			s.scanUnder(loc.root, p)
		}
		return
	}
	if !checkedFile(p) {
		s.notifyPath(u)
		return
	}
	s.fileEvent(u, CauseCreated)
}

// pathDeleted handles a file or folder that disappeared: everything the
// server knew below it is cleared, and the path itself too.
func (s *Server) pathDeleted(u uri.URI) {
	p, ok := uriPath(u)
	if !ok {
		return
	}
	s.forgetUnder(p)
	s.mu.Lock()
	_, known := s.files[u]
	s.mu.Unlock()
	if !known && !checkedFile(p) {
		s.notifyPath(u)
		return
	}
	s.fileEvent(u, CauseDeleted)
}

// DidRenameFiles is the editor's own rename (explorer, a rename's
// workspace edit): it arrives before the watcher's events, so the old
// path's findings go at once. The re-check that follows finds the
// manifests and marketplaces that point at either path.
func (l *lspServer) DidRenameFiles(ctx context.Context, p *protocol.RenameFilesParams) error {
	s := l.s
	for _, f := range p.Files {
		old := uri.URI(strings.Clone(f.OldURI))
		s.pathDeleted(old)
		s.dropMovedBuffers(old)
		s.pathCreated(uri.URI(strings.Clone(f.NewURI)))
	}
	if len(p.Files) > 0 {
		s.scheduleRecheckAll()
	}
	return nil
}

// DidDeleteFiles is the editor's own delete.
func (l *lspServer) DidDeleteFiles(ctx context.Context, p *protocol.DeleteFilesParams) error {
	s := l.s
	for _, f := range p.Files {
		s.pathDeleted(uri.URI(strings.Clone(f.URI)))
	}
	if len(p.Files) > 0 {
		s.scheduleRecheckAll()
	}
	return nil
}

// fileOperations asks for the editor's renames and deletes of anything
// under a file: URI (folders included).
func fileOperations() *protocol.FileOperationOptions {
	scheme := "file"
	all := protocol.FileOperationRegistrationOptions{Filters: []protocol.FileOperationFilter{{Scheme: &scheme, Pattern: protocol.FileOperationPattern{Glob: "**/*"}}}}
	return &protocol.FileOperationOptions{DidRename: all, DidDelete: all}
}

// dropMovedBuffers forgets the open buffers at or below a renamed path:
// the editor moved them to the new path, and VS Code may keep the old
// document open long after (a dirty SKILL.md whose folder an F2 rename
// moved kept its findings on the old path in Problems). Each is checked as
// closed, which clears what was published for it.
func (s *Server) dropMovedBuffers(old uri.URI) {
	p, ok := uriPath(old)
	if !ok {
		return
	}
	prefix := p + string(filepath.Separator)
	s.mu.Lock()
	var us []uri.URI
	for u := range s.docs {
		if q, ok := uriPath(u); ok && (q == p || strings.HasPrefix(q, prefix)) {
			us = append(us, u)
			delete(s.docs, u)
			s.oweLocked(u)
		}
	}
	s.mu.Unlock()
	for _, u := range us {
		s.fileEvent(u, CauseClose)
	}
}
