package server

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
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
func (part watching) pathCreated(u uri.URI) {
	s := part.s
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
func (part watching) pathDeleted(u uri.URI) {
	s := part.s
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
		// The watchers' events for the same move (the editor's, the
		// server's own) come later or came first: the gate lets one of
		// each path through. The moved buffers are dropped either way.
		old := uri.URI(strings.Clone(f.OldURI))
		if s.admitURI(old) {
			s.pathDeleted(old)
		}
		s.dropMovedBuffers(old)
		if nu := uri.URI(strings.Clone(f.NewURI)); s.admitURI(nu) {
			s.pathCreated(nu)
		}
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
		if u := uri.URI(strings.Clone(f.URI)); s.admitURI(u) {
			s.pathDeleted(u)
		}
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
func (part watching) dropMovedBuffers(old uri.URI) {
	s := part.s
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

// applyChange applies one admitted change, as the editor reports it or as
// the server's own watcher found it (onFSEvent).
func (part watching) applyChange(u uri.URI, typ protocol.FileChangeType) {
	s := part.s
	s.gitIgnoreChanged(u)
	s.configChanged(u)
	switch typ {
	case protocol.FileChangeTypeCreated:
		s.pathCreated(u)
	case protocol.FileChangeTypeChanged:
		s.fileEvent(u, CauseChanged)
	case protocol.FileChangeTypeDeleted:
		s.pathDeleted(u)
	}
}

// The gate both watchers' events pass. Each admitted event leaves a record
// of what was at its path then (pathSig); a later event about the same
// path is admitted only when the path differs from that record, so the
// second report of one change (the editor's after the server's own, or the
// other way round, or a watcher's own repeat) costs nothing, however late
// it comes. A content hash of checked files keeps two writes of one size
// within one tick of the file clock apart.
type pathSig struct {
	fi  fs.FileInfo // nil: nothing at the path
	sum textSum     // of a checked file's content
	at  time.Time   // when it was recorded (pruning only)
}

// gateMax bounds the records; past it, records older than gateKeep go
// (a forgotten record only costs a late duplicate its re-check).
const (
	gateMax  = 4096
	gateKeep = time.Minute
)

func sigOf(p string) pathSig {
	sig := pathSig{at: time.Now()}
	fi, err := os.Lstat(p)
	if err != nil {
		return sig
	}
	// Windows reads a file's identity lazily, from the path, at the first
	// SameFile: read it now, while the path still names this file.
	_ = os.SameFile(fi, fi)
	sig.fi = fi
	if fi.Mode().IsRegular() && checkedFile(p) {
		if b, err := wsfs.ReadFile(p, diagnostics.MaxFileSize+1); err == nil {
			sig.sum = sumOf(b)
		}
	}
	return sig
}

func (a pathSig) same(b pathSig) bool {
	if a.fi == nil || b.fi == nil {
		return a.fi == nil && b.fi == nil
	}
	if a.fi.IsDir() != b.fi.IsDir() || !os.SameFile(a.fi, b.fi) {
		return false
	}
	if a.fi.IsDir() {
		return true // its entries are reported one by one
	}
	return a.fi.Mode() == b.fi.Mode() && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime()) && a.sum == b.sum
}

// admit reports whether an event about path p is news, and records what
// is at p now.
func (part watching) admit(p string) bool {
	f := &part.s.fsw
	sig := sigOf(p)
	f.gateMu.Lock()
	defer f.gateMu.Unlock()
	if last, ok := f.gate[p]; ok && last.same(sig) {
		f.dropped.Add(1)
		return false
	}
	if f.gate == nil {
		f.gate = map[string]pathSig{}
	}
	if len(f.gate) >= gateMax {
		for q, r := range f.gate {
			if sig.at.Sub(r.at) > gateKeep {
				delete(f.gate, q)
			}
		}
		if len(f.gate) >= gateMax {
			clear(f.gate)
		}
	}
	f.gate[p] = sig
	return true
}

// admitURI is admit for a URI; one that names no file is always news.
func (part watching) admitURI(u uri.URI) bool {
	p, ok := uriPath(u)
	return !ok || part.admit(p)
}
