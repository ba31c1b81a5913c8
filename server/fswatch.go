package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// The server's own file watcher (#41). Editors watch files for the server
// (workspace/didChangeWatchedFiles), but an editor's watcher can miss a
// change: code-server's (parcel) reported nothing for a skill folder moved
// in a shell, so Problems kept the old path's findings for the rest of the
// session. So the server also watches the workspace folders itself with the
// operating system's file events (fsnotify: inotify, kqueue,
// ReadDirectoryChangesW), beside the editor's watcher, not only when the
// editor cannot watch (`ahpls.fileWatcher`: "on", the default; "fallback";
// "off").
//
// Both watchers' events pass one gate (watched.go, admit): an event is news
// only when what is at its path now differs from what the last admitted
// event about that path saw, so a change both watchers report costs one
// check and one workspace re-check, whichever reports first and however
// late the other is.
//
// The watch is bounded: only the folders the scan walks (the same excludes
// and .gitignore), shallow ones first, within a budget the operating system
// sets (fswatch_*.go: a share of inotify's watches, of the open files kqueue
// needs, of ReadDirectoryChangesW's buffers). Past it, or when the system
// refuses a watch, the rest is left to the editor's watcher, said once in a
// window/logMessage.

// fsWatchState is the watcher's state, guarded by mu. mu is taken before
// s.mu, never under it, and never held while the funnel runs.
type fsWatchState struct {
	mu      sync.Mutex
	w       *fsnotify.Watcher
	watched map[string]int // watched folder → what it costs of the budget
	used    int
	budget  int  // 0 until a watcher starts; tests may preset it
	full    bool // the budget ran out or the system refused
	told    bool // full was said to the editor (once per watcher)
	// editor: the editor watches files for the server (its registration
	// of workspace/didChangeWatchedFiles succeeded); decided: Initialized
	// has settled that, so settings changes may start or stop the watcher.
	editor, decided bool
	// closed: the session is shutting down; no watcher starts again.
	closed bool
	// ready: the watcher watches the workspace folders (startFSWatch is
	// done with them).
	ready bool

	// gate is the record of the last admitted event per path (watched.go).
	gateMu sync.Mutex
	gate   map[string]pathSig
	// dropped counts events the gate found to be old news.
	dropped atomic.Int64

	// hook, set by tests before Serve, hears each fsnotify event before it
	// is handled (and may hold it).
	hook func(name string)
}

// watching is the part that runs the server's own watcher and the gate
// both watchers' events pass (fswatch.go, watched.go).
type watching struct{ s *Server }

// fsWatchWanted says whether the server's own watcher should run now.
func (part watching) fsWatchWanted() bool {
	s := part.s
	if s.opts.NoFSNotify {
		return false
	}
	s.fsw.mu.Lock()
	editor := s.fsw.editor
	s.fsw.mu.Unlock()
	switch s.Settings().FileWatcher {
	case settings.FileWatcherOff:
		return false
	case settings.FileWatcherFallback:
		return !editor
	}
	return true
}

// reconcileFSWatch starts or stops the watcher as the settings and the
// editor's watching want. Before Initialized has decided, it does nothing.
func (part watching) reconcileFSWatch() {
	s := part.s
	s.fsw.mu.Lock()
	decided, running := s.fsw.decided, s.fsw.w != nil
	s.fsw.mu.Unlock()
	if !decided {
		return
	}
	switch want := s.fsWatchWanted(); {
	case want && !running:
		s.startFSWatch(s.Folders())
	case !want && running:
		s.stopFSWatch(false)
		s.log.Info("own file watcher stopped")
	}
}

// startFSWatch watches the workspace folders (roots) and the folders below
// them, within the budget.
func (part watching) startFSWatch(roots []string) {
	s := part.s
	s.mu.Lock()
	down := s.state == stateShutdown || s.ctx == nil || s.ctx.Err() != nil
	s.mu.Unlock()
	f := &s.fsw
	f.mu.Lock()
	if down || f.closed || f.w != nil {
		f.mu.Unlock()
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		f.mu.Unlock()
		s.log.Warn("file watching unavailable", "error", err)
		s.logToClient(protocol.MessageTypeWarning, fmt.Sprintf("ahpls: no file watching of its own here (%v); changes on disk reach it only through the editor", err))
		return
	}
	f.w, f.watched, f.used, f.full, f.told, f.ready = w, map[string]int{}, 0, false, false, false
	if f.budget <= 0 {
		f.budget = watchBudget()
	}
	f.mu.Unlock()
	go part.fsLoop(w)
	for _, r := range roots {
		part.watchTree(r, r)
	}
	f.mu.Lock()
	if f.w == w {
		f.ready = true
	}
	n, used, budget := len(f.watched), f.used, f.budget
	f.mu.Unlock()
	s.log.Info("own file watcher started", "folders", n, "cost", used, "budget", budget)
}

// stopFSWatch closes the watcher; final (shutdown) keeps it closed.
func (part watching) stopFSWatch(final bool) {
	f := &part.s.fsw
	f.mu.Lock()
	w := f.w
	f.w, f.watched, f.used, f.ready = nil, nil, 0, false
	if final {
		f.closed = true
	}
	f.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
}

// fsWatchRunning reports whether the server's own watcher runs and
// watches the workspace folders.
func (part watching) fsWatchRunning() bool {
	f := &part.s.fsw
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.w != nil && f.ready
}

// fsLoop handles one watcher's events, in the order the system reported
// them (the watches below a moved folder are kept right only in that
// order), until the watcher is closed.
func (part watching) fsLoop(w *fsnotify.Watcher) {
	s := part.s
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			part.onFSEvent(ev)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost, folders created among them too: watch
				// again (folders watched already cost nothing) and rescan.
				s.log.Warn("file watcher overflowed; rescanning")
				for _, r := range s.Folders() {
					part.watchTree(r, r)
					s.scanFolder(r)
				}
				s.scheduleRecheckAll()
				continue
			}
			s.log.Debug("file watcher error", "error", err)
		}
	}
}

// onFSEvent turns one fsnotify event into the change an editor would have
// reported, decided by what is at the path now: nothing (deleted, or
// renamed away), a folder (created: watched and scanned), a file (created,
// or changed). The watches are kept right for every event; the funnel
// hears only of what the gate admits.
func (part watching) onFSEvent(ev fsnotify.Event) {
	s := part.s
	if h := s.fsw.hook; h != nil {
		h(ev.Name)
	}
	if ev.Op&^fsnotify.Chmod == 0 {
		return // a mode change: nothing a rule reads
	}
	p := filepath.Clean(ev.Name)
	u := uri.File(p)
	st, err := os.Lstat(p)
	typ := protocol.FileChangeTypeChanged
	switch {
	case err != nil:
		part.unwatchUnder(p)
		typ = protocol.FileChangeTypeDeleted
	case st.IsDir():
		if ev.Op&^(fsnotify.Write|fsnotify.Chmod) == 0 {
			return // its entries changed: they are reported one by one
		}
		if loc, ok := s.locate(u); ok && loc.root != "" {
			part.watchTree(loc.root, p)
		}
		typ = protocol.FileChangeTypeCreated
	case ev.Has(fsnotify.Create):
		typ = protocol.FileChangeTypeCreated
	case !contentWatched(p):
		// A file whose content no rule reads: only the host link hears
		// of it (the editor is not asked to report these either).
		s.notifyPath(u)
		return
	}
	if !part.admit(p) {
		return
	}
	part.applyChange(u, typ)
	s.scheduleRecheckAll()
}

// contentWatched reports files whose content changes matter to the
// server: files it may check, and the .gitignore files the scan honours.
func contentWatched(p string) bool {
	return checkedFile(p) || filepath.Base(p) == wsfs.GitIgnoreFile
}

// maxWatchCandidates bounds the folders one watchTree walk collects before
// choosing the shallowest: a huge tree costs a bounded list, not its size.
const maxWatchCandidates = 1 << 18

var errEnough = errors.New("enough folders")

// watchTree watches dir (workspace folder root or a folder below it) and
// the folders below it that the scan walks (the folder's excludes and
// .gitignore), shallow ones first, while the budget lasts. Folders watched
// already are skipped at no cost.
func (part watching) watchTree(root, dir string) {
	s := part.s
	under := ""
	if dir != root {
		r, err := filepath.Rel(root, dir)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return
		}
		under = filepath.ToSlash(r)
	}
	ex := s.excludes(root)
	if under != "" && ex.m.Match(under) {
		return
	}
	dirs := []string{dir}
	opt := wsfs.WalkOptions{Exclude: ex.m, Under: under, GitIgnore: !ex.noGitIgnore, Keep: model.LoadedWhenIgnored}
	_ = wsfs.Walk(root, opt, func(e wsfs.Entry) error {
		if !e.IsDir() {
			return nil
		}
		if len(dirs) >= maxWatchCandidates {
			return errEnough
		}
		dirs = append(dirs, filepath.Join(root, filepath.FromSlash(e.Rel)))
		return nil
	})
	sep := string(filepath.Separator)
	sort.SliceStable(dirs, func(i, j int) bool { return strings.Count(dirs[i], sep) < strings.Count(dirs[j], sep) })
	f := &s.fsw
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range dirs {
		if f.w == nil || f.full {
			return
		}
		if _, ok := f.watched[d]; ok {
			continue
		}
		cost := watchCost(d)
		if f.used+cost > f.budget {
			part.budgetSpentLocked(root, fmt.Sprintf("its budget here is %d (%s)", f.budget, budgetUnit))
			return
		}
		if err := addWatch(f.w, d); err != nil {
			if limitErr(err) {
				part.budgetSpentLocked(root, fmt.Sprintf("the system refused more: %v", err))
				return
			}
			continue // gone meanwhile, or unreadable: nothing to watch
		}
		f.watched[d] = cost
		f.used += cost
	}
}

// budgetSpentLocked says once that the watcher watches no more folders.
func (part watching) budgetSpentLocked(root, why string) {
	s := part.s
	f := &s.fsw
	f.full = true
	if f.told {
		return
	}
	f.told = true
	msg := fmt.Sprintf("ahpls: watching %d folders of %s itself and no more (%s); changes in the others reach ahpls only through the editor's watcher", len(f.watched), root, why)
	s.log.Warn("own file watcher is full", "folders", len(f.watched), "root", root, "why", why)
	s.logToClient(protocol.MessageTypeWarning, msg)
}

// unwatchUnder drops the watches of a folder that is gone and of the
// folders below it. A folder moved away keeps its watches (inotify and
// kqueue watch the folder, not its path) under the old paths: dropped
// here, before the watch of the new path is added, its events come back
// under the new paths.
func (part watching) unwatchUnder(p string) {
	f := &part.s.fsw
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.w == nil {
		return
	}
	if _, ok := f.watched[p]; !ok {
		return
	}
	prefix := p + string(filepath.Separator)
	for d, cost := range f.watched {
		if d == p || strings.HasPrefix(d, prefix) {
			_ = f.w.Remove(d)
			delete(f.watched, d)
			f.used -= cost
		}
	}
	f.full = false // room again: later folders may be watched
}

// foldersChanged follows the workspace folders the editor added or
// removed.
func (part watching) foldersChanged(added, removed []string) {
	if !part.fsWatchRunning() {
		return
	}
	for _, r := range removed {
		part.unwatchUnder(r)
	}
	for _, r := range added {
		part.watchTree(r, r)
	}
}
